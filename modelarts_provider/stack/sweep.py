"""Grid sweeps: a grid of hyperparameter values -> one point per combination, with stable keys.

Point keys are readable and deterministic: ``<sweep>-<key><value>_<key><value>-<hash6>``, cut to fit
64 characters; the hash of the canonical point keeps them distinct even when two values sanitize to the
same text or the readable part is cut. Adding a value to the grid adds jobs without renaming (and so
without replacing) the existing ones. A key names the point's resource, export and output folder; its
job's name is derived from it with a random suffix (stack/program.py), unique per stack.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
from typing import Union

Scalar = Union[str, int, float, bool]
MAX_NAME = 64
HASH_LEN = 6


def expand(grid: dict[str, list[Scalar]]) -> list[dict[str, Scalar]]:
    """Cartesian product in key order then value order (both as written)."""
    keys = list(grid)
    return [dict(zip(keys, combo)) for combo in itertools.product(*(grid[k] for k in keys))]


def as_param(value: Scalar) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "", text.replace(".", "p").replace("-", "m"))


def point_hash(point: dict[str, Scalar]) -> str:
    canonical = json.dumps({k: as_param(v) for k, v in sorted(point.items())}, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()[:HASH_LEN]


def point_name(sweep: str, point: dict[str, Scalar]) -> str:
    # Sorted keys: the same point gets the same name however the config map was ordered.
    readable = "_".join(f"{_slug(k)}{_slug(as_param(v))}" for k, v in sorted(point.items()))
    tail = f"-{point_hash(point)}"
    head = f"{sweep}-{readable}" if readable else sweep
    return head[: MAX_NAME - len(tail)].rstrip("-_") + tail


def point_names(sweep: str, grid: dict[str, list[Scalar]]) -> list[tuple[str, dict[str, Scalar]]]:
    points = expand(grid)
    named = [(point_name(sweep, p), p) for p in points]
    seen: dict[str, dict[str, Scalar]] = {}
    for name, p in named:
        if name in seen:  # only if two points are equal after str(): a malformed grid
            raise ValueError(f"grid points {seen[name]} and {p} give the same job name {name}")
        seen[name] = p
    return named

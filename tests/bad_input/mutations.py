"""Edits of a valid config that make it bad, and the case type of the bad-input suite.

A `Mutation` records the paths it sets, so the suite can tell which fields of the config models its
cases are about (tests/bad_input/fields.py) without a second, hand-kept list.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from testkit.faults import PROJECT, sweep

Path = tuple[Any, ...]
DELETE = object()


@dataclass(frozen=True)
class Mutation:
    """`edits`, applied after `setup` (a valid part the edits need, e.g. a sweep): only the edits'
    paths are what the case is about."""

    edits: tuple[tuple[Path, Any], ...]
    setup: tuple[tuple[Path, Any], ...] = ()

    @property
    def paths(self) -> tuple[Path, ...]:
        return tuple(path for path, _ in self.edits)

    def __call__(self, cfg: dict[str, Any]) -> None:
        for path, value in self.setup + self.edits:
            cur = cfg
            for part in path[:-1]:
                cur = cur.setdefault(part, {})
            if value is DELETE:
                cur.pop(path[-1], None)
            else:
                cur[path[-1]] = copy.deepcopy(value)

    def __add__(self, other: Mutation) -> Mutation:
        return Mutation(self.edits + other.edits, self.setup + other.setup)


def put(path: Path, value: Any) -> Mutation:
    """Set the value at `path` (DELETE removes it)."""
    return Mutation(((path, value),))


def both(*mutations: Mutation) -> Mutation:
    out = Mutation(())
    for m in mutations:
        out = out + m
    return out


@dataclass(frozen=True)
class Case:
    """A bad config, the exact message it must be refused with, and the fields it is about.

    `covers`: paths of the fields the case tests (default: the paths the mutation sets). A case about
    a combination of fields (e.g. no algorithm at all) covers none of them on its own: `covers=()`.
    """

    id: str
    mutate: Mutation
    message: str
    covers: tuple[Path, ...] | None = field(default=None)

    @property
    def fields(self) -> tuple[Path, ...]:
        return self.mutate.paths if self.covers is None else self.covers


# --- the stack config (keys of the stack's config file) -------------------------------------------

JOBS = f"{PROJECT}:jobs"
SWEEPS = f"{PROJECT}:sweeps"
POOLS_KEY = f"{PROJECT}:pools"
OBS_KEY = f"{PROJECT}:obs"


def job_field(name: str, value: Any) -> Mutation:
    """jobs.a.<name> (DELETE removes it)."""
    return put((JOBS, "a", name), value)


def pool_field(name: str, value: Any) -> Mutation:
    return put((POOLS_KEY, "gpu", name), value)


def obs_field(name: str, value: Any) -> Mutation:
    return put((OBS_KEY, "main", name), value)


def setting(name: str, value: Any) -> Mutation:
    """A provider setting, modelarts:<name>."""
    return put((f"modelarts:{name}",), value)


def with_sweep(**fields: Any) -> Mutation:
    """sweeps.s: a valid sweep over lr (setup), with `fields` set (DELETE removes one)."""
    base = sweep({"lr": [0.1, 0.2]})
    edits = tuple(((SWEEPS, "s", name), value) for name, value in fields.items())
    return Mutation(edits, setup=(((SWEEPS, "s"), base),))


NO_ALGORITHM = both(job_field("codeDir", DELETE), job_field("bootFile", DELETE), job_field("engine", DELETE))

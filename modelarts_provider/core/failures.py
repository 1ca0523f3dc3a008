"""Validation errors -> one Failure per bad field, in words; shared by every resource's check().

During preview some inputs are still unknown (a random name suffix, another resource's id). Pydantic cannot
know what they will become, so errors located at (or under) an unknown value are dropped: the engine calls
check again with the resolved values before create. Each model passes its own model names, so union branches
named after its classes are merged into one reason per field (messages.explain).
"""

from __future__ import annotations

import re
from collections.abc import Container, Iterable
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from .messages import explain
from .unknowns import contains_unknown, is_unknown


@dataclass(frozen=True)
class Failure:
    property: str
    reason: str

    def __str__(self) -> str:
        return f"{self.property}: {self.reason}"


def _value_at(raw: Any, loc: tuple[Any, ...]) -> tuple[bool, Any]:
    """Follow loc into the raw input; (True, UNKNOWN) as soon as an unknown is met on the way."""
    cur = raw
    for part in loc:
        if is_unknown(cur):
            return True, cur
        if isinstance(cur, dict) and part in cur:
            cur = cur[part]
        elif isinstance(cur, list) and isinstance(part, int) and part < len(cur):
            cur = cur[part]
        else:
            return False, None
    return contains_unknown(cur), cur


def format_loc(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


def failures_from(error: ValidationError, raw: dict[str, Any], model_names: Iterable[str] = (),
                  prefix: tuple[Any, ...] = (), whole: str = "args") -> list[Failure]:
    """One Failure per bad field, in words (messages.py); errors hidden behind unknown values are skipped. A
    failure of the whole model (no field's) is named `whole`."""
    out: list[Failure] = []
    seen: set[str] = set()
    for loc, reason in explain(error.errors(), model_names):
        hidden, _ = _value_at(raw, loc)
        if hidden:
            continue
        prop = format_loc(prefix + loc) or whole
        if prop in seen:
            continue
        seen.add(prop)
        out.append(Failure(prop, reason))
    return out


# A reason that already leads with where the value was declared (`modelarts-jobs:jobs.a.engine.name: ...`).
_KEY_LEAD = re.compile(r"^[A-Za-z0-9_-]+:[A-Za-z0-9_.\[\]-]+: ")


def for_engine(prop: str, reason: str, top_level: Container[str]) -> tuple[str, str]:
    """A check failure as the engine prints it well. The engine writes `property P value {inputs[P]} has a
    problem: R`, looking P up among the top-level inputs only: a nested path (`algorithm.engine.engine_name`)
    or a name that is no input (`modelarts`) printed `value {<nil>}`. Such a failure goes without a property
    (`resource 'x' has a problem: R`), its path leading the reason unless the reason names its config key."""
    if prop in top_level or not prop:
        return prop, reason
    return "", reason if _KEY_LEAD.match(reason) else f"{prop}: {reason}"


"""check(): raw Pulumi inputs -> validated args, or one failure per bad field. No API calls.

During preview some inputs are still unknown (e.g. a random name suffix). Pydantic cannot know
what they will become, so errors located at (or under) an unknown value are dropped here; the
engine calls check again with the resolved values before create.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pulumi.output import Unknown
from pydantic import ValidationError

from .args import TrainingJobArgs

# pulumi.runtime.rpc.UNKNOWN: the wire placeholder for not-yet-known values. The dynamic provider
# host hands them to check/diff as pulumi.output.Unknown instances; accept both.
UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"


def is_unknown(value: Any) -> bool:
    return isinstance(value, Unknown) or (isinstance(value, str) and value == UNKNOWN)

# Output properties: the resource registers them with None, so they arrive with the inputs.
OUTPUT_KEYS = frozenset({
    "job_id", "job_name", "phase", "secondary_phase", "create_time", "start_time", "duration_ms",
    "flavor_name", "task_statuses", "task_names", "output_paths", "output_path", "console_url",
})


@dataclass(frozen=True)
class Failure:
    property: str
    reason: str


def contains_unknown(value: Any) -> bool:
    if is_unknown(value):
        return True
    if isinstance(value, dict):
        return any(contains_unknown(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(contains_unknown(v) for v in value)
    return False


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


def _clean_loc(loc: tuple[Any, ...]) -> tuple[Any, ...]:
    # Pydantic adds the branch name of a union (e.g. "str") or validator tags; drop them.
    return tuple(p for p in loc if not (isinstance(p, str) and p in {"str", "int", "float", "bool",
                                                                     "function-after[_name(), str]"}))


def _reason(err: dict[str, Any]) -> str:
    msg = err["msg"]
    if msg.startswith("Value error, "):
        msg = msg[len("Value error, "):]
    if err["type"] == "extra_forbidden":
        msg = "is not a known field"
    elif err["type"] == "missing":
        msg = "is required"
    return msg


def failures_from(error: ValidationError, raw: dict[str, Any], prefix: tuple[Any, ...] = ()) -> list[Failure]:
    """One Failure per bad field; errors hidden behind unknown values are skipped."""
    out: list[Failure] = []
    seen: set[str] = set()
    for err in error.errors():
        loc = _clean_loc(tuple(err["loc"]))
        is_unknown, _ = _value_at(raw, loc)
        if is_unknown:
            continue
        field = (err.get("ctx") or {}).get("field") if err["type"] == "rule" else None
        full = prefix + loc + ((field,) if field else ())
        prop = format_loc(full) or "args"
        if prop in seen:
            continue
        seen.add(prop)
        out.append(Failure(prop, _reason(err)))
    return out


def strip_outputs(news: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in news.items() if k not in OUTPUT_KEYS and not k.startswith("__")}


def check_inputs(news: dict[str, Any]) -> tuple[dict[str, Any], list[Failure]]:
    """Returns (inputs to store, failures). Known-valid inputs come back normalized (defaults filled)."""
    raw = strip_outputs(news)
    try:
        args = TrainingJobArgs.model_validate(raw)
    except ValidationError as e:
        return raw, failures_from(e, raw)
    if contains_unknown(raw):
        return raw, []
    return args.model_dump(mode="json"), []

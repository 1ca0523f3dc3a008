"""After a failed `up`: is what the stack exported older than what its state records? (issue 56)

A wait that fails records what it saw in the state (the JobsAwait's outputs, with the engine's init error:
core/recorded_failure.py), but the program's exports are written only by an `up` that succeeds. After an `up`
that failed, `sweeps`, `runs` and `jobs` are those of the last `up` that succeeded (none after a first `up`), while
the state holds the newer runs. So the command-line tools read a sweep, a key's runs and their output paths from
the state first when `exports_behind` says so (and from the exports otherwise: they are what the program says).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

AWAIT_SUFFIX = ":JobsAwait"  # the JobsAwait's type through either front door


def _field(resource: Any, name: str) -> Any:
    """A state resource's field, from a checkpoint's dict or a loose model of one (its extra fields)."""
    if isinstance(resource, dict):
        return resource.get(name)
    value = getattr(resource, name, None)
    if value is None:
        value = (getattr(resource, "model_extra", None) or {}).get(name)
    return value


def failed_waits(resources: Iterable[Any]) -> list[str]:
    """The first line of each JobsAwait's init error in the state: the waits whose `up` failed, newest state."""
    out = []
    for r in resources:
        errors = _field(r, "initErrors")
        if str(_field(r, "type") or "").endswith(AWAIT_SUFFIX) and isinstance(errors, list) and errors:
            out.append(str(errors[0]).strip().splitlines()[0] if str(errors[0]).strip() else "")
    return out


def exports_behind(resources: Iterable[Any]) -> bool:
    """Whether the stack's exports predate its state: a JobsAwait recorded a wait whose `up` failed (read the
    sweep, the runs and the output paths from the state's JobsAwait and TrainingJobs, not from the exports)."""
    return bool(failed_waits(resources))

"""Failed runs on record (issue 56): which failures a wait settles, and the warning lines that keep saying so.

A failed job is settled (recorded as failed, not waited for again, the `up` goes on) when its job accepts it
(`accept_failed`, the stack config's `acceptFailed: true`, per job or per sweep) or when it is a sweep point
within its sweep's `max_failures`. Anything else fails the `up`, still recording what the wait saw
(core/recorded_failure.py).

An `up` that waits for nothing prints nothing of the wait, so a failure accepted once would go quiet. The
JobsAwait's diff (every preview and every `up`, both front doors) reads the settled failures from its recorded
statuses and says them again as warnings: one line per job outside sweeps, one per sweep, at most SHOWN keys
named a line.
"""

from __future__ import annotations

from typing import Any

from ..core.masking import NONE, Secrets
from ..results.show import printable

SHOWN = 5  # keys named in a sweep's line; the rest counted
RERUN = "re-run it: replaceFailed: true, or pulumi up --replace <its URN>"


def _entry(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _why(status: dict[str, Any]) -> str:
    return str(status.get("failure") or status.get("phase") or "failed")


def settled_lines(jobs: dict[str, Any], statuses: dict[str, Any], max_failures: dict[str, Any] | None = None,
                  secrets: dict[str, Secrets] | None = None) -> list[str]:
    """The warning lines of every settled failure among `statuses` (plain values: recorded outputs or a wait's
    dump), each job's part masked with its own `secrets`."""
    secrets = secrets or {}
    lines: list[str] = []
    sweeps: dict[str, list[str]] = {}
    for key, raw in sorted(statuses.items()):
        status, spec = _entry(raw), _entry(jobs.get(key))
        if not status.get("tolerated"):
            continue
        group = spec.get("group")
        if isinstance(group, str):
            sweeps.setdefault(group, []).append(key)
            continue
        lines.append(printable(f"warning: {key} failed, accepted (acceptFailed): {_why(status)}; {RERUN}",
                               secrets.get(key, NONE)))
    for group, keys in sorted(sweeps.items()):
        accepted = all(_entry(jobs.get(k)).get("accept_failed") for k in keys)
        why = "acceptFailed" if accepted else f"maxFailures {(max_failures or {}).get(group, 0)}"
        named = ", ".join(f"{k} ({_why(_entry(statuses[k]))})" for k in keys[:SHOWN])
        more = f" and {len(keys) - SHOWN} more" if len(keys) > SHOWN else ""
        shown = NONE
        for k in keys[:SHOWN]:
            shown |= secrets.get(k, NONE)
        lines.append(printable(f"warning: sweep {group}: {len(keys)} failed point{'s' if len(keys) != 1 else ''} "
                               f"on record ({why}), never its best: {named}{more}", shown))
    return lines

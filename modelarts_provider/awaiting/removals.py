"""What an update deletes of the jobs the JobsAwait waited for: said in the preview (issue 41).

A slip that makes the program declare less (a key removed by mistake, a section it no longer sees) deletes the
jobs it forgot, finished runs and searches included. The engine lists the deletions among its steps, but nothing
says what they were. The JobsAwait holds the last phase of every job it waited for, and its diff (called in
every preview, through both doors) sees which of them the program no longer declares: it names them, with their
phase, as a warning in the engine's diagnostics.
"""

from __future__ import annotations

from typing import Any

SHOWN = 12  # names listed; the rest counted


def removed_jobs(olds: dict[str, Any], new_jobs: dict[str, Any]) -> list[tuple[str, str]]:
    """(key, what it was) of every job recorded in `olds` that the new inputs no longer hold (a job moved to another
    key keeps its id: not removed)."""
    statuses = olds.get("statuses") if isinstance(olds.get("statuses"), dict) else {}
    kept_ids = {j.get("job_id") for j in new_jobs.values() if isinstance(j, dict)}
    out = []
    for key in sorted(set(statuses) - set(new_jobs)):
        status = statuses[key] if isinstance(statuses[key], dict) else {}
        if status.get("job_id") in kept_ids:
            continue
        what = status.get("phase") or "phase unknown"
        out.append((key, f"{what}, a search" if status.get("search") else what))
    return out


def removal_warning(olds: dict[str, Any], new_jobs: dict[str, Any]) -> str | None:
    """One warning line naming the removed jobs, or None."""
    gone = removed_jobs(olds, new_jobs)
    if not gone:
        return None
    names = ", ".join(f"{key} ({what})" for key, what in gone[:SHOWN])
    more = f" and {len(gone) - SHOWN} more" if len(gone) > SHOWN else ""
    return (f"warning: this update deletes {len(gone)} job{'s' if len(gone) != 1 else ''} the program no longer "
            f"declares: {names}{more}")

"""The error of a wait that did not end well: every failed or timed-out job, with why."""

from __future__ import annotations

from typing import Any

from .conditions import Verdict
from .watcher import Result


def failure_report(client: Any, results: list[Result]) -> str | None:
    """None when every job reached its target; else one block per job that did not.

    The logs of each failing job are fetched once, here, at the failure; fetching them never hides
    the failure itself (failure_log_tail does not raise).
    """
    bad = [r for r in results if r.outcome.verdict is not Verdict.REACHED]
    if not bad:
        return None
    lines = [f"{len(bad)} of {len(results)} awaited training jobs did not reach their target:"]
    for r in bad:
        job = r.job
        if r.outcome.verdict is Verdict.FAILED and job is not None and job.id:
            try:  # the listing may omit task details: one GET for the whole story
                job = client.get_job(job.id) or job
            except Exception:  # noqa: BLE001 - the failure we report matters more than details
                pass
            reason = _describe(job) if job is not None else r.outcome.reason
        else:
            reason = r.outcome.reason
        lines.append(f"- {r.watched.key}: {reason}" + (f"; {r.note}" if r.note else ""))
        if job is not None and r.outcome.verdict in (Verdict.FAILED, Verdict.TIMED_OUT):
            from ..logs import failure_log_tail  # noqa: PLC0415 - only needed on failure

            tail = failure_log_tail(client, job)
            if tail:
                lines.append(tail.rstrip("\n"))
    return "\n".join(lines)


def _describe(job: Any) -> str:
    from ..training_job.outputs import describe_failure

    return describe_failure(job)

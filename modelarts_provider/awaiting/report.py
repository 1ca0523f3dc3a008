"""The report of a wait that did not end well: every failed or timed-out job, grouped by cause.

A sweep whose points all fail for one reason must print a screenful, not a log tail per point
(measured before: 60 failing points, 60 logs fetched one after another, 1,570 lines). So failures are
grouped by cause (the verdict, each failing task's exit code and message, without the job's own name);
every failed job is named; log tails are shown for at most MAX_TAILS_PER_CAUSE jobs of a cause and
MAX_TAILS in all, fetched concurrently, as are the details GETs of failed jobs (the listing may omit
task details). A cause with a single job keeps the one-line form `- key: <why>`.

The report reads top down: the first line names the failed jobs (the engine's progress view shows no
more), then why each failed, one line each (a cause shared by many: one
line and their keys), then the log tails, each under its job's key; the service's environment
boilerplate is left out of the tails (logs.py).
"""

from __future__ import annotations

import re
import textwrap
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

from ..core.masking import NONE, Secrets
from ..results.show import printable
from .conditions import Verdict
from .watcher import Result

MAX_TAILS_PER_CAUSE = 3
MAX_TAILS = 9  # in all: many different causes still fit a screen
CONCURRENCY = 8
TAIL_LINES = 20  # a job failing alone
GROUP_TAIL_LINES = 8  # each of the few jobs shown of a shared cause
WIDTH = 120
HEAD_KEYS = 5  # jobs named in the first line


def _fetch_all(fn: Callable[[Any], Any], items: list[Any]) -> list[Any]:
    if len(items) <= 1:
        return [fn(i) for i in items]
    with ThreadPoolExecutor(max_workers=min(CONCURRENCY, len(items))) as pool:
        return list(pool.map(fn, items))


def _details(client: Any, result: Result) -> Any:
    job = result.job
    if result.outcome.verdict is Verdict.FAILED and job is not None and job.id:
        try:  # the listing may omit task details: one GET for the whole story
            return client.get_job(job.id) or job
        except Exception:  # noqa: BLE001 - the failure we report matters more than details
            return job
    return job


def describe(result: Result, job: Any) -> str:
    """Why one job did not reach its target, in one line."""
    if result.outcome.verdict is Verdict.FAILED and job is not None:
        from ..core.job_text import describe_failure  # noqa: PLC0415

        reason = describe_failure(job)
    else:
        reason = result.outcome.reason
    return reason + (f"; {result.note}" if result.note else "")


def cause(result: Result, job: Any) -> str:
    """What failed jobs have in common: phase, exit codes and messages (or the verdict), no names or ids."""
    if result.outcome.verdict is Verdict.FAILED and job is not None:
        tasks = "; ".join(f"exit code {t.exit_code}" + (f": {t.message}" if t.message else "")
                          for t in job.task_statuses if str(t.exit_code) not in ("0", "None"))
        return f"{job.phase}" + (f"; {tasks}" if tasks else "")
    if result.outcome.verdict is Verdict.TIMED_OUT:
        # "training job NAME (ID) timed out after ..." -> "timed out after ..."
        return re.sub(r"^training job .*? \(.*?\) ", "", result.outcome.reason) + (
            f"; {result.note}" if result.note else "")
    return result.outcome.verdict.value


def failure_report(client: Any, results: list[Result], *, tolerated: str = "",
                   secrets: dict[str, Secrets] | None = None) -> str | None:
    """None when every job reached its target; else the report (`tolerated`: a sentence saying that
    these failures are within the sweeps' maxFailures, placed under the first line). Each job's lines are
    masked with that job's `secrets` (per key), a cause many jobs share with all of theirs."""
    secrets = secrets or {}

    def of(*keys: str) -> Secrets:
        out = NONE
        for key in keys:
            out |= secrets.get(key, NONE)
        return out

    bad = [r for r in results if r.outcome.verdict is not Verdict.REACHED]
    if not bad:
        return None
    jobs = _fetch_all(lambda r: _details(client, r), bad)
    groups: dict[str, list[tuple[Result, Any]]] = {}
    for r, job in zip(bad, jobs):
        groups.setdefault(cause(r, job), []).append((r, job))

    # Which jobs get a log tail: the first of each cause, then the second, ... (at most MAX_TAILS_PER_CAUSE
    # of a cause), up to MAX_TAILS in all: every cause shows a log before any shows a third.
    tailed: list[tuple[Result, Any]] = []
    for rank in range(MAX_TAILS_PER_CAUSE):
        for members in groups.values():
            with_logs = [(r, job) for r, job in members
                         if job is not None and r.outcome.verdict in (Verdict.FAILED, Verdict.TIMED_OUT)]
            if rank < len(with_logs) and len(tailed) < MAX_TAILS:
                tailed.append(with_logs[rank])
    alone = {id(members[0][0]) for members in groups.values() if len(members) == 1}
    texts = _fetch_all(lambda rj: _tail(client, rj[1], TAIL_LINES if id(rj[0]) in alone else GROUP_TAIL_LINES,
                                        of(rj[0].watched.key)), tailed)
    tails = dict(zip((id(r) for r, _ in tailed), texts))

    # The first line names the jobs: the engine's progress view shows an error's first line only.
    keys = [r.watched.key for r in bad]
    named = ", ".join(keys[:HEAD_KEYS]) + (f" and {len(keys) - HEAD_KEYS} more" if len(keys) > HEAD_KEYS else "")
    lines = [printable(f"{len(bad)} of {len(results)} awaited training jobs did not reach their target: {named}",
                       NONE)]
    if tolerated:
        lines.append(printable(tolerated, NONE))
    tail_lines: list[str] = []
    for why, members in groups.items():
        if len(members) == 1:
            r, job = members[0]
            lines.append(printable(f"- {r.watched.key}: {describe(r, job)}", of(r.watched.key)))
        else:
            lines.append(printable(f"- {len(members)} jobs: {why}", of(*(m.watched.key for m, _ in members))))
            lines += textwrap.wrap(", ".join(r.watched.key for r, _ in members), WIDTH,
                                   initial_indent="    ", subsequent_indent="    ", break_on_hyphens=False)
        shown = 0
        for r, _ in members:
            tail = tails.get(id(r))
            if tail:  # "key (name): last N lines of worker-0:" and the lines, below every summary line
                tail_lines.append(printable(f"{r.watched.key} ({r.watched.name}): " + tail.strip(),
                                            of(r.watched.key)))
                shown += 1
        if len(members) > 1 and shown < len(members):
            lines.append(f"    (log tails of {len(members) - shown} more not shown: python -m modelarts_provider "
                         "logs --stack STACK KEY)")
    if tail_lines:
        lines += ["", *tail_lines]
    return "\n".join(lines)  # every line printable() above, with its own job's secrets


def _tail(client: Any, job: Any, lines: int, secrets: Secrets) -> str:
    from ..core.job_logs import failure_log_tail  # noqa: PLC0415 - only needed on failure

    return failure_log_tail(client, job, lines, known=secrets)

"""What a wait adds to the statuses of jobs that are scored or are sweep points (issue 23).

- over_bound / tolerated_note: failed points against their sweep's maxFailures (kept statuses count too).
- enrich: duration, retries and failure cause from the job views the wait ended with; the objective
  and the metric curves of each newly completed job that has them, from one read of its log (objectives.py,
  concurrently).
- report_tables: each sweep's compact table, best first, for the end of the `up`; a scored job whose objective
  or a metric turned non-finite reads `diverged (accuracy nan at line 3)` (results/divergence.py).
Jobs neither scored nor in a sweep keep the statuses they always had.
"""

from __future__ import annotations

from typing import Any

from ..client.models import as_list
from ..core.masking import NONE, Secrets
from ..results.show import printable
from ..results.table import Point, SweepObjective, SweepResults, collect, metric_text, number, table_lines
from .args import AwaitedStatus, JobsAwaitArgs
from .conditions import Verdict
from .objectives import ToRead, read_objectives
from .report import cause
from .searches import search_lines, read_search
from .watcher import Result

TABLE_ROWS = 20  # at the end of an `up`; `results` prints them all


def _failed(statuses: dict[str, AwaitedStatus]) -> list[str]:
    return [k for k, s in statuses.items() if not s.reached]


def over_bound(args: JobsAwaitArgs, statuses: dict[str, AwaitedStatus], results: list[Result]) -> str | None:
    """None when every failure is settled: accepted by its job (`accept_failed`) or a sweep point within its
    sweep's maxFailures (then they are marked tolerated); else what fails the `up` ('' when no sweep tolerates
    failures: the report alone says why). Accepted failures are marked tolerated either way: settled, whatever
    else failed (a job that is gone never is: there is no run to keep on record)."""
    gone = {r.watched.key for r in results if r.outcome.verdict is Verdict.GONE}
    per_group: dict[str, int] = {}
    alone = False
    for key in _failed(statuses):
        spec = args.jobs[key]
        if key in gone:
            alone = True
        elif spec.accept_failed:
            statuses[key].tolerated = True
        elif spec.group is None:
            alone = True
        else:
            per_group[spec.group] = per_group.get(spec.group, 0) + 1
    over = sorted(g for g, n in per_group.items() if n > args.max_failures.get(g, 0))
    if alone or over:
        # A sweep that tolerates none fails as it always did: the report alone says why.
        return "; ".join(f"sweep {g}: {per_group[g]} failed points, more than its maxFailures "
                         f"({args.max_failures[g]})" for g in over if args.max_failures.get(g, 0))
    for key in _failed(statuses):
        statuses[key].tolerated = True
    return None


def tolerated_note(args: JobsAwaitArgs, statuses: dict[str, AwaitedStatus]) -> str:
    """The sentence under a report's first line: which failures are settled, and by what."""
    per_group: dict[str, int] = {}
    accepted: list[str] = []
    for key in _failed(statuses):
        if not statuses[key].tolerated:
            continue
        if args.jobs[key].accept_failed:
            accepted.append(key)
            continue
        group = args.jobs[key].group or ""
        per_group[group] = per_group.get(group, 0) + 1
    parts = [f"tolerated: sweep {g} has {n} failed point{'s' if n != 1 else ''}, within its maxFailures "
             f"({args.max_failures.get(g, 0)}); the best point is chosen among the rest"
             for g, n in sorted(per_group.items())]
    if accepted:
        named = ", ".join(accepted[:5]) + (f" and {len(accepted) - 5} more" if len(accepted) > 5 else "")
        parts.append(f"accepted (acceptFailed): {named}, recorded as failed and not waited for again")
    return "; ".join(parts)


def _number(value: Any) -> float | None:
    try:
        return float(str(value))
    except (TypeError, ValueError):
        return None


def enrich(client: Any, args: JobsAwaitArgs, statuses: dict[str, AwaitedStatus], results: list[Result]) -> None:
    to_read = []
    for r in results:
        key = r.watched.key
        spec, status = args.jobs.get(key), statuses.get(key)
        if spec is not None and status is not None and spec.search is not None:
            # one trials request per search job (searches.py), whatever the number of trials
            status.search = read_search(client, r.watched.job_id, spec.search.name, r.job)
        if status is not None and r.outcome.verdict is not Verdict.REACHED:
            # Every failed run says why, scored or not (accepted.py, history), masked as printed: it is recorded.
            status.failure = printable(cause(r, r.job), args.secrets_of(key))
        if spec is None or status is None or r.job is None or \
                (spec.objective is None and spec.group is None and not spec.metrics):
            continue
        duration_ms = _number(r.job.status.duration)
        status.duration_s = duration_ms / 1000 if duration_ms is not None else None
        records = len(as_list(r.job.status.running_records))
        status.retries = records - 1 if records > 1 else None
        if r.outcome.verdict is not Verdict.REACHED:
            continue
        if (spec.objective is not None or spec.metrics) and r.job.phase == "Completed":
            to_read.append(ToRead(key, r.job, spec.objective, tuple(spec.series())))
    for key, reading in read_objectives(client, to_read).items():
        statuses[key].objective = reading.value
        statuses[key].objective_note = reading.note
        statuses[key].diverged = reading.diverged
        statuses[key].metrics = reading.curves or None


def points(args: JobsAwaitArgs, statuses: dict[str, AwaitedStatus], keys: list[str]) -> list[Point]:
    out = []
    for key in keys:
        s = statuses.get(key)
        if s is None:
            continue
        out.append(Point(key=key, job_id=s.job_id, parameters=dict(args.jobs[key].parameters), phase=s.phase,
                         objective=s.objective, note=s.failure or s.objective_note, duration_seconds=s.duration_s,
                         retries=s.retries, metrics=dict(s.metrics or {})))
    return out


def sweep_results(args: JobsAwaitArgs, statuses: dict[str, AwaitedStatus], keys: list[str]) -> SweepResults:
    """A group's points as a sweep's results (objective and declared metrics from its first job)."""
    first = args.jobs[keys[0]]
    objective = SweepObjective(name=first.objective.name, goal=first.objective.goal) if first.objective else None
    metrics = [SweepObjective(name=m.name, goal=m.goal) for m in first.metrics]
    results = collect(objective, points(args, statuses, keys))
    results.metrics = metrics
    return results


def report_tables(args: JobsAwaitArgs, statuses: dict[str, AwaitedStatus]) -> list[str]:
    """Each sweep's table (best first), and a line per scored job outside sweeps: each masked with the secrets
    of the jobs it shows (a sweep's: its points')."""
    groups: dict[str, list[str]] = {}
    lines: list[tuple[str, Secrets]] = []
    for key, spec in args.jobs.items():
        if spec.group is not None:
            groups.setdefault(spec.group, []).append(key)
        elif (spec.objective is not None or spec.metrics) and key in statuses:
            s = statuses[key]
            parts = []
            point = Point(key=key, phase=s.phase, metrics=dict(s.metrics or {}))
            if point.diverged is not None:  # its value, if any, is the last finite one before the divergence
                parts.append(f"diverged ({point.diverged})")
            elif spec.objective is not None:
                value = number(s.objective) if s.objective is not None else f"none ({s.objective_note})"
                parts.append(f"{spec.objective.name} {value}")
            parts += [f"{m.name} {metric_text(point.metrics.get(m.name), point)}" for m in spec.metrics
                      if spec.objective is None or m.name != spec.objective.name]
            lines.append((f"{key}: {', '.join(parts)}", args.secrets_of(key)))
    for key, spec in args.jobs.items():
        if spec.search is not None and key in statuses:
            secrets = args.secrets_of(key)
            lines += [(line, secrets) for line in search_lines(key, spec.search, statuses[key].search,
                                                               secrets=secrets)]
    for group, keys in groups.items():
        secrets = NONE
        for key in keys:
            secrets |= args.secrets_of(key)
        lines += [(line, secrets) for line in table_lines(group, sweep_results(args, statuses, keys), limit=TABLE_ROWS)]
    return [printable(line, secrets) for line, secrets in lines]

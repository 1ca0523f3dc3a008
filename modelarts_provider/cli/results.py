"""``python -m modelarts_provider results`` and ``status``: a stack's sweep results and its jobs' live phases.

    python -m modelarts_provider results --stack STACK SWEEP [--chart out.png] [--cwd DIR]
    python -m modelarts_provider results --stack STACK KEY --history [--cwd DIR]
    python -m modelarts_provider status --stack STACK [--cwd DIR]

`results` reads the stack's `sweeps` export (`pulumi stack output`, no ModelArts call) and prints the
sweep's table, best first (`--history`: every run of a job key, newest last, from the `runs` export);
`--chart` writes a PNG of the objective against each swept parameter and
prints its path. `status` lists the jobs of the stack's state with their live phase from ONE list-API
call (a page holds 50 jobs; a stack whose jobs are not all on the newest page costs a page more each),
so nobody needs `pulumi refresh` to see where a sweep stands. Tables on stdout, errors on stderr, one
line each; everything printed passes through results.show.printable.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections import Counter
from pathlib import Path
from typing import Any, Callable, TextIO

from pydantic import ValidationError

from ..awaiting.args import AwaitedStatus, JobsAwaitArgs
from ..awaiting.results import points
from ..core.extras import MissingExtra, require
from .logs import PLUGIN_JOB_TYPE, LogsError, PulumiCli, StackExport, job_in_state, stack_settings
from ..results.show import printable
from ..results.table import SweepObjective, SweepResults, collect, duration_text, table_lines

PAGE = 50


def _print(out: TextIO, text: str) -> None:
    out.write(printable(text) + "\n")
    out.flush()


# --- results -------------------------------------------------------------------------------------------

def _snake(value: Any) -> Any:
    """A plugin JobsAwait's recorded values (camelCase, the schema's) in the providers' naming; map keys (job
    keys, parameter names) as they are."""
    from ..plugin.names import Names
    from ..plugin.provider import VERSION
    from ..plugin.schema import snake_schema

    return Names(snake_schema(VERSION)).to_snake("JobsAwait", value)


def state_sweep(exported: StackExport, sweep: str) -> SweepResults | None:
    """The sweep's results from the state's JobsAwait (its jobs of group `sweep` and what it recorded of them),
    for a stack whose program exports no `sweeps` (a YAML or TypeScript program through the provider plugin)."""
    resources = exported.deployment.resources or []
    paths = {}
    for r in resources:
        job = job_in_state(r)
        if job is not None:
            path = r.outputs.get("outputPath" if r.type == PLUGIN_JOB_TYPE else "output_path")
            paths[job[0]] = path if isinstance(path, str) else None
    for res in resources:
        if not res.type.endswith(":JobsAwait"):
            continue
        outputs = _snake(res.outputs) if res.type.startswith("modelarts:") else res.outputs
        try:
            args = JobsAwaitArgs.model_validate({k: outputs[k] for k in ("jobs", "max_failures") if k in outputs})
            statuses = {k: AwaitedStatus.model_validate(v) for k, v in (outputs.get("statuses") or {}).items()}
        except (ValidationError, AttributeError):
            continue  # a secret, or another program's resource
        keys = [k for k, j in args.jobs.items() if j.group == sweep]
        if not keys:
            continue
        spec = args.jobs[keys[0]].objective
        found = points(args, statuses, keys)
        for point in found:
            point.output_path = paths.get(point.job_id)
        return collect(SweepObjective(name=spec.name, goal=spec.goal) if spec else None, found)
    return None


def sweep_results(pulumi: PulumiCli, sweep: str) -> SweepResults:
    outputs = pulumi.json("stack", "output", "--json")
    sweeps = outputs.get("sweeps") if isinstance(outputs, dict) else None
    searches = outputs.get("searches") if isinstance(outputs, dict) else None
    if isinstance(searches, dict) and sweep in searches and not (isinstance(sweeps, dict) and sweep in sweeps):
        # the service's own search: its trials shown as a sweep's points (awaiting/searches.py)
        from ..awaiting.searches import as_sweep_results  # noqa: PLC0415 - only for a search

        if not isinstance(searches[sweep], dict):
            raise LogsError(f"the export searches.{sweep} of stack {pulumi.stack} is not a search's trials")
        return as_sweep_results(searches[sweep])
    if not isinstance(sweeps, dict):
        try:
            from_state = state_sweep(StackExport.model_validate(pulumi.json("stack", "export")), sweep)
        except ValidationError:
            from_state = None
        if from_state is not None:
            return from_state
    if not isinstance(sweeps, dict) or sweep not in sweeps:
        known = sorted(sweeps) if isinstance(sweeps, dict) else []
        known += sorted(searches) if isinstance(searches, dict) else []
        raise LogsError(f"no sweep or search {sweep!r} in the outputs of stack {pulumi.stack} (its sweeps and "
                        f"searches: {', '.join(known) or 'none exported'}; an `up` exports them)")
    try:
        return SweepResults.model_validate(sweeps[sweep])
    except ValidationError:
        raise LogsError(f"the export sweeps.{sweep} of stack {pulumi.stack} is not a sweep's results "
                        "(a secret, or written by another program)") from None


def job_runs(pulumi: PulumiCli, key: str) -> list[dict[str, Any]]:
    outputs = pulumi.json("stack", "output", "--json")
    runs = outputs.get("runs") if isinstance(outputs, dict) else None
    if not isinstance(runs, dict) or not isinstance(runs.get(key), list):
        known = ", ".join(sorted(runs)) if isinstance(runs, dict) and runs else "none exported"
        raise LogsError(f"no runs of {key!r} in the outputs of stack {pulumi.stack} (keys with runs: {known}; "
                        "an `up` that waits for the job exports them)")
    return [r for r in runs[key] if isinstance(r, dict)]


def run_results(args: argparse.Namespace, out: TextIO = sys.stdout) -> int:
    if args.chart:
        require("charts", "results --chart", "matplotlib")  # before any work: one line naming the extra
    pulumi = PulumiCli(Path(args.cwd).resolve(), args.stack)
    if getattr(args, "history", False):
        from ..results.history import history_lines  # noqa: PLC0415

        for line in history_lines(args.sweep, job_runs(pulumi, args.sweep)):
            _print(out, line)
        return 0
    results = sweep_results(pulumi, args.sweep)
    for line in table_lines(args.sweep, results):
        _print(out, line)
    if results.best is not None:
        _print(out, f"best output: {results.best.output_path or '-'}")
    if args.chart:
        from ..results.chart import write_chart  # noqa: PLC0415 - matplotlib only when a chart is asked for

        path = write_chart(args.sweep, results, Path(args.chart).resolve())
        _print(out, f"chart: {path}")
    return 0


# --- status --------------------------------------------------------------------------------------------

def stack_jobs(pulumi: PulumiCli) -> list[tuple[str, str, str | None, str | None]]:
    """(key, job id, job name, workspace id) of every training job in the stack's state."""
    try:
        exported = StackExport.model_validate(pulumi.json("stack", "export"))
    except ValidationError:
        exported = StackExport()
    found = []
    for res in exported.deployment.resources or []:
        job = job_in_state(res)
        if job is not None:
            found.append((res.urn.rsplit("::", 1)[-1], *job))
    return found


def live_views(client: Any, jobs: list[tuple[str, str, str | None, str | None]]) -> dict[str, Any]:
    """{job id: live job} from the list API: one page per workspace when the jobs are among its newest 50."""
    wanted: dict[str | None, set[str]] = {}
    for _, job_id, _, workspace in jobs:
        wanted.setdefault(workspace, set()).add(job_id)
    views: dict[str, Any] = {}
    for workspace, ids in wanted.items():
        budget = (math.ceil(len(ids) / PAGE) + 1) * PAGE  # a page more than they fill, as the wait does
        for seen, job in enumerate(client.iter_jobs(workspace_id=workspace), start=1):
            if job.id in ids:
                views[job.id] = job
                ids.discard(job.id)
            if not ids or seen >= budget:
                break
    return views


def status_lines(jobs: list[tuple[str, str, str | None, str | None]], views: dict[str, Any]) -> list[str]:
    rows = [["key", "name", "phase", "duration"]]
    phases: Counter[str] = Counter()
    for key, job_id, name, _ in sorted(jobs):
        view = views.get(job_id)
        phase = (view.phase or "unknown") if view is not None else "not listed"
        phases[phase] += 1
        duration = None
        if view is not None:
            try:
                duration = float(str(view.status.duration)) / 1000
            except (TypeError, ValueError):
                duration = None
        rows.append([key, name or "-", phase, duration_text(duration)])
    widths = [max(len(r[c]) for r in rows) for c in range(4)]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]
    summary = ", ".join(f"{n} {p}" for p, n in sorted(phases.items()))
    lines.append(f"{len(jobs)} job{'s' if len(jobs) != 1 else ''}: {summary or 'none'}")
    if phases.get("not listed"):
        lines.append("not listed: deleted, or older than the newest jobs of the project (`logs` GETs one job)")
    return lines


def run_status(args: argparse.Namespace, out: TextIO = sys.stdout) -> int:
    from ..client import ModelArtsClient, ModelArtsError  # noqa: PLC0415
    from ..core.job_logs import client_secrets, one_line_error  # noqa: PLC0415

    pulumi = PulumiCli(Path(args.cwd).resolve(), args.stack)
    jobs = stack_jobs(pulumi)
    views: dict[str, Any] = {}
    if jobs:
        with ModelArtsClient(stack_settings(pulumi, dict(os.environ))) as client:
            try:
                views = live_views(client, jobs)
            except ModelArtsError as err:
                raise LogsError(one_line_error(err, client_secrets(client))) from None
    for line in status_lines(jobs, views):
        _print(out, line)
    return 0


# --- command line --------------------------------------------------------------------------------------

def _note(message: str) -> None:
    print(printable(message), file=sys.stderr, flush=True)


def _guarded(name: str, fn: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    def handler(args: argparse.Namespace) -> int:
        try:
            return fn(args)
        except (LogsError, MissingExtra) as err:
            _note(f"{name}: {err}")
            return 1
        except KeyboardInterrupt:
            return 130
        except BrokenPipeError:
            sys.stderr.close()
            return 0
    return handler


def register(subparsers: Any) -> None:
    r = subparsers.add_parser("results", help="print a sweep's results table, best first (and a chart)",
                              description="Print a sweep's points, best first, from a stack's outputs.")
    r.add_argument("sweep", metavar="SWEEP", help="the sweep's key in the stack config (with --history: a job key)")
    r.add_argument("--history", action="store_true",
                   help="print every run of the job key, newest last (kept after replacements)")
    r.add_argument("--stack", required=True, help="Pulumi stack (e.g. local)")
    r.add_argument("--chart", metavar="PNG", help="write a chart of the objective against each swept parameter")
    r.add_argument("--cwd", default=".", help="the Pulumi project directory (default: .)")
    r.set_defaults(handler=_guarded("results", run_results))
    s = subparsers.add_parser("status", help="print the live phase of every job of a stack (one list call)",
                              description="Print the live phase of every training job of a stack.")
    s.add_argument("--stack", required=True, help="Pulumi stack (e.g. local)")
    s.add_argument("--cwd", default=".", help="the Pulumi project directory (default: .)")
    s.set_defaults(handler=_guarded("status", run_status))

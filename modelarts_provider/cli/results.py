"""``python -m modelarts_provider results``: a stack's sweep (or search) results and a job key's run history.

    python -m modelarts_provider results --stack STACK SWEEP [--chart out.png] [--cwd DIR]
    python -m modelarts_provider results --stack STACK KEY [--chart out.png] [--cwd DIR]
    python -m modelarts_provider results --stack STACK KEY --history [--chart out.png] [--cwd DIR]

`results` reads the stack's `sweeps` export (`pulumi stack output`, no ModelArts call) and prints the
sweep's table, best first (`--history`: every run of a job key, newest last, from the `runs` export);
`--chart` writes a PNG of the objective against each swept parameter and the curves, and prints its path.
KEY, a job with an objective or metrics outside any sweep, reads as a one-run table and its curves, from
the JobsAwait in the state (`stack export`); `--history --chart` overlays the curves of every recorded run of
KEY (recorded in the state's run history). An option that would do nothing is refused in one line (a chart
of a job with no curve). (`status`: cli/status.py.) Tables on stdout, errors on stderr, one line each;
everything printed passes through results.show.printable.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from pydantic import ValidationError

from ..core.extras import require
from ..core.secret_leaves import SIG_KEY
from .output import guarded, print_line
from .stack_reader import PLUGIN_JOB_TYPE, LogsError, PulumiCli, StackExport, job_in_state
from ..results.table import Point, SweepObjective, SweepResults, collect, table_lines

# The JobsAwait's recorded shapes (awaiting/args.py: a third of the command's start-up) are imported only where a
# state is read for them (a program that exports no `sweeps`, a job's own run, its curves), not for an export.

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
    from ..awaiting.args import AwaitedStatus, JobsAwaitArgs  # noqa: PLC0415
    from ..awaiting.results import sweep_results as sweep_results_of  # noqa: PLC0415

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
        found = sweep_results_of(args, statuses, keys)
        for point in found.points:
            point.output_path = paths.get(point.job_id)
        if found.best is not None:
            found.best.output_path = paths.get(found.best.job_id)
        return found
    return None


def _hidden(value: Any) -> Any:
    """Recorded values with each secret (still encrypted in an export) as `[secret]`, as `stack output` shows it."""
    if isinstance(value, dict):
        return "[secret]" if SIG_KEY in value else {k: _hidden(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_hidden(v) for v in value]
    return value


def state_search(exported: StackExport, key: str) -> SweepResults | None:
    """A search's trials from the state's JobsAwait (its entry `key` with a `search`), for a stack whose program
    exports no `searches` (a YAML or TypeScript program through the provider plugin)."""
    from ..awaiting.args import AwaitedStatus, JobsAwaitArgs  # noqa: PLC0415
    from ..awaiting.searches import results_of  # noqa: PLC0415 - only for a search

    for res in exported.deployment.resources or []:
        if not res.type.endswith(":JobsAwait"):
            continue
        hidden = _hidden(res.outputs)  # before the renaming, which knows no secret's shape
        outputs = _snake(hidden) if res.type.startswith("modelarts:") else hidden
        try:
            spec = JobsAwaitArgs.model_validate({"jobs": outputs.get("jobs") or {}}).jobs.get(key)
            status = AwaitedStatus.model_validate((outputs.get("statuses") or {}).get(key) or {})
        except (ValidationError, AttributeError):
            continue  # a secret, or another program's resource
        if spec is not None and spec.search is not None and status.search is not None:
            return results_of(SweepObjective(name=spec.search.name, goal=spec.search.goal), status.search)
    return None


def _from_state(pulumi: PulumiCli, sweep: str,
                readers: tuple[Callable[[StackExport, str], SweepResults | None], ...]) -> SweepResults | None:
    """The first of `readers` that finds `sweep` in the stack's state (an unreadable state finds nothing)."""
    for read in readers:
        try:
            found = read(StackExport.model_validate(pulumi.json("stack", "export")), sweep)
        except ValidationError:
            found = None
        if found is not None:
            return found
    return None


def sweep_results(pulumi: PulumiCli, sweep: str) -> SweepResults:
    return sweep_or_search(pulumi, sweep)[0]


def _state_if_newer(pulumi: PulumiCli) -> StackExport | None:
    """The stack's state when its exports are older (an `up` that failed after recording its waits:
    results/failed_up.py), else None (the exports are what the program says)."""
    from ..results.failed_up import exports_behind  # noqa: PLC0415

    exported = _state(pulumi)
    return exported if exported is not None and exports_behind(exported.deployment.resources or []) else None


def sweep_or_search(pulumi: PulumiCli, sweep: str) -> tuple[SweepResults, bool]:
    """The sweep's (or search's) results, and whether they are a search's trials (charts name them by id)."""
    newer = _state_if_newer(pulumi)
    if newer is not None:  # after a failed `up`: the runs it recorded, not the last successful up's exports
        for read, search in ((state_sweep, False), (state_search, True)):
            found = read(newer, sweep)
            if found is not None:
                return found, search
    outputs = pulumi.json("stack", "output", "--json")
    sweeps = outputs.get("sweeps") if isinstance(outputs, dict) else None
    searches = outputs.get("searches") if isinstance(outputs, dict) else None
    if isinstance(searches, dict) and sweep in searches and not (isinstance(sweeps, dict) and sweep in sweeps):
        # the service's own search: its trials shown as a sweep's points (awaiting/searches.py)
        from ..awaiting.searches import as_sweep_results  # noqa: PLC0415 - only for a search

        if not isinstance(searches[sweep], dict):
            raise LogsError(f"the export searches.{sweep} of stack {pulumi.stack} is not a search's trials")
        return as_sweep_results(searches[sweep]), True
    if not isinstance(sweeps, dict):
        # no sweeps exported (a YAML program): the state's sweep, else (no searches exported either) its search
        from_state = _from_state(pulumi, sweep, (state_sweep,))
        if from_state is not None:
            return from_state, False
        from_state = None if isinstance(searches, dict) else _from_state(pulumi, sweep, (state_search,))
        if from_state is not None:
            return from_state, True
    if not isinstance(sweeps, dict) or sweep not in sweeps:
        known = sorted(sweeps) if isinstance(sweeps, dict) else []
        known += sorted(searches) if isinstance(searches, dict) else []
        raise LogsError(f"no sweep or search {sweep!r} in the outputs of stack {pulumi.stack} (its sweeps and "
                        f"searches: {', '.join(known) or 'none exported'}; an `up` exports them)")
    try:
        return SweepResults.model_validate(sweeps[sweep]), False
    except ValidationError:
        raise LogsError(f"the export sweeps.{sweep} of stack {pulumi.stack} is not a sweep's results "
                        "(a secret, or written by another program)") from None


def _awaits(exported: StackExport) -> list[dict[str, Any]]:
    """Each JobsAwait's outputs in the providers' naming, each secret as `[secret]`."""
    found = []
    for res in exported.deployment.resources or []:
        if res.type.endswith(":JobsAwait") and isinstance(res.outputs, dict):
            hidden = _hidden(res.outputs)  # before the renaming, which knows no secret's shape
            found.append(_snake(hidden) if res.type.startswith("modelarts:") else hidden)
    return found


def _output_paths(exported: StackExport) -> dict[str, str | None]:
    """Each TrainingJob's output path by job id."""
    paths: dict[str, str | None] = {}
    for r in exported.deployment.resources or []:
        job = job_in_state(r)
        if job is not None:
            path = r.outputs.get("outputPath" if r.type == PLUGIN_JOB_TYPE else "output_path")
            paths[job[0]] = path if isinstance(path, str) else None
    return paths


def state_job(exported: StackExport, key: str) -> SweepResults | None:
    """A scored job's one-run results (its objective, its curves) from the state's JobsAwait: what `results KEY`
    shows and charts of a job outside sweeps (no export holds its curves)."""
    from ..awaiting.args import AwaitedStatus, JobsAwaitArgs  # noqa: PLC0415

    for outputs in _awaits(exported):
        try:
            spec = JobsAwaitArgs.model_validate({"jobs": outputs.get("jobs") or {}}).jobs.get(key)
            raw = (outputs.get("statuses") or {}).get(key)
            status = AwaitedStatus.model_validate(raw) if isinstance(raw, dict) else None
        except (ValidationError, AttributeError):
            continue  # a secret, or another program's resource
        if spec is None or status is None or (spec.objective is None and not spec.metrics):
            continue
        objective = SweepObjective(name=spec.objective.name, goal=spec.objective.goal) if spec.objective else None
        point = Point(key=key, job_id=status.job_id, phase=status.phase, objective=status.objective,
                      note=status.failure or status.objective_note, duration_seconds=status.duration_s,
                      output_path=_output_paths(exported).get(status.job_id), metrics=dict(status.metrics or {}))
        results = collect(objective, [point])
        results.metrics = [SweepObjective(name=m.name, goal=m.goal) for m in spec.metrics]
        return results
    return None


def state_run_curves(exported: StackExport, key: str) -> SweepResults | None:
    """Every recorded run of `key` as a point named `run N (job name)`, with the curves its record holds (runs
    recorded before records kept curves have none): what `results KEY --history --chart` overlays."""
    from ..awaiting.args import JobsAwaitArgs  # noqa: PLC0415
    from ..results.curves import Curve  # noqa: PLC0415

    for outputs in _awaits(exported):
        records = (outputs.get("runs") or {}).get(key) if isinstance(outputs.get("runs"), dict) else None
        if not isinstance(records, list):
            continue
        spec = (outputs.get("jobs") or {}).get(key) if isinstance(outputs.get("jobs"), dict) else None
        points = []
        for i, r in enumerate((r for r in records if isinstance(r, dict)), start=1):
            try:
                metrics = {str(k): Curve.model_validate(v) for k, v in (r.get("metrics") or {}).items()}
            except (ValidationError, AttributeError):
                metrics = {}
            points.append(Point(key=f"run {i} ({r.get('job_name') or r.get('job_id') or '?'})",
                                job_id=r.get("job_id"), phase=r.get("phase"), metrics=metrics,
                                output_path=r.get("output_path")))
        declared = []
        if isinstance(spec, dict):
            try:
                job = JobsAwaitArgs.model_validate({"jobs": {key: spec}}).jobs[key]
                declared = [SweepObjective(name=m.name, goal=m.goal) for m in job.series()]
            except ValidationError:
                declared = []
        if not declared:  # the job's declaration is gone (removed from the config): the curves' own names
            declared = [SweepObjective(name=n) for n in dict.fromkeys(n for p in points for n in p.metrics)]
        # No objective: runs of one job are overlaid in order, not ranked (their parameters may differ).
        return SweepResults(objective=None, metrics=declared, points=points)
    return None


def _state(pulumi: PulumiCli) -> StackExport | None:
    try:
        return StackExport.model_validate(pulumi.json("stack", "export"))
    except (LogsError, ValidationError):
        return None


def state_runs(exported: StackExport) -> dict[str, Any]:
    """The run history of the state's JobsAwait resources, under the export's names: what a program that
    exports no `runs` (a YAML or TypeScript program through the provider plugin) has recorded."""
    from ..results.history import build_runs  # noqa: PLC0415

    found: dict[str, Any] = {}
    for res in exported.deployment.resources or []:
        if res.type.endswith(":JobsAwait") and isinstance(res.outputs.get("runs"), dict):
            runs = (_snake({"runs": res.outputs["runs"]})["runs"] if res.type.startswith("modelarts:")
                    else res.outputs["runs"])
            found.update(build_runs(runs))
    return found


def job_runs(pulumi: PulumiCli, key: str) -> list[dict[str, Any]]:
    newer = _state_if_newer(pulumi)
    recorded = state_runs(newer) if newer is not None else {}
    if isinstance(recorded.get(key), list):  # after a failed `up`: the runs it recorded (results/failed_up.py)
        return [r for r in recorded[key] if isinstance(r, dict)]
    outputs = pulumi.json("stack", "output", "--json")
    runs = outputs.get("runs") if isinstance(outputs, dict) else None
    if not isinstance(runs, dict):
        try:
            runs = state_runs(StackExport.model_validate(pulumi.json("stack", "export"))) or None
        except (LogsError, ValidationError):
            runs = None
    if not isinstance(runs, dict) or not isinstance(runs.get(key), list):
        known = ", ".join(sorted(runs)) if isinstance(runs, dict) and runs else "none exported"
        raise LogsError(f"no runs of {key!r} in the outputs of stack {pulumi.stack} (keys with runs: {known}; "
                        "an `up` that waits for the job exports them)")
    return [r for r in runs[key] if isinstance(r, dict)]


def _print_cost(pulumi: PulumiCli, name: str, out: TextIO, history: bool = False) -> None:
    """What the sweep's (or job's) runs cost, from the `cost` export (cost/spent.py), when the stack has one."""
    from ..cost.show import cost_lines, history_cost_lines  # noqa: PLC0415

    outputs = pulumi.json("stack", "output", "--json")
    cost = outputs.get("cost") if isinstance(outputs, dict) else None
    for line in (history_cost_lines(cost, name) if history else cost_lines(cost, name)):
        print_line(out, line)


def run_results(args: argparse.Namespace, out: TextIO = sys.stdout) -> int:
    if args.chart:
        require("charts", "results --chart", "matplotlib")  # before any work: one line naming the extra
    pulumi = PulumiCli(Path(args.cwd).resolve(), args.stack)
    if getattr(args, "history", False):
        from ..results.history import history_lines  # noqa: PLC0415

        for line in history_lines(args.sweep, job_runs(pulumi, args.sweep)):
            print_line(out, line)
        _print_cost(pulumi, args.sweep, out, history=True)
        if args.chart:
            exported = _state(pulumi)
            runs = state_run_curves(exported, args.sweep) if exported is not None else None
            if runs is None or not any(c.points for p in runs.points for c in p.metrics.values()):
                raise LogsError(f"no run of {args.sweep!r} recorded a curve to draw (its objective's or metrics': "
                                "runs recorded by this version on, of a job that declares them): --chart does nothing")
            _write(args.sweep, runs, args.chart, out, by_id=False)
        return 0
    try:
        results, by_id = sweep_or_search(pulumi, args.sweep)
        single = False
    except LogsError as err:
        exported = _state(pulumi)
        found = state_job(exported, args.sweep) if exported is not None else None
        if found is None:
            raise LogsError(f"{err} (nor a job key with an objective or metrics)") from None
        results, by_id, single = found, False, True
    for line in table_lines(args.sweep, results, unit="run" if single else "point"):
        print_line(out, line)
    if results.best is not None:
        print_line(out, f"best output: {results.best.output_path or '-'}")
    _print_cost(pulumi, args.sweep, out)
    if args.chart:
        if single and not any(c.points for p in results.points for c in p.metrics.values()):
            raise LogsError(f"{args.sweep} has no curve to draw (no match of its objective's or metrics' regexes "
                            "was recorded): --chart does nothing")
        _write(args.sweep, results, args.chart, out, by_id=by_id)
    return 0


def _write(name: str, results: SweepResults, chart: str, out: TextIO, *, by_id: bool) -> None:
    from ..results.chart import write_chart  # noqa: PLC0415 - matplotlib only when a chart is asked for

    path = write_chart(name, results, Path(chart).resolve(), by_id=by_id)
    print_line(out, f"chart: {path}")


# --- command line --------------------------------------------------------------------------------------

def register(subparsers: Any) -> None:
    r = subparsers.add_parser("results", help="print a sweep's results table, best first (and a chart)",
                              description="Print a sweep's (search's) points, best first, or a scored job's run, "
                                          "from a stack's outputs and state.")
    r.add_argument("sweep", metavar="KEY", help="a sweep's or search's key in the stack config, or a job key with an "
                                                "objective or metrics (with --history: any waited-for job key)")
    r.add_argument("--history", action="store_true",
                   help="print every run of the job key, newest last (kept after replacements)")
    r.add_argument("--stack", required=True, help="Pulumi stack (e.g. local)")
    r.add_argument("--chart", metavar="PNG", help="write a chart: the objective against each swept parameter and the "
                                                  "curves; a job's curves; with --history, its runs' curves overlaid")
    r.add_argument("--cwd", default=".", help="the Pulumi project directory (default: .)")
    r.set_defaults(handler=guarded("results", run_results))

"""The stack's results exports (issue 23): per sweep its points and best point; per scored job its value.

    sweeps:     {<sweep>: {objective: {name, goal} | null, failures: n,
                           metrics: [{name, goal}],               # declared metrics
                           points: [{key, jobId, parameters, phase, objective, note, durationSeconds,
                                     outputPath, retries,
                                     metrics: {<name>: {points: [[step, value]], last, best, matches, note}}}],
                                                                       # best first
                           best: {key, jobId, parameters, objective, outputPath, ...} | null}}
    objectives: {<job key>: {name, goal, value, note, diverged}}        # jobs (not sweeps) with an objective;
                                                                       # diverged: value null, where it turned nan
    runs:       {<job key>: [{jobId, name, parameters, phase, objective, outputPath, createTime, startTime,
                              durationSeconds, note}]}                  # every run, newest last (run history)

What the JobsAwait recorded (its `statuses`) joined with each point's grid values (the plan) and its
job's id and output path (the TrainingJob): a later stack reads the best point's outputPath through a
StackReference. build() is pure, so it is tested without Pulumi.
"""

from __future__ import annotations

from typing import Any

import pulumi

from ..awaiting.searches import SearchStatus
from ..awaiting.searches import export as search_export
from ..results.history import build_runs
from ..results.table import Point, SweepObjective, collect
from .config import StackConfig
from .program import JobPlan


def build(cfg: StackConfig, plans: list[JobPlan], statuses: dict[str, Any] | None, ids: dict[str, Any],
          paths: dict[str, Any]) -> dict[str, Any]:
    statuses = statuses or {}
    points: dict[str, list[Point]] = {name: [] for name in cfg.sweeps}
    for p in plans:
        if p.sweep is None:
            continue
        s = statuses.get(p.key) or {}
        points[p.sweep].append(Point(
            key=p.key, job_id=ids.get(p.key), parameters=dict(p.point or {}), phase=s.get("phase"),
            objective=s.get("objective"), note=s.get("failure") or s.get("objective_note"),
            duration_seconds=s.get("duration_s"), output_path=paths.get(p.key), retries=s.get("retries"),
            metrics=s.get("metrics") or {}))
    out = {}
    for name, sweep in cfg.sweeps.items():
        objective = SweepObjective(name=sweep.objective.name, goal=sweep.objective.goal) if sweep.objective else None
        results = collect(objective, points[name])
        results.metrics = [SweepObjective(name=m.name, goal=m.goal) for m in sweep.metrics]
        out[name] = results.export()
    return out


def build_objectives(plans: list[JobPlan], statuses: dict[str, Any] | None) -> dict[str, Any]:
    """Each lone scored job's value as the JobsAwait recorded it: a diverged run has none (awaiting/objectives.py)
    and says where it diverged, as a sweep's diverged point does."""
    statuses = statuses or {}
    return {p.key: {"name": p.objective.name, "goal": p.objective.goal,
                    "value": (statuses.get(p.key) or {}).get("objective"),
                    "note": (statuses.get(p.key) or {}).get("objective_note"),
                    "diverged": (statuses.get(p.key) or {}).get("diverged")}
            for p in plans if p.sweep is None and p.objective is not None}


def build_searches(plans: list[JobPlan], statuses: dict[str, Any] | None, ids: dict[str, Any]) -> dict[str, Any]:
    """`searches.<key>`: every trial of each search job and its best trial (awaiting/searches.py)."""
    statuses = statuses or {}
    out = {}
    for p in plans:
        if p.search is None:
            continue
        raw = (statuses.get(p.key) or {}).get("search")
        search = SearchStatus.model_validate(raw) if isinstance(raw, dict) else None
        objective = SweepObjective(name=p.search.objective.name, goal=p.search.objective.goal)
        out[p.key] = {**search_export(objective, search, ids.get(p.key)), "algorithm": p.search.algorithm.name}
    return out


# The run history's fields (awaiting/history.py) under the export's names.
def secret_trial_values(searches: dict[str, Any], secrets: frozenset[str]) -> dict[str, Any]:
    """The `searches` export with each trial parameter drawn from a secret of its space (one of this program's
    secret config values) a Pulumi secret of its own: names, the algorithm, rewards and plain values stay
    visible (`pulumi stack output` shows `[secret]` in its place)."""
    def trial(t: Any) -> Any:
        if not isinstance(t, dict) or not isinstance(t.get("parameters"), dict):
            return t
        return {**t, "parameters": {k: pulumi.Output.secret(v) if isinstance(v, str) and v in secrets else v
                                    for k, v in t["parameters"].items()}}

    return {key: {**s, "trials": [trial(t) for t in s.get("trials") or []], "best": trial(s.get("best"))}
            if isinstance(s, dict) else s for key, s in searches.items()}


def export_results(cfg: StackConfig, plans: list[JobPlan], jobs: dict[str, Any], waited: Any,
                   secret_values: frozenset[str] = frozenset()) -> None:
    """`pulumi.export` the sweeps (when there are any) and the scored jobs (when there are any). `secret_values`:
    the stack config's secret values (stack/secrets.py), which a search's trials may have drawn."""
    # A secret trial value makes the JobsAwait's whole `statuses` a secret Output here (the SDK keeps secrecy per
    # output, not per leaf): read plain, and the secret values made secrets again one by one (searches).
    statuses = pulumi.Output.unsecret(waited.statuses) if waited is not None else pulumi.Output.from_input({})
    if cfg.sweeps:
        keys = [p.key for p in plans if p.sweep is not None]
        ids = pulumi.Output.from_input({k: jobs[k].job_id for k in keys})
        paths = pulumi.Output.from_input({k: jobs[k].output_path for k in keys})
        pulumi.export("sweeps", pulumi.Output.all(statuses, ids, paths).apply(
            lambda a: build(cfg, plans, a[0], a[1], a[2])))
    searched = [p.key for p in plans if p.search is not None]
    if searched:
        ids = pulumi.Output.from_input({k: jobs[k].job_id for k in searched})
        pulumi.export("searches", pulumi.Output.all(statuses, ids).apply(
            lambda a: secret_trial_values(build_searches(plans, a[0], a[1]), secret_values)))
    if any(p.sweep is None and p.objective is not None for p in plans):
        pulumi.export("objectives", statuses.apply(lambda s: build_objectives(plans, s)))
    if waited is not None:
        pulumi.export("runs", waited.runs.apply(build_runs))

"""The trials of a job that runs the service's own hyperparameter search, read after its wait.

One trials request per search job per wait (the whole table in one page, SDK ``show_auto_search_trials``),
whatever the number of trials; plus, only when trials failed, the log tail of each (at most MAX_TAILS):
its own log (task ``trial-<id>``, the local ModelArts' per-trial log), else the job's log lines naming it. Jobs not waited for this time keep what was recorded, so an unchanged
stack reads nothing again. A search whose trials cannot be read keeps a note instead of failing the `up`.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ..client.models import TrainingJob, output_urls, task_ids
from ..client.search_models import Trial
from ..core.job_logs import client_secrets, one_line_error
from ..core.masking import MASK, NONE, Secrets
from ..results.table import Point, SweepObjective, SweepResults, collect, table_lines

TAIL_LINES = 3  # of a failed trial's log (its own, task trial-<id>, else its lines in the job's log)
MAX_TAILS = 4   # failed trials whose log is fetched, one request each (as for the failing tasks of a job)


class TrialStatus(BaseModel):
    model_config = ConfigDict(extra="forbid")

    trial_id: str = Field(description="The service's trial id.")
    phase: str = Field(description="Pending, Running, Completed or Failed.")
    parameters: dict[str, str] = Field(default_factory=dict, description="The trial's parameter values.")
    reward: float | None = Field(None, description=(
        "The objective value the trial scored (last regex match in its log)."))
    early_stopped: bool = Field(False, description="Whether the trial was stopped early.")
    note: str | None = Field(None, description="A failed trial's log tail.")
    duration_s: float | None = None  # how long it ran (the service's time_total_s)
    output_path: str | None = None  # where its outputs are: trial_output_path


class SearchStatus(BaseModel):
    model_config = ConfigDict(extra="forbid")

    trials: list[TrialStatus] = Field(default_factory=list, description="Every trial the service lists.")
    note: str | None = Field(None, description="Why there are no trials.")


def _tail(text: str, trial_id: str) -> str | None:
    lines = [line.strip() for line in text.splitlines() if trial_id in line and line.strip()]
    return " | ".join(lines[-TAIL_LINES:]) if lines else None


def _trial_tail(client: Any, job_id: str, trial_id: str) -> str | None:
    """The last lines of the trial's own log (task ``trial-<id>``), or None when it has none."""
    try:
        text = client.get_task_log_preview(job_id, f"trial-{trial_id}").text
    except Exception:  # noqa: BLE001 - no log of its own: the caller looks in the job's log
        return None
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    return " | ".join(lines[-TAIL_LINES:]) if lines else None


def _log_text(client: Any, job: TrainingJob | None, job_id: str) -> tuple[str, str | None]:
    """(the job's first task's log, or '' with a note why not)."""
    try:
        task = task_ids(job)[0] if job is not None else "worker-0"
        return client.get_task_log_preview(job_id, task).text, None
    except Exception as exc:  # noqa: BLE001 - a log that cannot be read leaves the trials without tails
        return "", f"log unavailable: {one_line_error(exc, client_secrets(client))}"


def trial_output_path(job: TrainingJob | None, trial_id: str) -> str | None:
    """A trial's own output folder: `<the job's first output channel>/<trial id>/` (assumed of the service,
    docs/assumptions.md; the local ModelArts writes there: modelarts_emulator/auto_search/runner.py)."""
    if job is None:
        return None
    base = next(iter(output_urls(job.to_wire()).values()), None)
    return base.rstrip("/") + f"/{trial_id}/" if base else None


def read_search(client: Any, job_id: str, reward_name: str, job: TrainingJob | None = None) -> SearchStatus:
    """Every trial of the search job `job_id`; never raises (an unreadable table is a note)."""
    try:
        trials: list[Trial] = client.all_trials(job_id, reward_name)
    except Exception as exc:  # noqa: BLE001 - the job's own result stands; its trials are a note
        return SearchStatus(note=f"trials unavailable: {one_line_error(exc, client_secrets(client))}")
    out = [TrialStatus(trial_id=t.trial_id, phase=t.phase, parameters=dict(t.parameters), reward=t.reward,
                       early_stopped=t.early_stopped, duration_s=t.duration_s,
                       output_path=trial_output_path(job, t.trial_id)) for t in trials]
    failed = [t for t in out if t.phase == "Failed"]
    job_log: tuple[str, str | None] | None = None
    for i, t in enumerate(failed):
        if i >= MAX_TAILS:
            t.note = f"log not fetched ({len(failed)} failed trials; the first {MAX_TAILS} have their tails)"
            continue
        tail = _trial_tail(client, job_id, t.trial_id)
        if tail is None:  # no log of its own: the job's log lines that name it (read once)
            job_log = job_log or _log_text(client, job, job_id)
            text, why = job_log
            tail = _tail(text, t.trial_id) if text else None
            if tail is None:
                t.note = why or f"no line of trial {t.trial_id} in the job's log"
                continue
        t.note = f"log tail: {tail}"
    return SearchStatus(trials=out, note=None if out else "the service lists no trials")


def _scalar(text: str) -> str | int | float:
    """A parameter as the chart plots it: a number where it is one."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


def results_of(objective: SweepObjective, search: SearchStatus) -> SweepResults:
    """The trials as a sweep's points (table and chart as for a grid sweep), best first."""
    points = [Point(key=t.trial_id, parameters={k: _scalar(v) for k, v in t.parameters.items()}, phase=t.phase,
                    objective=t.reward, output_path=t.output_path, duration_seconds=t.duration_s,
                    note="; ".join(n for n in ("early stopped" if t.early_stopped else "", t.note or "") if n) or None)
              for t in search.trials]
    return collect(objective, points, ties_in_order=True)  # the trials as the service lists them: start order


def export(objective: SweepObjective, search: SearchStatus | None, job_id: str | None) -> dict[str, Any]:
    """The `searches.<key>` export: every trial (best first) and the best trial."""
    search = search or SearchStatus(note="not read yet (the job has not been waited for)")
    ranked = results_of(objective, search)
    by_id = {t.trial_id: t for t in search.trials}

    def trial(p: Point) -> dict[str, Any]:
        t = by_id[p.key]
        return {"trialId": t.trial_id, "parameters": t.parameters, "phase": t.phase, "reward": t.reward,
                "earlyStopped": t.early_stopped, "note": t.note, "durationSeconds": t.duration_s,
                "outputPath": t.output_path}

    return {"jobId": job_id, "objective": objective.model_dump(), "trials": [trial(p) for p in ranked.points],
            "best": trial(ranked.best) if ranked.best is not None else None, "failures": ranked.failures,
            "note": search.note}


def as_sweep_results(exported: dict[str, Any]) -> SweepResults:
    """A `searches.<key>` export read back as a sweep's results (for `results` and its chart)."""
    objective = SweepObjective.model_validate(exported.get("objective") or {})
    trials = [TrialStatus(trial_id=str(t.get("trialId")), phase=str(t.get("phase") or ""),
                          parameters={str(k): str(v) for k, v in (t.get("parameters") or {}).items()},
                          reward=t.get("reward"), early_stopped=bool(t.get("earlyStopped")), note=t.get("note"),
                          duration_s=t.get("durationSeconds") if isinstance(t.get("durationSeconds"), (int, float))
                          else None,
                          output_path=t.get("outputPath") if isinstance(t.get("outputPath"), str) else None)
              for t in exported.get("trials") or [] if isinstance(t, dict)]
    return results_of(objective, SearchStatus(trials=trials))


def search_lines(key: str, objective: Any, search: SearchStatus | None, limit: int | None = 20,
                 secrets: Secrets = NONE) -> list[str]:
    """The table printed at the end of an `up`: the trials, best first."""
    if search is None or not search.trials:
        return [f"{key}: search, no trials ({search.note if search is not None and search.note else 'not read'})"]
    goal = SweepObjective(name=objective.name, goal=objective.goal)
    return table_lines(f"{key} (search)", results_of(goal, masked_trials(search, secrets)), limit=limit,
                       unit="trial")


def masked_trials(search: SearchStatus, secrets: Secrets = NONE) -> SearchStatus:
    """The trials as printed: a parameter value drawn from a secret of the space (one of the job's `secrets`) is
    the mask before the table is laid out, so no column's width tells a secret's length (the masking step of
    printed lines would mask it only after)."""
    every = secrets.every
    return search.model_copy(update={"trials": [
        t.model_copy(update={"parameters": {k: MASK if v in every else v for k, v in t.parameters.items()}})
        for t in search.trials]})


class SearchProgress:
    """The Watcher's poll hook: for each polled search job that is running, one trials request (the whole
    table, whatever the number of trials) and a progress line when it changed; never raises."""

    def __init__(self, client: Any, say: Any, searches: dict[str, Any]) -> None:
        self.client, self.say, self.searches = client, say, searches
        self._last: dict[str, str] = {}

    def __call__(self, polled: list[tuple[Any, Any]]) -> None:
        for watched, view in polled:
            objective = self.searches.get(watched.key)
            if objective is None or getattr(view, "phase", None) != "Running":
                continue
            try:
                trials: list[Trial] = self.client.all_trials(watched.job_id, objective.name)
            except Exception:  # noqa: BLE001 - progress only: the wait goes on, the end of it reads again
                continue
            line = progress_line(watched.name, objective, trials)
            if line != self._last.get(watched.key):
                self._last[watched.key] = line
                self.say(line)


def progress_line(name: str, objective: Any, trials: list[Trial]) -> str:
    """`tune-x: 5 trials (3 done, 2 running), best accuracy 0.91 (3f1c0a2e)`."""
    done = [t for t in trials if t.phase != "Running" and t.phase != "Pending"]
    running = sum(1 for t in trials if t.phase == "Running")
    scored = [t for t in done if t.reward is not None and t.phase == "Completed"]
    head = f"{name}: {len(trials)} trial{'s' if len(trials) != 1 else ''} ({len(done)} done, {running} running)"
    if not scored:
        return head
    pick = max if objective.goal == "max" else min
    best = pick(scored, key=lambda t: t.reward if t.reward is not None else 0.0)
    return f"{head}, best {objective.name} {best.reward:g} ({best.trial_id})"

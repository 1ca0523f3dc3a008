"""Inputs and outputs of JobsAwait: per job key, what to wait for, and what was seen."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..core.job_secrets import job_secrets
from ..core.masking import NONE, Secrets
from ..core.rules import WaitFor
from ..core.secret_leaves import secret_where
from ..core.linear_regex import check_metric, check_objective
from ..results.curves import Curve
from .searches import SearchStatus


class _AwaitModel(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Objective(_AwaitModel):
    """What a completed job scored: the last match of `regex` (one group) in its log (objectives.py)."""

    name: Annotated[str, Field(min_length=1)]
    regex: Annotated[str, Field(min_length=1)]
    goal: Literal["max", "min"] = "max"

    # checked at check(), before any wait: RE2 syntax, one group (linear_regex.py)
    _regex = field_validator("regex")(classmethod(lambda cls, v: check_objective(v)))


class Metric(_AwaitModel):
    """A metric whose every match in the log is a point (results/curves.py): one group around the number, and
    optionally a group named step or epoch."""

    name: Annotated[str, Field(min_length=1, max_length=64, description="The metric's name, e.g. loss.")]
    regex: Annotated[str, Field(min_length=1, max_length=500, description=(
        "RE2 regex over the log: one group around the number, optionally a group named step or epoch (the "
        "point's step; else the match's number), e.g. 'epoch (?P<epoch>[0-9]+)/[0-9]+ loss=([0-9.]+)'."))]
    goal: Literal["max", "min"] = Field(default="max", description="max or min: which way is better.")

    _regex = field_validator("regex")(classmethod(lambda cls, v: check_metric(v)))


MAX_METRICS = 16


class AwaitedJob(_AwaitModel):
    job_id: Annotated[str, Field(min_length=1)] = Field(description="The job to wait for (a TrainingJob's job_id).")
    job_name: str | None = Field(None, description="Its name, for progress lines and errors.")
    wait_for: WaitFor = Field("created", description="Target: none, created (left Creating), running, or completed.")
    timeout_seconds: Annotated[float, Field(gt=0, le=7 * 24 * 3600)] = Field(3600, description=(
        "Deadline in seconds (default 3600): past it the job is terminated and the wait fails. customTimeouts"
        " on the JobsAwait take precedence."))
    poll_seconds: Annotated[float, Field(ge=0.05, le=600)] = Field(5.0, description=(
        "Poll interval in seconds (default 5)."))
    workspace_id: str | None = Field(None, description=(
        "The job's workspace, when not the default one."))
    # Results (issue 23): what the job is scored by, the sweep it is a point of, and its grid values.
    objective: Objective | None = Field(None, description=(
        "What the job is scored by {name, regex, goal}: the last match in its completed log."))
    group: str | None = Field(None, description=(
        "The sweep the job is a point of (its table, best point and maxFailures)."))
    parameters: dict[str, str] = Field(default_factory=dict, description=(
        "The job's grid values, for its sweep's table and chart."))
    # The service's own search (stack/search_config.py): its trials are read after the wait (searches.py).
    search: Objective | None = Field(None, description=(
        "The job runs the service's own search scored by this objective {name, regex, goal}: its trials are "
        "read once after the wait (one request for all of them)."))
    # Metric curves (issue 41): every match in the log a point; read while it runs (progress lines) and after.
    metrics: Annotated[list[Metric], Field(max_length=MAX_METRICS)] = Field(default_factory=list, description=(
        "Metrics [{name, regex, goal}] read from the job's log: every match a point (step, value) (the step "
        "from a group named step or epoch, else the match's number); progress lines of their latest values "
        "while the job runs, a curve each once it completed."))

    # A failed run on record rather than a blocker (issue 56): settled as failed, the `up` goes on (accepted.py).
    accept_failed: bool = Field(False, description=(
        "Accept this job's failure: a job that fails (or passes its deadline) is recorded as failed and the wait "
        "succeeds; every later update and preview says so in a warning. Re-run it by replacing the job "
        "(`replaceFailed`, `pulumi up --replace`)."))

    @field_validator("metrics")
    @classmethod
    def _unique(cls, v: list[Metric]) -> list[Metric]:
        names = [m.name for m in v]
        dup = next((n for n in names if names.count(n) > 1), None)
        if dup is not None:
            raise ValueError(f"names the metric {dup!r} twice: each metric has its own name")
        return v

    def series(self) -> list[Objective | Metric]:
        """What the log is read for: the objective first, then each metric (one named like it: the metric)."""
        named = {m.name for m in self.metrics}
        own = [self.objective] if self.objective is not None and self.objective.name not in named else []
        return [*own, *self.metrics]


class JobsAwaitArgs(_AwaitModel):
    jobs: dict[str, AwaitedJob]
    # Failed points a group (sweep) tolerates: within the bound the wait succeeds (default 0).
    max_failures: dict[str, Annotated[int, Field(ge=0)]] = Field(default_factory=dict)
    # Per job key, its secret inputs by path ({"algorithm.environments.HF_TOKEN": value}, a TrainingJob's values at
    # its secret_paths): what is printed or recorded of that job masks them (core/job_secrets.py), and only of it.
    # A Pulumi secret in the state; a change alone is no change of the wait (provider.diff compares the jobs).
    secrets: dict[str, dict[str, str | int | float]] = Field(default_factory=dict)

    def secrets_of(self, key: str) -> Secrets:
        """The secrets of the job `key` (its own name shown as it is)."""
        job = self.jobs.get(key)
        return job_secrets(self.secrets.get(key) or {}, [job.job_name] if job is not None else [])

    def per_job(self) -> dict[str, Secrets]:
        return {key: self.secrets_of(key) for key in self.jobs}


class AwaitedStatus(_AwaitModel):
    """What the last successful wait (or refresh) saw of one job."""

    job_id: str = Field(description="The job's id.")
    job_name: str | None = Field(None, description="The job's name.")
    wait_for: WaitFor = Field(description="The target waited for.")
    phase: str | None = Field(None, description="Phase last seen.")
    reached: bool = Field(description="Whether the job reached its target.")
    workspace_id: str | None = Field(None, description=(
        "The job's workspace."))
    # A failure its sweep's maxFailures tolerates: settled (not waited for again), not reached.
    tolerated: bool = False
    failure: str | None = None  # why it failed (exit code and message), for tables
    objective: float | None = None
    objective_note: str | None = None  # why a completed job has no objective value
    diverged: str | None = Field(None, description=(
        "Where the objective or a metric first turned non-finite, e.g. 'accuracy nan at line 3': the run "
        "diverged, has no objective value and is never ranked."))
    duration_s: float | None = None
    retries: int | None = None  # how often the service restarted it (running records beyond the first)
    search: SearchStatus | None = Field(None, description=(
        "A search job's trials: {trials: [{trial_id, phase, parameters, reward, early_stopped, note}], note}."))
    metrics: dict[str, Curve] | None = Field(None, description=(
        "The objective's and each metric's curve by name: {points: [[step, value]], last, best, matches, "
        "note}."))


class JobsAwaitOutputs(_AwaitModel):
    statuses: dict[str, AwaitedStatus]
    phases: dict[str, str | None]
    # Run history (history.py): {key: [run record, ...]}, newest last, kept after a run is replaced.
    runs: dict[str, list[dict[str, Any]]] = Field(default_factory=dict)

    @classmethod
    def of(cls, statuses: dict[str, AwaitedStatus], runs: dict[str, Any] | None = None,
           secrets: dict[str, Secrets] | None = None) -> dict[str, Any]:
        out = cls(statuses=statuses, phases={k: s.phase for k, s in statuses.items()},
                  runs=runs if isinstance(runs, dict) else {}).model_dump(mode="json")
        for key, status in out["statuses"].items():  # results fields only where set: other jobs' statuses as before
            for name in RESULT_FIELDS:
                if status.get(name) in (None, False):
                    status.pop(name, None)
            for trial in (status.get("search") or {}).get("trials") or []:
                # A trial's value drawn from a secret of its space (its TrainingJob's secret inputs, handed to the
                # JobsAwait as its `secrets`) is a secret in the state; nothing else of it is.
                trial["parameters"] = secret_where(trial.get("parameters") or {}, (secrets or {}).get(key, NONE).every)
        return out


RESULT_FIELDS = ("tolerated", "failure", "objective", "objective_note", "diverged", "duration_s", "retries",
                 "search", "metrics")


OUTPUT_KEYS = frozenset(JobsAwaitOutputs.model_fields)

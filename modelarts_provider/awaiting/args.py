"""Inputs and outputs of JobsAwait: per job key, what to wait for, and what was seen."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..core.masking import known
from ..core.rules import WaitFor
from ..core.secret_leaves import secret_where
from ..core.linear_regex import check_objective
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


class AwaitedJob(_AwaitModel):
    job_id: Annotated[str, Field(min_length=1)]
    job_name: str | None = None
    wait_for: WaitFor = "created"
    timeout_seconds: Annotated[float, Field(gt=0, le=7 * 24 * 3600)] = 3600
    poll_seconds: Annotated[float, Field(ge=0.05, le=600)] = 5.0
    workspace_id: str | None = None
    # Results (issue 23): what the job is scored by, the sweep it is a point of, and its grid values.
    objective: Objective | None = None
    group: str | None = None
    parameters: dict[str, str] = Field(default_factory=dict)
    # The service's own search (stack/search_config.py): its trials are read after the wait (searches.py).
    search: Objective | None = None


class JobsAwaitArgs(_AwaitModel):
    jobs: dict[str, AwaitedJob]
    # Failed points a group (sweep) tolerates: within the bound the wait succeeds (default 0).
    max_failures: dict[str, Annotated[int, Field(ge=0)]] = Field(default_factory=dict)


class AwaitedStatus(_AwaitModel):
    """What the last successful wait (or refresh) saw of one job."""

    job_id: str
    job_name: str | None = None
    wait_for: WaitFor
    phase: str | None = None
    reached: bool
    workspace_id: str | None = None
    # A failure its sweep's maxFailures tolerates: settled (not waited for again), not reached.
    tolerated: bool = False
    failure: str | None = None  # why it failed (exit code and message), for tables
    objective: float | None = None
    objective_note: str | None = None  # why a completed job has no objective value
    duration_s: float | None = None
    retries: int | None = None  # how often the service restarted it (running records beyond the first)
    search: SearchStatus | None = None  # a search job's trials (searches.py)


class JobsAwaitOutputs(_AwaitModel):
    statuses: dict[str, AwaitedStatus]
    phases: dict[str, str | None]
    # Run history (history.py): {key: [run record, ...]}, newest last, kept after a run is replaced.
    runs: dict[str, list[dict[str, Any]]] = Field(default_factory=dict)

    @classmethod
    def of(cls, statuses: dict[str, AwaitedStatus], runs: dict[str, Any] | None = None) -> dict[str, Any]:
        out = cls(statuses=statuses, phases={k: s.phase for k, s in statuses.items()},
                  runs=runs if isinstance(runs, dict) else {}).model_dump(mode="json")
        secrets = known(every=True)
        for status in out["statuses"].values():  # results fields only where set: other jobs' statuses as before
            for name in RESULT_FIELDS:
                if status.get(name) in (None, False):
                    status.pop(name, None)
            for trial in (status.get("search") or {}).get("trials") or []:
                # A trial's value drawn from a secret of its space (its TrainingJob's secret inputs, which this
                # process learnt at their check: masking.py) is a secret in the state; nothing else of it is.
                trial["parameters"] = secret_where(trial.get("parameters") or {}, secrets)
        return out


RESULT_FIELDS = ("tolerated", "failure", "objective", "objective_note", "duration_s", "retries", "search")


OUTPUT_KEYS = frozenset(JobsAwaitOutputs.model_fields)

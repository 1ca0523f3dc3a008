"""Inputs and outputs of JobsAwait: per job key, what to wait for, and what was seen."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from ..training_job.args import WaitFor


class _AwaitModel(BaseModel):
    model_config = ConfigDict(extra="forbid")


class AwaitedJob(_AwaitModel):
    job_id: Annotated[str, Field(min_length=1)]
    job_name: str | None = None
    wait_for: WaitFor = "created"
    timeout_seconds: Annotated[float, Field(gt=0, le=7 * 24 * 3600)] = 3600
    poll_seconds: Annotated[float, Field(ge=0.05, le=600)] = 5.0
    workspace_id: str | None = None


class JobsAwaitArgs(_AwaitModel):
    jobs: dict[str, AwaitedJob]


class AwaitedStatus(_AwaitModel):
    """What the last successful wait (or refresh) saw of one job."""

    job_id: str
    job_name: str | None = None
    wait_for: WaitFor
    phase: str | None = None
    reached: bool
    workspace_id: str | None = None


class JobsAwaitOutputs(_AwaitModel):
    statuses: dict[str, AwaitedStatus]
    phases: dict[str, str | None]

    @classmethod
    def of(cls, statuses: dict[str, AwaitedStatus]) -> dict[str, Any]:
        return cls(statuses=statuses, phases={k: s.phase for k, s in statuses.items()}).model_dump(mode="json")


OUTPUT_KEYS = frozenset(JobsAwaitOutputs.model_fields)

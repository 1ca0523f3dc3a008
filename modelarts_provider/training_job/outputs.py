"""Live job -> the resource's status outputs (never diffed, refreshed by read).

The output keys are the fields of one model, `JobStatusOutputs`; everything else in a TrainingJob's
state is an input.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from pydantic import BaseModel, Field

from ..client.clouds import CLOUDS, DEFAULT_CLOUD
from ..client.models import TrainingJob, as_list, output_urls
from ..core.resource_inputs import inputs_among


class TaskStatusOutput(BaseModel):
    task: str | None = Field(None, description="Task name.")
    exit_code: int | None = Field(None, description="Exit code of the task's process.")
    message: str | None = Field(None, description="The service's message about the task.")


class JobStatusOutputs(BaseModel):
    """What a TrainingJob reports about its live job. A field whose type admits no None is set whenever the job
    exists (a required output in the plugin's schema: an SDK types it as always there); the others can be absent (a
    start time before the job starts, a flavor name on a pool)."""

    job_id: str = Field(description="The job's id.")
    job_name: str = Field(description="The job's name as the service holds it.")
    phase: str = Field(description=(
        "Phase last seen: Creating, Pending, Running, Completed, Failed, Terminating, Terminated or Abnormal."))
    secondary_phase: str | None = Field(None, description="The service's finer-grained phase.")
    create_time: str | None = Field(None, description="When the job was created (ISO 8601, UTC).")
    start_time: str | None = Field(None, description="When the job started running (ISO 8601, UTC).")
    duration_ms: int = Field(0, description="Running time in milliseconds.")
    flavor_name: str | None = Field(None, description="The flavor's display name.")
    task_names: list[str] = Field(default_factory=list, description="The job's task names, e.g. worker-0.")
    task_statuses: list[TaskStatusOutput] = Field(default_factory=list, description=(
        "Each task's exit code and message."))
    output_paths: dict[str, str] = Field(default_factory=dict, description="Output channel name -> OBS URL.")
    output_path: str | None = Field(None, description="The first output channel's OBS URL.")
    console_url: str = Field(description="The job's page in the ModelArts console.")
    # Where the job lives (location.py): checked by read, update and delete before any call.
    location: dict[str, str] = Field(description=(
        "Where the job lives (cloud, region, project, endpoint): read, update and delete refuse another "
        "place."))


OUTPUT_KEYS = frozenset(JobStatusOutputs.model_fields)
strip_outputs = inputs_among(JobStatusOutputs)  # the inputs among a job's properties


def _iso(ms: int | None) -> str | None:
    if not ms:
        return None
    return datetime.fromtimestamp(ms / 1000, tz=timezone.utc).isoformat().replace("+00:00", "Z")


def console_url(cloud: str, region: str, job_id: str) -> str:
    host = CLOUDS.get(cloud, CLOUDS[DEFAULT_CLOUD]).console  # the job detail page: the same route on every cloud
    return f"{host}/modelarts/?region={region}#/trainingJobs/trainingjobDetail?jobId={job_id}"


# Outputs built from the output channels' OBS URLs: secret when any of those (or the log path) is.
OBS_OUTPUTS = ("output_path", "output_paths")


def secret_outputs(secret_paths: list[str]) -> list[str]:
    """The outputs derived from secret inputs (dotted paths): the OBS paths when an output URL is secret."""
    return list(OBS_OUTPUTS) if any(p == "algorithm" or p.startswith(("algorithm.outputs", "log_export_path"))
                                    for p in secret_paths) else []


def status_outputs(job: TrainingJob, *, cloud: str, region: str,
                   location: dict[str, str] | None = None) -> dict[str, Any]:
    live = job.to_wire()
    status = live.get("status") or {}
    resource = (live.get("spec") or {}).get("resource") or {}
    outs_by_name = output_urls(live)
    job_id = job.id or ""
    return JobStatusOutputs(
        # The service returns the name and the phase with every job (its create and details responses, each
        # documented with metadata.name and status.phase; the name is the create request's own): "" only for a
        # response that breaks that, as job_id.
        job_id=job_id,
        job_name=job.name or "",
        phase=status.get("phase") or "",
        secondary_phase=status.get("secondary_phase"),
        create_time=_iso((live.get("metadata") or {}).get("create_time")),
        start_time=_iso(status.get("start_time")),
        duration_ms=status.get("duration") or 0,
        flavor_name=resource.get("flavor_name"),
        task_names=as_list(status.get("tasks")),
        task_statuses=[TaskStatusOutput(task=t.task, exit_code=t.exit_code, message=t.message)
                       for t in job.task_statuses],
        output_paths=outs_by_name,
        output_path=next(iter(outs_by_name.values()), None),
        console_url=console_url(cloud, region, job_id),
        location=location,
    ).model_dump(mode="json")

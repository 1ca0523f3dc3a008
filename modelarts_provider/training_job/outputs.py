"""Live job -> the resource's status outputs (never diffed, refreshed by read).

The output keys are the fields of one model, `JobStatusOutputs`; everything else in a TrainingJob's
state is an input.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from pydantic import BaseModel

from ..client.clouds import CLOUDS, DEFAULT_CLOUD
from ..client.models import TrainingJob, as_list, normalize_obs_path, output_urls


class TaskStatusOutput(BaseModel):
    task: str | None = None
    exit_code: int | None = None
    message: str | None = None


class JobStatusOutputs(BaseModel):
    """What a TrainingJob reports about its live job."""

    job_id: str
    job_name: str | None = None
    phase: str | None = None
    secondary_phase: str | None = None
    create_time: str | None = None
    start_time: str | None = None
    duration_ms: int = 0
    flavor_name: str | None = None
    task_names: list[str] = []
    task_statuses: list[TaskStatusOutput] = []
    output_paths: dict[str, str] = {}
    output_path: str | None = None
    console_url: str | None = None
    # Where the job lives (location.py): checked by read, update and delete before any call.
    location: dict[str, str] | None = None


OUTPUT_KEYS = frozenset(JobStatusOutputs.model_fields)


def strip_outputs(props: dict[str, Any]) -> dict[str, Any]:
    """The inputs among a resource's properties (no status outputs, no engine-internal `__` keys)."""
    return {k: v for k, v in props.items() if k not in OUTPUT_KEYS and not k.startswith("__")}


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
        job_id=job_id,
        job_name=job.name,
        phase=status.get("phase"),
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
        console_url=console_url(cloud, region, job_id) if job_id else None,
        location=location,
    ).model_dump(mode="json")

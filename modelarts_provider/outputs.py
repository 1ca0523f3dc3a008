"""Live job -> the resource's status outputs (never diffed, refreshed by read)."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from .client.models import TrainingJob, normalize_obs_path

# Console hosts per cloud; the job detail page is the same route on both.
CONSOLE_HOSTS = {
    "huaweicloud": "https://console-intl.huaweicloud.com",
    "otc": "https://console.otc.t-systems.com",
}


def _iso(ms: int | None) -> str | None:
    if not ms:
        return None
    return datetime.fromtimestamp(ms / 1000, tz=timezone.utc).isoformat().replace("+00:00", "Z")


def console_url(cloud: str, region: str, job_id: str) -> str:
    host = CONSOLE_HOSTS.get(cloud, CONSOLE_HOSTS["huaweicloud"])
    return f"{host}/modelarts/?region={region}#/trainingJobs/trainingjobDetail?jobId={job_id}"


def status_outputs(job: TrainingJob, *, cloud: str, region: str) -> dict[str, Any]:
    live = job.to_wire()
    status = live.get("status") or {}
    resource = (live.get("spec") or {}).get("resource") or {}
    outs_by_name: dict[str, str] = {}
    for ch in (live.get("algorithm") or {}).get("outputs") or []:
        url = ((ch.get("remote") or {}).get("obs") or {}).get("obs_url")
        if ch.get("name") and url:
            outs_by_name[ch["name"]] = normalize_obs_path(url) or url
    job_id = job.id or ""
    return {
        "job_id": job_id,
        "job_name": job.name,
        "phase": status.get("phase"),
        "secondary_phase": status.get("secondary_phase"),
        "create_time": _iso((live.get("metadata") or {}).get("create_time")),
        "start_time": _iso(status.get("start_time")),
        "duration_ms": status.get("duration") or 0,
        "flavor_name": resource.get("flavor_name"),
        "task_names": list(status.get("tasks") or []),
        "task_statuses": [
            {"task": t.get("task"), "exit_code": t.get("exit_code"), "message": t.get("message")}
            for t in status.get("task_statuses") or []
        ],
        "output_paths": outs_by_name,
        "output_path": next(iter(outs_by_name.values()), None),
        "console_url": console_url(cloud, region, job_id) if job_id else None,
    }


def describe_failure(job: TrainingJob) -> str:
    """'job NAME (ID) is PHASE; task worker-0 exit code 1: message' for error messages."""
    parts = [f"training job {job.name} ({job.id}) is {job.phase}"
             + (f" ({job.secondary_phase})" if job.secondary_phase and job.secondary_phase != job.phase else "")]
    for t in job.task_statuses:
        parts.append(f"task {t.task}: exit code {t.exit_code}" + (f": {t.message}" if t.message else ""))
    return "; ".join(parts)

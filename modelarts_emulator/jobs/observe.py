"""What a client reads about a training job besides its details and logs: its task instances, their machine
usage, its events, and whether a name is taken. Like the logs (jobs/logs.py), each answer derives from the job
row and the clock; nothing is stored. Shapes as the official SDK's models (huaweicloudsdkmodelarts v1):

- ``GET /v2/{project_id}/training-jobs/{job}/tasks`` -> a JSON array of TaskHistory
  ``{task, ip, host_ip, schedule_count}``: one per task once the job was scheduled (Running), none before.
- ``GET /v2/{project_id}/training-jobs/{job}/metrics/{task}`` -> ShowTrainingJobMetricsResponse
  ``{metrics: [{metric, value: [...]}]}``: machine usage only (cpuUsage, memUsage, and gpuUtil, gpuMemUsage on a
  GPU flavor), one average per minute run (the SDK's docs), at least one once the task runs. The service's
  metrics carry no training metrics: those come from the log.
- ``GET /v2/{project_id}/training-jobs/{job}/events[?offset&limit&order&level&pattern]`` ->
  ListTrainingJobEventsResponse ``{total, limit, offset, order, start_time, end_time, events: [{message, level,
  time, source}]}``: one event per phase the job reached; limit 1 to 100 (default 50), level Info, Warning or
  Error, pattern a substring of the message (at most 256 characters).
- ``GET /v2/{project_id}/training-job-names?job_name=N`` -> ValidateTrainingJobNameResponse
  ``{is_duplicate}``: whether a job of this project (not deleted) has that name.
"""

from __future__ import annotations

import hashlib
from typing import Any
from .. import errors
from .logs import known_task, stamp
from .models import JobRow
from .query import int_param, query_params

MINUTE_MS = 60_000
MAX_POINTS = 1440  # a day of minutes: a job held for weeks answers its last day
EVENT_LEVELS = ("Info", "Warning", "Error")
PATTERN_MAX = 256
# The message and level of the event of each phase a job reaches.
PHASE_EVENTS = {
    "Creating": ("Info", "The training job is created."),
    "Pending": ("Info", "The training job is waiting for resources."),
    "Running": ("Info", "Resources are allocated; the training job is running on {nodes} node(s)."),
    "Completed": ("Info", "The training job completed."),
    "Failed": ("Error", "The training job failed: {message}"),
    "Abnormal": ("Error", "The training job is abnormal: {message}"),
    "Terminating": ("Warning", "The training job is being terminated."),
    "Terminated": ("Warning", "The training job was terminated."),
}


def _octet(seed: str, k: int) -> int:
    return 10 + int(hashlib.sha256(f"{seed}/{k}".encode()).hexdigest()[:4], 16) % 240


def tasks(row: JobRow, t: int) -> list[dict[str, Any]]:
    """The job's task instances: their addresses fixed by the job id, scheduled once."""
    status = row.status_at(t)
    if not status["start_time"]:
        return []
    return [{"task": task, "ip": f"172.16.{i}.{_octet(row.id, i)}", "host_ip": f"192.168.0.{_octet(row.id, 100 + i)}",
             "schedule_count": 1} for i, task in enumerate(status["tasks"])]


def _usage(seed: str, minute: int, low: float, high: float) -> float:
    spread = int(hashlib.sha256(f"{seed}/{minute}".encode()).hexdigest()[:8], 16) / 0xFFFFFFFF
    return round(low + (high - low) * spread, 2)


def metrics(row: JobRow, task: str, t: int) -> dict[str, Any]:
    """Machine usage of one task, a value per minute it ran (in percent)."""
    status = row.status_at(t)
    known_task(row, task, status)
    ran = max(1, -(-status["duration"] // MINUTE_MS)) if status["start_time"] else 0  # minutes begun, 1 at least
    minutes = min(MAX_POINTS, ran)
    first = ran - minutes  # past a day, the last day's
    names = [("cpuUsage", 20.0, 95.0), ("memUsage", 10.0, 70.0)]
    flavor = ((row.doc.get("spec") or {}).get("resource") or {}).get("flavor_detail") or {}
    if flavor.get("flavor_type") == "GPU":
        names += [("gpuUtil", 40.0, 100.0), ("gpuMemUsage", 20.0, 90.0)]
    return {"metrics": [{"metric": name, "value": [_usage(f"{row.id}/{task}/{name}", first + m, low, high)
                                                   for m in range(minutes)]} for name, low, high in names]}


def _phases_reached(row: JobRow, t: int) -> list[tuple[int, str]]:
    """(when, phase) of each phase the job went through up to t, in order."""
    seen: list[tuple[int, str]] = []
    end = row.natural_end_ms()[0]  # inf while a hanging job runs
    marks = sorted({row.create_ms, row.create_ms + row.creating_ms, int(row.start_ms()),
                    t if end == float("inf") else int(end),
                    *((row.terminate_ms, row.terminate_ms + row.terminating_ms) if row.terminate_ms is not None
                      else ())})
    for at in marks:
        if at > t:
            break
        phase = row.phase_at(at)
        if not seen or seen[-1][1] != phase:
            seen.append((at, phase))
    return seen


def events(row: JobRow, t: int, raw_query: str) -> dict[str, Any]:
    """The job's events, filtered and paged as the query asks."""
    query = query_params(raw_query)
    offset = int_param(query, "offset", 0, 0, None)
    limit = int_param(query, "limit", 50, 1, 100)
    order = query.get("order") or "desc"
    if order not in ("asc", "desc"):
        raise errors.invalid_param("order", f"must be asc or desc, not {order!r}")
    level = query.get("level")
    if level is not None and level not in EVENT_LEVELS:
        raise errors.invalid_param("level", f"must be one of {', '.join(EVENT_LEVELS)}, not {level!r}")
    pattern = query.get("pattern") or ""
    if len(pattern) > PATTERN_MAX:
        raise errors.invalid_param("pattern", f"must be at most {PATTERN_MAX} characters")
    message = row.message or f"exit code {row.exit_code}"
    found = []
    for at, phase in _phases_reached(row, t):
        lvl, text = PHASE_EVENTS.get(phase, ("Info", f"The training job is {phase}."))
        found.append({"message": text.format(nodes=row.node_count, message=message), "level": lvl,
                      "time": stamp(at), "source": "ModelArts"})
    found = [e for e in found if (level is None or e["level"] == level) and pattern in e["message"]]
    if order == "desc":
        found.reverse()
    return {"total": len(found), "limit": limit, "offset": offset, "order": order,
            "start_time": query.get("start_time"), "end_time": query.get("end_time"),
            "events": found[offset:offset + limit]}


def name_taken(rows: list[JobRow], raw_query: str) -> dict[str, Any]:
    name = query_params(raw_query).get("job_name")
    if not name:
        raise errors.invalid_param("job_name", "is required")
    return {"is_duplicate": any(r.name == name for r in rows)}

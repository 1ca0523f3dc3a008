"""A task's log read two more ways than its preview (jobs/logs.py), in the official SDK's / API pages' shapes:

- ``GET /v2/{project}/training-jobs/{job}/tasks/{task}/logs/url`` (API page ShowObsUrlOfTrainingJobLogs; not in
  huaweicloudsdkmodelarts 3.1.219) -> 200 ``{"obs_url"}``: "a temporary OBS link, valid for 5 minutes" to the
  whole log. The local ModelArts keeps its logs itself, not in OBS, so the link is its own unsigned
  ``/_emulator/task-logs/{job}/{task}`` (the complete log as text/plain), on the host the client called: the
  client fetches it as it would fetch the presigned OBS URL, without signing.
- ``GET /v2/{project}/training-jobs/{job}/logs/{task}?base_line&lines&order`` (SDK
  ``show_training_job_logs_from_aom``) -> 200 ``{"start_line", "end_line", "lines", "content"}``: ``lines`` lines
  (1-500, default 50) of the log. Lines are numbered from 1 (line numbers are strings, as the SDK types them).
  Without ``base_line``: the newest ``lines`` lines. With it, following the v1 AOM log page ("desc: query next
  records; asc: query previous records"; the SDK's v2 text only says asc/desc): ``desc`` (the default) the lines
  after ``base_line``, ``asc`` the lines before it. Content is always in the log's own order. Both are our
  reading: the pages show no example of paging.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from .. import errors
from .logs import known_task, preview
from .models import JobRow
from .query import int_param, query_params

DEFAULT_LINES = 50  # the SDK's documented default
MAX_LINES = 500


class ObsUrl(BaseModel):
    obs_url: str


class AomLog(BaseModel):
    """ShowTrainingJobLogsFromAomResponse."""

    start_line: str
    end_line: str
    lines: int
    content: str


def full_log(row: JobRow, task: str, t: int) -> str:
    """The task's whole log so far (an unknown task: ModelArts.2788, as for the preview)."""
    return str(preview(row, task, t)["content"])


def log_url(row: JobRow, task: str, t: int, host: str) -> dict[str, Any]:
    known_task(row, task, row.status_at(t))
    return ObsUrl(obs_url=f"http://{host}/_emulator/task-logs/{row.id}/{task}").model_dump()


def aom_lines(row: JobRow, task: str, t: int, raw_query: str) -> dict[str, Any]:
    query = query_params(raw_query)
    count = int_param(query, "lines", DEFAULT_LINES, 1, MAX_LINES)
    order = query.get("order") or "desc"
    if order not in ("asc", "desc"):
        raise errors.invalid_param("order", f"must be asc or desc, not {order!r}")
    lines = full_log(row, task, t).splitlines(keepends=True)
    base = query.get("base_line") or ""
    if not base:
        first = max(0, len(lines) - count)  # 0-based index of the first line shown
    else:
        try:
            base_no = int(base)
        except ValueError:
            raise errors.invalid_param("base_line", f"must be a line number, not {base!r}") from None
        first = base_no if order == "desc" else max(0, base_no - 1 - count)
        first = min(max(first, 0), len(lines))
        if order == "asc":
            count = min(count, max(0, base_no - 1))
    shown = lines[first:first + count]
    start, end = (first + 1, first + len(shown)) if shown else (first, first)
    return AomLog(start_line=str(start), end_line=str(end), lines=len(shown), content="".join(shown)).model_dump()

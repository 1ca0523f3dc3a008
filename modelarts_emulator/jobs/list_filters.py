"""``POST /training-job-searches``: filter, sort and page the stored jobs.

Filtering happens on rendered jobs because ``phase`` is derived from the clock, not stored. Only
jobs of the request's ``workspace_id`` are listed (SDK ``JobSearches``: default ``"0"``; with
``all_workspaces`` a search without it lists every workspace).
"""

from __future__ import annotations

from typing import Any

from .models import Store
from ..wire import SearchFilter, SearchRequest


def _matches(job: dict[str, Any], f: SearchFilter) -> bool:
    if f.key == "phase":
        actual = job["status"]["phase"]
    elif f.key == "id":
        actual = job["metadata"]["id"]
    else:
        actual = job["metadata"]["name"]
    if f.operator == "in":
        return actual in f.value
    return any(v.lower() in actual.lower() for v in f.value)  # like: fuzzy, case-insensitive


TAGS_WINDOW_MS = 31 * 24 * 3600 * 1000  # with tags: jobs created in the last 31 days (SDK JobSearches.tags)


def _tagged(row: Any, tags: list[Any], now: int) -> bool:
    if not tags:
        return True
    if row.create_ms < now - TAGS_WINDOW_MS:
        return False
    have = {t["key"]: t["value"] for t in row.doc.get("tags") or []}
    return all(f.key in have and (not [v for v in f.values if v] or have[f.key] in f.values) for f in tags)


def search(store: Store, req: SearchRequest, offset_counts: str = "items",
           all_workspaces: bool = False) -> dict[str, Any]:
    """``offset_counts``: ``items`` (jobs to skip) or ``pages`` (page number, 0 = first page)."""
    workspace = None if (req.workspace_id is None and all_workspaces) else (req.workspace_id or "0")
    t = store.now()
    rows = [r for r in store.all_rows() if _tagged(r, req.tags, t)]
    jobs = [r.render(t) for r in rows]
    jobs = [j for j in jobs if workspace in (None, j["metadata"]["workspace_id"])
            and all(_matches(j, f) for f in req.filters)]
    key = (lambda j: j["metadata"]["create_time"]) if req.sort_by == "create_time" else (
        lambda j: j["metadata"]["name"])
    jobs.sort(key=key, reverse=req.order == "desc")
    start = req.offset * req.limit if offset_counts == "pages" else req.offset
    page = jobs[start:start + req.limit]
    out = {"total": len(jobs), "count": len(page), "limit": req.limit, "offset": req.offset,
           "sort_by": req.sort_by, "order": req.order, "workspace_id": workspace, "items": page}
    if workspace is None:
        del out["workspace_id"]
    return out

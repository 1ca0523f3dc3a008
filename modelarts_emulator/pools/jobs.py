"""Jobs on a created pool (``spec.resource.pool_id`` naming one): queued (Pending) until the pool is
usable with its Train job type Enabled and enough free available nodes for their ``node_count``, then
Running; a job whose pool is deleted before it ends fails.

``schedule()`` runs before every API call (cheap when no job names a created pool): for each waiting job,
in submission order, it finds the first moment since it could start at which the pool had room (nodes
coming up and jobs ending are the only moments that change the room) and stores it as the job's start
(``doc.pool_start_ms``); models.JobRow derives the phases from it, so the result never depends on when
anyone polled.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from .. import errors
from ..catalog.model import Catalog, Pool
from ..jobs.models import COLUMNS, JobRow, Store
from .state import PoolStore, available_nodes, scope_enabled_ms
from .wire import FLAVORS_BY_NAME

BUSY = ("Running", "Terminating")


def catalog_with_pool(catalog: Catalog, pools: PoolStore, project: str, pool_id: str | None) -> Catalog:
    """The catalog plus the created pool the job names (its job flavors, its declared node total)."""
    if not pool_id or pool_id in catalog.pools:
        return catalog
    doc = pools.pool_doc(project, pool_id)
    if doc is None:
        raise errors.invalid_param("spec.resource.pool_id", f"resource pool {pool_id} does not exist")
    flavors = [j for r in doc["spec"]["resources"] for j in FLAVORS_BY_NAME.get(r["flavor"], {}).get("jobFlavors", [])]
    total = sum(r["count"] for r in doc["spec"]["resources"])
    out = copy.copy(catalog)
    out.pools = {**catalog.pools, pool_id: Pool(pool_id=pool_id, flavor_type="GPU", max_nodes=max(total, 1),
                                                flavors=flavors)}
    return out


def enqueue(store: Store, job_id: str, pool_id: str) -> None:
    with store._lock:
        row = store._row(job_id)
        row.doc["pool_queue"] = pool_id
        _save(store, row)


def _save(store: Store, row: JobRow) -> None:
    store._db.execute("UPDATE jobs SET doc = ? WHERE id = ?", (json.dumps(row.doc), row.id))


def _end(row: JobRow) -> float:
    end, _ = row.natural_end_ms()
    if row.terminate_ms is not None:
        end = min(end, row.terminate_ms + row.terminating_ms)
    return end


def schedule(store: Store, pools: PoolStore) -> None:
    with store._lock:
        if store._db.execute("SELECT 1 FROM cloud_resources WHERE kind = 'pool' LIMIT 1").fetchone() is None:
            return
        found = store._db.execute("SELECT name, doc FROM cloud_resources WHERE kind = 'pool'").fetchall()
        pool_docs: dict[str, dict[str, Any]] = {n: json.loads(d) for n, d in found}
        rows = [JobRow.from_db(r) for r in store._db.execute(
            f"SELECT {COLUMNS} FROM jobs WHERE doc LIKE '%\"pool_queue\"%' ORDER BY seq").fetchall()]
        t = store.now()
        for row in rows:
            doc = pool_docs.get(row.doc["pool_queue"])
            if doc is None or "pool_lost_ms" in row.doc:
                continue
            deleted = doc.get("delete_ms")
            if deleted is not None and deleted <= t and _end(row) > deleted:
                row.doc["pool_lost_ms"] = deleted
                row.doc["pool_lost_message"] = f"The resource pool {row.doc['pool_queue']} was deleted."
                _save(store, row)
                continue
            if row.doc.get("pool_start_ms") is not None or row.terminate_ms is not None:
                continue
            start = _place(row, doc, [r for r in rows if r.doc["pool_queue"] == row.doc["pool_queue"]
                                      and r.doc.get("pool_start_ms") is not None], t)
            if start is not None:
                row.doc["pool_start_ms"] = start
                _save(store, row)


def _place(row: JobRow, doc: dict, started: list[JobRow], t: int) -> int | None:
    """The first moment in [could start, now] at which the pool had room for the job, or None."""
    enabled = scope_enabled_ms(doc, "Train")  # a job runs once the pool's Train job type is Enabled
    if enabled is None:
        return None
    earliest = max(row.create_ms + row.creating_ms, enabled)
    if earliest > t:
        return None
    moments = {earliest} | {int(_end(r)) for r in started if earliest < _end(r) <= t} \
        | {n["ready_ms"] for n in doc["nodes"] if earliest < n["ready_ms"] <= t}
    for s in sorted(moments):
        used = sum(r.node_count for r in started if r.phase_at(s) in BUSY)
        if available_nodes(doc, s) - used >= row.node_count:
            return s
    return None

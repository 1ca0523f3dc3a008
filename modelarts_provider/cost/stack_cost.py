"""The stack program's door to the cost (items.py): the most each job, sweep, search and pool of the stack config
can bill, from the stack config and the job plans alone (no API call besides the prices)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Set as AbstractSet
from decimal import Decimal

from ..training_job.service_limit import with_service_limit
from .config import PROJECT
from .enforced import Bound, bound_of
from .items import Item, pool_item, search_detail
from .prices import PriceBook
from .recorded import NOTHING, Recorded
from .shapes import CostedJob, CostedPlan, CostedStack
from .still_bills import kept



def job_bound(job: CostedJob, auto_stop: object) -> Bound:
    """The most hours one run of this job bills and who keeps it, given the `auto_stop` it is sent with."""
    return bound_of(job.wait_for, job.wait_timeout_seconds, auto_stop, job.search is not None)


def sent_limit(p: CostedPlan, rec: Recorded) -> object:
    """The `auto_stop` this plan's job runs with: what the TrainingJob's check makes of its args
    (training_job/service_limit.with_service_limit): a recorded job that this plan does not re-run keeps its
    limit; a new job, or one re-run (a replacement, checked with no old inputs), gets the one its wait gives it."""
    olds = rec.inputs_of((p.key, *p.moved_from)) if kept(p, rec) else None
    return with_service_limit(olds, p.args.model_dump(exclude_none=True)).get("auto_stop")


def _entry_bound(job: CostedJob, plans: list[CostedPlan], rec: Recorded) -> Bound:
    """The largest bound among an entry's jobs (a sweep's points may carry different recorded limits)."""
    found = [job_bound(job, sent_limit(p, rec)) for p in plans] \
        or [job_bound(job, None)]
    if any(b.hours is None for b in found):
        return next(b for b in found if b.hours is None)
    return max(found, key=lambda b: b.hours or Decimal(0))


def _unbounded_field(path: str) -> str:
    return f"{path}.autoStopHours, or waitFor: completed with {path}.waitTimeoutSeconds"


def items(cfg: CostedStack, plans: list[CostedPlan], book: PriceBook, spent: AbstractSet[str] = frozenset(),
          rec: Recorded = NOTHING) -> list[Item]:
    """`spent`: the keys of jobs whose runs finished and will not run again (still_bills.py): left out of the
    bound, counted beside it. `rec`: what the state records (recorded.py), for the limit each job keeps."""
    points = Counter(p.sweep for p in plans if p.sweep is not None)
    by_path: dict[str, list[CostedPlan]] = {}
    for p in plans:
        by_path.setdefault(p.config_path, []).append(p)
    done = Counter(p.config_path for p in plans if p.key in spent)
    out: list[Item] = []
    for section, entries in (("jobs", cfg.jobs), ("sweeps", cfg.sweeps)):
        for key, job in entries.items():
            path = f"{PROJECT}:{section}.{key}"
            pool = cfg.pools[job.pool]
            count = (points[key] if section == "sweeps" else 1) - done[path]
            kind = "sweep" if section == "sweeps" else ("search" if job.search is not None else "job")
            detail = search_detail(job.search.trials, job.search.parallel) if job.search is not None else ""
            billed_by = ""
            if pool.create is not None:
                billed_by = f"pool {job.pool}"
            elif pool.pool_id is not None:
                billed_by = f"dedicated pool {job.pool}"
            flavor = None if billed_by else pool.flavor
            b = _entry_bound(job, [p for p in by_path.get(path, []) if p.key not in spent], rec)
            out.append(Item(key, kind, path, count, job.nodes, b.hours, flavor,
                            book.prices.get(flavor) if flavor else None, billed_by, detail,
                            _unbounded_field(path), b.note(), done[path]))
    for key, pool in cfg.pools.items():
        if pool.create is None:
            continue
        hours = None if cfg.budget is None or cfg.budget.pool_hours is None else Decimal(str(cfg.budget.pool_hours))
        out.append(pool_item(key, f"{PROJECT}:pools.{key}", pool.create.nodes, hours, pool.create.flavor,
                             book.prices.get(pool.create.flavor), "the stack creates it",
                             f"{PROJECT}:budget.poolHours to bound it"))
    return out

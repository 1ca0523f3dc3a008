"""What the stack's runs spent: the service's own running duration of each job x its node count x the price
of a node-hour of its flavor (read by this run of the program: prices.py). Exported as `cost`:

    cost: {currency, total, nodeHours,
           jobs:     {<job key>: {jobId, nodes, durationSeconds, nodeHours, pricePerNodeHour, currency, cost,
                                  sweep, note, runs: [{jobId, nodes, durationSeconds, nodeHours, cost}]}},
           sweeps:   {<sweep>: {jobs, runs, nodeHours, cost, currency}},
           searches: {<job key>: {...}}  (a search's job: every trial ran in it)}

A job's duration is the newest run's (the JobsAwait's run history, `runs`); a job not waited for, or still
running, has none yet: no cost until it has. `runs` prices every recorded run of the key (its own node count and
duration, this run's price), and the totals (the stack's and each sweep's, `total`, `nodeHours`, `cost`) sum every
run on record, not only each key's newest: an edited job's earlier run was billed too (issue 55). A run whose
node count was not recorded (an older history) has no node-hours and is left out of them. A job on a pool (the
stack's or a dedicated one) is billed by the pool: its node-hours are counted, its cost is not. Costs are kept to
six places: a few seconds of a cheap flavor is a fraction of a cent, never rounded away. Pure (build) so it is
tested without Pulumi.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from .prices import Price, PriceBook
from .shapes import CostedPlan, CostedStack

HOUR_S = Decimal(3600)


COST_PLACES = "0.000001"


def _round(v: Decimal, places: str = "0.0001") -> float:
    return float(v.quantize(Decimal(places), ROUND_HALF_UP))


def _money(v: Decimal) -> float:
    return _round(v, COST_PLACES)


@dataclass
class _Sum:
    """What every recorded run of a key adds up to (Decimal: rounded once, when exported)."""

    runs: int = 0
    node_hours: Decimal = Decimal(0)
    cost: Decimal = Decimal(0)


def _runs(records: list[Any], nodes: int, price: Price | None) -> tuple[list[dict[str, Any]], _Sum]:
    """Every recorded run of a key (the run history), newest last, priced at this run's price: its own node count
    (recorded from the service's view; the newest run's falls back to the declared count), its duration; and
    their sum."""
    out = []
    total = _Sum()
    for i, r in enumerate(records):
        if not isinstance(r, dict):
            continue
        recorded = r.get("node_count")  # a number through Pulumi's outputs (2.0): whole and positive
        n = int(recorded) if isinstance(recorded, (int, float)) and recorded >= 1 and recorded == int(recorded) \
            else (nodes if i == len(records) - 1 else None)
        d = r.get("duration_s")
        nh = Decimal(str(d)) / HOUR_S * n if isinstance(d, (int, float)) and n else None
        out.append({"jobId": r.get("job_id"), "nodes": n, "durationSeconds": d,
                    "nodeHours": _round(nh) if nh is not None else None,
                    "cost": _money(nh * price.per_node_hour) if nh is not None and price is not None else None})
        if nh is not None:
            total.runs += 1
            total.node_hours += nh
            total.cost += nh * price.per_node_hour if price is not None else Decimal(0)
    return out, total


def build(cfg: CostedStack, plans: list[CostedPlan], runs: dict[str, Any] | None, book: PriceBook) -> dict[str, Any]:
    runs = runs or {}
    jobs: dict[str, Any] = {}
    sweeps: dict[str, dict[str, Any]] = {}
    totals: dict[str, Decimal] = {}
    node_hours_all = Decimal(0)
    for p in plans:
        records = runs.get(p.key)
        latest = records[-1] if isinstance(records, list) and records and isinstance(records[-1], dict) else {}
        duration = latest.get("duration_s")
        pool = cfg.pools[(cfg.sweeps[p.sweep] if p.sweep else cfg.jobs[p.key]).pool]
        nodes = p.args.node_count
        price = book.prices.get(pool.flavor) if pool.flavor and pool.create is None and pool.pool_id is None else None
        entry: dict[str, Any] = {"jobId": latest.get("job_id"), "nodes": nodes, "durationSeconds": duration,
                                 "nodeHours": None, "pricePerNodeHour": None, "currency": None, "cost": None,
                                 "sweep": p.sweep, "note": None}
        if pool.create is not None or pool.pool_id is not None:
            entry["note"] = "billed by the pool"
        elif price is None:
            entry["note"] = f"no price for {pool.flavor}"
        else:
            entry["pricePerNodeHour"], entry["currency"] = float(price.per_node_hour), price.currency
        history, summed = _runs(records if isinstance(records, list) else [], nodes, price)
        node_hours_all += summed.node_hours
        if price is not None and summed.runs:  # every run on record, the newest one still running or not
            totals[price.currency] = totals.get(price.currency, Decimal(0)) + summed.cost
            if p.sweep:
                s = sweeps.setdefault(p.sweep, {"jobs": 0, "runs": 0, "nodeHours": Decimal(0), "cost": Decimal(0),
                                                 "currency": price.currency})
                s["jobs"] += 1
                s["runs"] += summed.runs
                s["nodeHours"] += summed.node_hours
                s["cost"] += summed.cost
        if isinstance(duration, (int, float)):
            nh = Decimal(str(duration)) / HOUR_S * nodes
            entry["nodeHours"] = _round(nh)
            if price is not None and not entry["note"]:
                entry["cost"] = _money(nh * price.per_node_hour)
        elif not entry["note"]:
            entry["note"] = "no duration yet (not waited for, or not finished)"
        entry["runs"] = history
        jobs[p.key] = entry
    currency = sorted(totals)[0] if len(totals) == 1 else ("CNY" if not totals else "mixed")
    return {"currency": currency, "total": _money(sum(totals.values(), Decimal(0))) if len(totals) <= 1 else None,
            "nodeHours": _round(node_hours_all), "jobs": jobs,
            "sweeps": {k: {**v, "nodeHours": _round(v["nodeHours"]), "cost": _money(v["cost"])}
                       for k, v in sorted(sweeps.items())},
            "searches": {p.key: jobs[p.key] for p in plans if p.search is not None}}


def export_cost(cfg: CostedStack, plans: list[CostedPlan], waited: Any, book: PriceBook | None) -> None:
    """`pulumi.export("cost", ...)` when prices were read this run and the stack waits for its jobs."""
    import pulumi

    if book is None or waited is None:
        return
    pulumi.export("cost", waited.runs.apply(lambda runs: build(cfg, plans, runs, book)))

"""What the runs spent: the service's duration x nodes x price per run, summed per sweep and stack; jobs on a
pool are billed by the pool; a run without a duration costs nothing yet. And the lines results/status print."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from modelarts_provider.cost.prices import Price, PriceBook
from modelarts_provider.cost.show import cost_lines, history_cost_lines, total_line
from modelarts_provider.cost.spent import build
from modelarts_provider.stack.config import parse
from modelarts_provider.stack.program import plan

GPU = "modelarts.p3.large.public"
ENGINE = {"name": "PyTorch", "version": "pytorch_1.8.0-cuda_10.2-py_3.7-ubuntu_18.04-x86_64"}
BOOK = PriceBook(prices={GPU: Price(Decimal("12.5"), "CNY", "billing service")})


def _job(**kw: Any) -> dict[str, Any]:
    return {"pool": "gpu", "codeDir": "obs://bkt/c/", "bootFile": "train.py", "engine": ENGINE, **kw}


def _cfg() -> Any:
    return parse({"obs": {"m": {"bucket": "bkt"}}, "pools": {"gpu": {"flavor": GPU, "maxNodes": 2}, "ded": {"flavor": GPU, "poolId": "pool-1"}},
                  "jobs": {"a": _job(nodes=2), "d": _job(pool="ded"), "w": _job()},
                  "sweeps": {"s": {**_job(), "grid": {"lr": [1, 2]}}}})


def test_each_run_costs_duration_x_nodes_x_price_and_sweeps_and_the_stack_sum_them() -> None:
    cfg = _cfg()
    plans = plan(cfg)
    keys = [p.key for p in plans if p.sweep == "s"]
    runs = {"a": [{"job_id": "old", "duration_s": 3600, "node_count": 1.0}, {"job_id": "j-a", "duration_s": 1800}],
            "d": [{"job_id": "j-d", "duration_s": 3600}],
            keys[0]: [{"job_id": "j-s0", "duration_s": 360}], keys[1]: [{"job_id": "j-s1", "duration_s": 720}]}
    cost = build(cfg, plans, runs, BOOK)
    a = cost["jobs"]["a"]
    assert (a["jobId"], a["nodes"], a["nodeHours"], a["cost"], a["currency"]) == ("j-a", 2, 1.0, 12.5, "CNY")
    assert cost["jobs"]["d"]["nodeHours"] == 1.0 and cost["jobs"]["d"]["cost"] is None
    assert cost["jobs"]["d"]["note"] == "billed by the pool"
    assert cost["jobs"]["w"]["cost"] is None and "no duration yet" in cost["jobs"]["w"]["note"]
    assert cost["sweeps"]["s"] == {"jobs": 2, "nodeHours": 0.3, "cost": 3.75, "currency": "CNY"}
    assert cost["total"] == 16.25 and cost["currency"] == "CNY" and cost["nodeHours"] == 2.3

    lines = cost_lines(cost, "s")
    assert lines[1:] == [f"{keys[0]}: 0.1000 node-hours x 12.50 CNY = 1.25 CNY",
                         f"{keys[1]}: 0.2000 node-hours x 12.50 CNY = 2.50 CNY",
                         "s: 3.75 CNY in all (0.3000 node-hours, 2 jobs)"]
    assert cost_lines(cost, "a")[1:] == ["a: 1.0000 node-hours x 12.50 CNY = 12.50 CNY"]
    assert cost_lines(cost, "d")[1:] == ["d: 1.0000 node-hours, billed by the pool"]
    assert total_line(cost).startswith("spent: 16.25 CNY (2.3000 node-hours")
    assert cost_lines(None, "s") == [] and total_line({}) is None

    # the run history: every run priced with its own node count (the newest's falls back to the declared one)
    assert a["runs"] == [{"jobId": "old", "nodes": 1, "durationSeconds": 3600, "nodeHours": 1.0, "cost": 12.5},
                         {"jobId": "j-a", "nodes": 2, "durationSeconds": 1800, "nodeHours": 1.0, "cost": 12.5}]
    assert history_cost_lines(cost, "a")[1:] == ["#1 old: 1.0000 node-hours = 12.50 CNY",
                                                 "#2 j-a: 1.0000 node-hours = 12.50 CNY"]
    assert history_cost_lines(cost, "w") == [] and history_cost_lines(None, "a") == []


def test_printed_cents_round_half_up_from_the_exported_value() -> None:
    """1.575 CNY (7 x 0.225) prints 1.58, not the 1.57 of the float's binary form: each printed figure is within
    half a cent of the export, and the sum of the printed points matches the sum printed."""
    cost = {"currency": "CNY", "total": 1.575, "nodeHours": 3.5,
            "jobs": {"p": {"nodeHours": 0.5, "pricePerNodeHour": 0.45, "currency": "CNY", "cost": 0.225, "sweep": "s"}},
            "sweeps": {"s": {"jobs": 1, "nodeHours": 0.5, "cost": 0.225, "currency": "CNY"}}}
    assert total_line(cost).startswith("spent: 1.58 CNY")
    assert cost_lines(cost, "s")[1:] == ["p: 0.5000 node-hours x 0.45 CNY = 0.23 CNY",
                                         "s: 0.23 CNY in all (0.5000 node-hours, 1 jobs)"]

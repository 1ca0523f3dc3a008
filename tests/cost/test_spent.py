"""What the runs spent: the service's duration x nodes x price per run, summed per sweep and stack over every run
on record (not only each key's newest); jobs on a pool are billed by the pool; a run without a duration costs
nothing yet. And the lines results/status print, where a non-zero amount never reads 0.00."""

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
    assert cost["sweeps"]["s"] == {"jobs": 2, "runs": 2, "nodeHours": 0.3, "cost": 3.75, "currency": "CNY"}
    # every run on record: a's earlier run (1 node x 1 h, 12.50) too, beside its newest (2 x 0.5 h, 12.50)
    assert cost["total"] == 28.75 and cost["currency"] == "CNY" and cost["nodeHours"] == 3.3

    lines = cost_lines(cost, "s")
    assert lines[1:] == [f"{keys[0]}: 0.1000 node-hours x 12.50 CNY = 1.25 CNY",
                         f"{keys[1]}: 0.2000 node-hours x 12.50 CNY = 2.50 CNY",
                         "s: 3.75 CNY in all (0.3000 node-hours, 2 jobs)"]
    assert cost_lines(cost, "a")[1:] == ["a: 1.0000 node-hours x 12.50 CNY = 12.50 CNY"]
    assert cost_lines(cost, "d")[1:] == ["d: 1.0000 node-hours, billed by the pool"]
    assert total_line(cost).startswith("spent: 28.75 CNY (3.3000 node-hours, every run on record")
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


def test_a_sweep_and_the_stack_count_every_run_even_while_the_newest_runs() -> None:
    """A point edited and re-run: its earlier run was billed; the newest, still running, has no cost yet."""
    cfg = _cfg()
    plans = plan(cfg)
    keys = [p.key for p in plans if p.sweep == "s"]
    runs = {keys[0]: [{"job_id": "s0-1", "duration_s": 360, "node_count": 1}, {"job_id": "s0-2", "duration_s": 360}],
            keys[1]: [{"job_id": "s1-1", "duration_s": 720, "node_count": 1}, {"job_id": "s1-2"}]}  # s1-2 running
    cost = build(cfg, plans, runs, BOOK)
    assert cost["sweeps"]["s"] == {"jobs": 2, "runs": 3, "nodeHours": 0.4, "cost": 5.0, "currency": "CNY"}
    assert cost["total"] == 5.0 and cost["jobs"][keys[1]]["cost"] is None
    assert cost_lines(cost, "s")[-1] == "s: 5.00 CNY in all (0.4000 node-hours, 2 jobs, 3 runs on record)"


def test_a_small_cost_is_never_printed_as_zero() -> None:
    """10 s of a 0.45 CNY/node-hour flavor is 0.00125 CNY: exported to the sixth place, printed as 0.0013."""
    cpu = "modelarts.vm.cpu.2u"
    cfg = parse({"obs": {"m": {"bucket": "bkt"}}, "pools": {"cpu": {"flavor": cpu}},
                 "jobs": {"t": {**_job(), "pool": "cpu"}}})
    book = PriceBook(prices={cpu: Price(Decimal("0.45"), "CNY", "billing service")})
    cost = build(cfg, plan(cfg), {"t": [{"job_id": "j", "duration_s": 10}]}, book)
    assert cost["jobs"]["t"]["cost"] == 0.00125 and cost["total"] == 0.00125
    assert total_line(cost).startswith("spent: 0.0013 CNY (0.0028 node-hours")
    assert cost_lines(cost, "t")[1:] == ["t: 0.0028 node-hours x 0.45 CNY = 0.0013 CNY"]
    assert history_cost_lines(cost, "t")[1:] == ["#1 j: 0.0028 node-hours = 0.0013 CNY"]
    assert total_line({**cost, "total": 0.0}).startswith("spent: 0.00 CNY")  # nothing spent is zero


def test_amounts_print_in_cents_and_small_ones_with_two_digits() -> None:
    from modelarts_provider.cost.money import bound, spent

    assert [spent(v) for v in (0, 0.001, 0.00449, 0.005, 1.575, 30018)] == [
        "0.00", "0.001", "0.0045", "0.01", "1.58", "30,018.00"]
    # a bound is rounded up: never printed below what it holds
    assert [bound(Decimal(v)) for v in ("0", "0.0041", "0.0061", "1.231", "1.2")] == [
        "0.00", "0.0041", "0.0061", "1.24", "1.20"]
    assert bound(None) == "0.00"

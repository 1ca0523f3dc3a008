"""The bound of each declared thing, the total and the budget's one line (unit tests: no engine, no service)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from modelarts_provider.cost.items import total_lines
from modelarts_provider.cost.stack_cost import items
from modelarts_provider.cost.budget import refusal
from modelarts_provider.cost.prices import Price, PriceBook
from modelarts_provider.stack.config import parse
from modelarts_provider.stack.program import plan

GPU = "modelarts.p3.large.public"
CPU = "modelarts.vm.cpu.2u"
POOL = "modelarts.vm.gpu.tnt004"
BOOK = PriceBook(prices={GPU: Price(Decimal("12.5"), "CNY", "billing service"),
                         CPU: Price(Decimal("0.45"), "CNY", "billing service"),
                         POOL: Price(Decimal("9.6"), "CNY", "billing service")})
ENGINE = {"name": "PyTorch", "version": "pytorch_1.8.0-cuda_10.2-py_3.7-ubuntu_18.04-x86_64"}


def _job(**kw: Any) -> dict[str, Any]:
    return {"pool": "gpu", "codeDir": "mnist/", "bootFile": "train.py", "engine": ENGINE, **kw}


def _stack(**raw: Any) -> Any:
    base = {"obs": {"main": {"bucket": "bkt"}},
            "pools": {"gpu": {"flavor": GPU, "maxNodes": 2}, "cpu": {"flavor": CPU, "maxNodes": 4}}}
    cfg = parse({**base, **raw})
    return cfg, items(cfg, plan(cfg), BOOK)


def test_a_sweep_is_its_points_times_nodes_times_deadline_times_price() -> None:
    grid = {"lr": [0.1, 0.01, 0.001, 0.0001], "bs": [1, 2, 3, 4]}
    _, (sweep,) = _stack(sweeps={"lr-sweep": {**_job(nodes=2, waitFor="completed", waitTimeoutSeconds=6 * 3600),
                                              "grid": grid}})
    assert sweep.bound == Decimal("2400")
    assert sweep.line() == ("lr-sweep: 16 jobs x 2 nodes x 6 h max (enforced by the service: autoStop 6 h) x 12.50 CNY/node-hour = up to 2,400.00 CNY")


def test_the_bound_is_the_limit_the_service_enforces() -> None:
    # a: autoStopHours below the deadline; b: the deadline rounded up to 1 h (the wait ends it at 30 min, but the
    # service's 1 h is what holds with no process of ours running); c: autoStopHours alone; d: nothing stops it.
    _, found = _stack(jobs={
        "a": _job(waitFor="completed", waitTimeoutSeconds=7200, autoStopHours=1),
        "b": _job(waitFor="completed", waitTimeoutSeconds=1800, autoStopHours=3),
        "c": _job(waitFor="running", autoStopHours=3),
        "d": _job(waitFor="running", waitTimeoutSeconds=60)})
    assert [it.hours for it in found] == [Decimal(1), Decimal(1), Decimal(3), None]
    assert [it.enforcement for it in found] == [
        "enforced by the service: autoStop 1 h, before the wait's deadline of 2 h",
        "enforced by the service: autoStop 1 h; the wait terminates it at "
        "30 min", "enforced by the service: autoStop 3 h", ""]


def test_a_job_without_a_deadline_shows_its_rate_and_no_upper_bound() -> None:
    _, (job,) = _stack(jobs={"mnist": _job(pool="cpu", nodes=2, waitFor="running")})
    assert job.bound is None and job.hourly == Decimal("0.90")
    assert job.line() == ("mnist: 1 job x 2 nodes x 0.45 CNY/node-hour = 0.90 CNY per hour, no upper bound (set "
                          "modelarts-jobs:jobs.mnist.autoStopHours, or waitFor: completed with "
                          "modelarts-jobs:jobs.mnist.waitTimeoutSeconds)")


def test_a_created_pool_bills_per_hour_and_its_jobs_nothing_more() -> None:
    cfg, found = _stack(networks={"n": {}}, pools={"own": {"create": {"flavor": POOL, "nodes": 2, "network": "n"}}},
                        jobs={"a": _job(pool="own", waitFor="completed")})
    job, pool = found
    assert job.line() == "a: 1 job on pool own: billed by the pool" and job.bound is None
    assert pool.hourly == Decimal("19.2") and pool.bound is None
    assert "19.20 CNY per hour, while it exists (set modelarts-jobs:budget.poolHours" in pool.line()
    assert total_lines(found) == ["total: up to 0.00 CNY, plus 19.20 CNY per hour without an upper bound"]


def test_a_search_is_one_job_whose_deadline_bounds_every_trial() -> None:
    search = {"objective": {"name": "acc", "regex": "acc=([0-9.]+)", "goal": "max"},
              "space": {"lr": {"choice": [0.1, 0.01]}}, "algorithm": {"name": "tpe_search"}, "trials": 8, "parallel": 2}
    _, (tune,) = _stack(jobs={"tune": _job(waitFor="completed", waitTimeoutSeconds=3600, search=search)})
    assert tune.kind == "search" and tune.bound == Decimal("12.5")
    assert "(a search: every trial in this job, 8 trials, 2 at once)" in tune.line()


def test_the_total_adds_the_bounds() -> None:
    _, found = _stack(jobs={"a": _job(waitFor="completed", waitTimeoutSeconds=3600),
                            "b": _job(pool="cpu", nodes=4, autoStopHours=2)})
    assert total_lines(found) == ["total: up to 16.10 CNY"]


def test_a_budget_below_the_bound_names_the_total_and_the_three_largest() -> None:
    cfg, found = _stack(budget={"max": 100}, jobs={
        "a": _job(waitFor="completed", waitTimeoutSeconds=3600 * 4),          # 50
        "b": _job(nodes=2, waitFor="completed", waitTimeoutSeconds=3600 * 2),  # 50
        "c": _job(pool="cpu", autoStopHours=10),                                # 4.5
        "d": _job(pool="cpu", autoStopHours=1)})                                # 0.45
    assert refusal(cfg.budget, found) == ("modelarts-jobs:budget: the stack can bill up to 104.95 CNY, more than its "
                                          "budget of 100.00 CNY; largest: a 50.00, b 50.00, c 4.50")
    cfg, found = _stack(budget={"max": 105}, jobs={"a": _job(waitFor="completed", waitTimeoutSeconds=3600)})
    assert refusal(cfg.budget, found) is None


def test_under_a_budget_an_unbounded_item_names_the_field_to_set() -> None:
    cfg, found = _stack(budget={"max": 100}, jobs={"a": _job(waitFor="running")})
    assert refusal(cfg.budget, found) == ("modelarts-jobs:budget: modelarts-jobs:jobs.a has no upper bound: set "
                                          "modelarts-jobs:jobs.a.autoStopHours, or waitFor: completed with "
                                          "modelarts-jobs:jobs.a.waitTimeoutSeconds")
    cfg, found = _stack(budget={"max": 100}, networks={"n": {}},
                        pools={"own": {"create": {"flavor": POOL, "nodes": 1, "network": "n"}}})
    assert refusal(cfg.budget, found).endswith("modelarts-jobs:pools.own has no upper bound: set "
                                               "modelarts-jobs:budget.poolHours to bound it")
    cfg, found = _stack(budget={"max": 100, "poolHours": 5}, networks={"n": {}},
                        pools={"own": {"create": {"flavor": POOL, "nodes": 1, "network": "n"}}})
    assert refusal(cfg.budget, found) is None and found[0].bound == Decimal("48.0")


def test_under_a_budget_an_unpriced_item_or_another_currency_is_refused() -> None:
    cfg = parse({"obs": {"m": {"bucket": "bkt"}}, "pools": {"x": {"flavor": "modelarts.unknown"}}, "budget": {"max": 1},
                 "jobs": {"a": _job(pool="x", autoStopHours=1)}})
    found = items(cfg, plan(cfg), BOOK)
    assert refusal(cfg.budget, found) == ("modelarts-jobs:budget: modelarts-jobs:jobs.a has no price for "
                                          "modelarts.unknown (see above): set modelarts-jobs:prices.modelarts.unknown"
                                          ".perNodeHour, or make the billing service reachable")
    cfg, found = _stack(budget={"max": 100, "currency": "EUR"}, jobs={"a": _job(autoStopHours=1)})
    assert "is priced in CNY, the budget in EUR" in refusal(cfg.budget, found)


def test_the_cost_keys_are_checked_as_the_rest_of_the_stack_config() -> None:
    import pytest

    from modelarts_provider.stack.config import StackConfigError

    for raw, line in (({"budget": {"max": 0}}, "modelarts-jobs:budget.max: must be greater than 0, not 0"),
                      ({"budget": {"max": 1, "curency": "EUR"}}, "modelarts-jobs:budget.curency: unknown key "
                                                                  "(did you mean currency?)"),
                      ({"budget": {"max": 1, "currency": "yuan"}}, "modelarts-jobs:budget.currency: must be a "
                                                                    "currency code of three capital letters"),
                      ({"prices": {GPU: {"perNodeHour": -1}}}, f"modelarts-jobs:prices.{GPU}.perNodeHour: must be "
                                                               "at least 0, not -1")):
        with pytest.raises(StackConfigError) as err:
            parse(raw)
        assert line in str(err.value) and len(str(err.value).splitlines()) == 1


def test_a_sweeps_own_budget_holds_its_bound_alone() -> None:
    from modelarts_provider.cost.budget import first_refusal

    grid = {"lr": [1, 2, 3, 4]}
    cfg, found = _stack(sweeps={"lr": {**_job(waitFor="completed", waitTimeoutSeconds=3600), "grid": grid,
                                       "budget": {"max": 40}}},
                        jobs={"a": _job(waitFor="completed", waitTimeoutSeconds=3600 * 8)})
    sweeps = {"lr": cfg.sweeps["lr"].budget}
    assert first_refusal(None, sweeps, found) == ("modelarts-jobs:sweeps.lr.budget: the sweep can bill up to 50.00 "
                                                  "CNY, more than its budget of 40.00 CNY; largest: lr 50.00")
    sweeps["lr"] = sweeps["lr"].model_copy(update={"max": 50})
    assert first_refusal(None, sweeps, found) is None  # the job a (100 CNY) is not the sweep's
    assert first_refusal(cfg.sweeps["lr"].budget.model_copy(update={"max": 120}), sweeps, found).startswith(
        "modelarts-jobs:budget: the stack can bill up to 150.00 CNY")


def test_a_searchs_own_budget_holds_its_bound_alone() -> None:
    """jobs.<key>.search.budget: the search's bound (its job's nodes x deadline x price) must fit, by the same
    rules as a sweep's; it is not sent to the service."""
    from modelarts_provider.cost.preview import own_budgets
    from modelarts_provider.cost.budget import first_refusal

    search = {"objective": {"name": "acc", "regex": "acc=([0-9.]+)", "goal": "max"},
              "space": {"lr": {"choice": [0.1, 0.01]}}, "algorithm": {"name": "tpe_search"}, "trials": 8,
              "parallel": 2, "budget": {"max": 20}}
    cfg, found = _stack(jobs={"tune": _job(nodes=2, waitFor="completed", waitTimeoutSeconds=3600, search=search),
                              "a": _job(waitFor="completed", waitTimeoutSeconds=3600 * 8)})
    assert own_budgets(cfg) == {"tune": cfg.jobs["tune"].search.budget}
    assert first_refusal(None, own_budgets(cfg), found) == (
        "modelarts-jobs:jobs.tune.search.budget: the search can bill up to 25.00 CNY, more than its budget of "
        "20.00 CNY; largest: tune 25.00")
    assert "budget" not in str(cfg.jobs["tune"].search.auto_search())  # not part of the create request
    # unbounded under its own budget: names the field to set
    cfg, found = _stack(jobs={"tune": _job(search=search)})
    assert first_refusal(None, own_budgets(cfg), found) == (
        "modelarts-jobs:jobs.tune.search.budget: modelarts-jobs:jobs.tune has no upper bound: set "
        "modelarts-jobs:jobs.tune.autoStopHours, or waitFor: completed with modelarts-jobs:jobs.tune.waitTimeoutSeconds")
    ok = {**search, "budget": {"max": 30}}
    cfg, found = _stack(jobs={"tune": _job(nodes=2, waitFor="completed", waitTimeoutSeconds=3600, search=ok)})
    assert first_refusal(None, own_budgets(cfg), found) is None

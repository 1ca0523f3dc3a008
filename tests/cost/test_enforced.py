"""The service's own limit (spec.auto_stop) derived from a job's wait deadline, once for both front doors, and the
preview line that says who keeps the bound (unit tests: no engine, no service)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from modelarts_provider.cost.bounds import items
from modelarts_provider.cost.enforced import bound_of, carried, derived_hours, duration_text
from modelarts_provider.cost.plugin_cost import enforced_inputs, job_items
from modelarts_provider.cost.prices import Price, PriceBook
from modelarts_provider.cost.recorded import Recorded, jobs_of
from modelarts_provider.stack.config import parse
from modelarts_provider.stack.program import plan

CPU = "modelarts.vm.cpu.2u"
BOOK = PriceBook(prices={CPU: Price(Decimal("0.45"), "CNY", "billing service")})
ENGINE = {"name": "PyTorch", "version": "pytorch_1.8.0-cuda_10.2-py_3.7-ubuntu_18.04-x86_64"}
SEARCH = {"objective": {"name": "accuracy", "regex": "accuracy=([0-9.]+)", "goal": "max"},
          "space": {"lr": {"choice": [0.1, 0.01]}}, "algorithm": {"name": "tpe_search"}, "trials": 4, "parallel": 2}


def _job(**kw: Any) -> dict[str, Any]:
    return {"pool": "cpu", "codeDir": "mnist/", "bootFile": "train.py", "engine": ENGINE, **kw}


def _cfg(jobs: dict[str, Any] | None = None, sweeps: dict[str, Any] | None = None) -> Any:
    return parse({"obs": {"main": {"bucket": "bkt"}}, "pools": {"cpu": {"flavor": CPU, "maxNodes": 4}},
                  "jobs": jobs or {}, "sweeps": sweeps or {}})


@pytest.mark.parametrize(("wait_for", "wait_s", "declared", "search", "hours"), [
    ("completed", 20, None, False, 1),            # the API's minimum: 1 h
    ("completed", 3600, None, False, 1),          # exactly an hour
    ("completed", 3601, None, False, 2),          # rounded up, never down
    ("completed", 7.5 * 3600, None, False, 8),
    ("completed", 7.5 * 3600, 3, False, 3),       # the user's own limit when it is less
    ("completed", 20, 5, False, 1),               # the deadline's when that is less
    ("running", 20, None, False, None),           # no deadline that terminates it: nothing derived
    ("running", 20, 4, False, 4),                 # the user's own, as given
    ("completed", 20, None, True, None),          # a search: no limit derived (docs/cost.md)
    ("completed", 20, 2, True, 2),
])
def test_the_limit_is_the_deadline_rounded_up_to_hours_unless_the_user_set_less(
        wait_for: str, wait_s: float, declared: int | None, search: bool, hours: int | None) -> None:
    assert derived_hours(wait_for, wait_s, declared, search) == hours


def test_a_new_job_gets_the_derived_limit_a_recorded_one_keeps_its_own() -> None:
    assert carried(False, None, None, 1) == 1         # new: derived
    assert carried(True, None, None, 1) is None       # recorded without a limit: no replacement by a bound
    assert carried(True, 1, None, 2) == 1             # its wait deadline moved: keeps its limit
    assert carried(True, 2, None, 2) == 2             # unchanged
    assert carried(True, 3, 3, 1) == 3                # recorded with the user's own (before limits were derived)
    assert carried(True, 3, 5, 5) == 5                # the user changed autoStopHours: replaced, as always
    assert carried(True, None, 5, 1) == 1             # the user added autoStopHours: replaced, as always


def test_the_stack_program_sends_the_limit_and_the_preview_line_states_it() -> None:
    cfg = _cfg(jobs={"quick": _job(waitFor="completed", waitTimeoutSeconds=20),
                     "long": _job(waitFor="completed", waitTimeoutSeconds=5400, autoStopHours=9),
                     "free": _job(waitFor="running")},
               sweeps={"lr": {**_job(waitFor="completed", waitTimeoutSeconds=4000), "grid": {"lr": [0.1, 0.2]}}})
    plans = plan(cfg)
    sent = {p.key: p.args.auto_stop.model_dump() if p.args.auto_stop else None for p in plans}
    assert sent["quick"] == {"time_unit": "HOURS", "duration": 1}
    assert sent["long"] == {"time_unit": "HOURS", "duration": 2}
    assert sent["free"] is None
    assert {v["duration"] for k, v in sent.items() if k.startswith("lr-")} == {2}
    lines = {it.name: it.line() for it in items(cfg, plans, BOOK)}
    assert lines["quick"] == ("quick: 1 job x 1 node x 1 h max (enforced by the service: autoStop 1 h; the wait "
                              "terminates it at 20 s) x 0.45 CNY/node-hour = up to 0.45 CNY")
    assert lines["long"] == ("long: 1 job x 1 node x 2 h max (enforced by the service: autoStop 2 h; the wait "
                             "terminates it at 1.5 h) x 0.45 CNY/node-hour = up to 0.90 CNY")
    assert lines["lr"].startswith("lr: 2 jobs x 1 node x 2 h max (enforced by the service: autoStop 2 h; the wait "
                                  "terminates it at 1.11 h)")
    assert "no upper bound" in lines["free"]
    adopted = plan(_cfg(jobs={"a": _job(waitFor="completed", waitTimeoutSeconds=20, adoptJobId="job-0001")}))
    assert adopted[0].args.auto_stop is None  # it runs already: a derived limit would not match it


def test_a_recorded_job_keeps_its_limit_and_the_line_says_the_service_does_not_enforce_the_deadline() -> None:
    cfg = _cfg(jobs={"old": _job(waitFor="completed", waitTimeoutSeconds=20),
                     "moved": _job(waitFor="completed", waitTimeoutSeconds=20, movedFrom=["before"]),
                     "new": _job(waitFor="completed", waitTimeoutSeconds=20)})
    plans = plan(cfg, Recorded({"old": None, "before": None}))
    sent = {p.key: p.args.auto_stop for p in plans}
    assert sent["old"] is None and sent["moved"] is None and sent["new"] is not None
    line = next(it.line() for it in items(cfg, plans, BOOK) if it.name == "old")
    assert line.startswith("old: 1 job x 1 node x 0.01 h max (not enforced by the service: this job was submitted "
                           "without autoStop"), line
    assert line.endswith("the wait terminates it at 20 s) x 0.45 CNY/node-hour = up to 0.0025 CNY"), line
    # recorded with 1 h, its deadline since raised to 2 h: it keeps 1 h (no re-run), and the line says the service
    # stops it first
    raised = _cfg(jobs={"old": _job(waitFor="completed", waitTimeoutSeconds=7200)})
    (it,) = items(raised, plan(raised, Recorded({"old": 1})), BOOK)
    assert it.line() == ("old: 1 job x 1 node x 1 h max (enforced by the service: autoStop 1 h, before the wait's "
                         "deadline of 2 h) x 0.45 CNY/node-hour = up to 0.45 CNY")
    # the state unreadable: every job is taken as recorded; nothing is replaced by a bound
    assert all(p.args.auto_stop is None for p in plan(cfg, Recorded({}, readable=False)))


def test_a_search_says_its_deadline_is_not_enforced_by_the_service() -> None:
    cfg = _cfg(jobs={"tune": _job(waitFor="completed", waitTimeoutSeconds=1800, search=SEARCH)})
    plans = plan(cfg)
    assert plans[0].args.auto_stop is None
    (it,) = items(cfg, plans, BOOK)
    assert it.hours == Decimal("0.5")
    assert "0.5 h max (not enforced by the service: a search's trials have no running-time limit in the service; " \
           "the wait terminates it at 30 min)" in it.line(), it.line()


def test_a_created_pools_hours_are_not_enforced_by_the_service() -> None:
    cfg = parse({"networks": {"n": {}}, "pools": {"own": {"create": {"flavor": CPU, "nodes": 2, "network": "n"}}},
                 "budget": {"max": 100, "poolHours": 3}})
    (pool,) = items(cfg, plan(cfg), BOOK)
    assert "3 h max (not enforced by the service: a pool has no running-time limit; destroy deletes it)" in pool.line()


def test_the_plugin_door_derives_the_same_limit_and_a_recorded_job_keeps_its_own() -> None:
    news = {"flavor_id": CPU, "wait_for": "completed", "wait_timeout_seconds": 20.0}
    assert enforced_inputs({}, news)["auto_stop"] == {"time_unit": "HOURS", "duration": 1}
    assert enforced_inputs({}, {**news, "wait_timeout_seconds": 9000.0})["auto_stop"]["duration"] == 3
    assert enforced_inputs({}, {**news, "wait_for": None} | {"wait_for": "running"}) == {**news, "wait_for": "running"}
    assert enforced_inputs({}, {**news, "auto_stop": {"duration": 5}})["auto_stop"]["duration"] == 1
    assert "auto_stop" not in enforced_inputs({}, {**news, "adopt_job_id": "job-1"})  # it runs already
    recorded = {**news, "job_id": "j-1"}  # an earlier up, without a limit
    assert "auto_stop" not in enforced_inputs(recorded, news)
    limited = {"auto_stop": {"time_unit": "HOURS", "duration": 1}}  # recorded with 1 h; its deadline moved to 2.5 h
    assert enforced_inputs(limited, {**news, "wait_timeout_seconds": 9000.0})["auto_stop"]["duration"] == 1
    from modelarts_provider.core.unknowns import UNKNOWN

    assert enforced_inputs({}, {**news, "wait_timeout_seconds": UNKNOWN}) == {**news, "wait_timeout_seconds": UNKNOWN}
    (it,) = job_items("quick", enforced_inputs({}, news), BOOK)
    assert it.line() == ("quick: 1 job x 1 node x 1 h max (enforced by the service: autoStop 1 h; the wait terminates "
                         "it at 20 s) x 0.45 CNY/node-hour = up to 0.45 CNY")


def test_the_bound_used_for_a_budget_is_the_enforced_one_not_the_nearer_deadline() -> None:
    b = bound_of("completed", 20, {"time_unit": "HOURS", "duration": 1}, False)
    assert b.hours == Decimal(1) and b.enforced == 1


def test_recorded_jobs_are_read_from_either_front_doors_state() -> None:
    deployment = {"resources": [
        {"urn": "urn:pulumi:s::p::pulumi-python:dynamic/modelarts:TrainingJob::a", "type":
         "pulumi-python:dynamic/modelarts:TrainingJob", "inputs": {"auto_stop": {"duration": 2}}},
        {"urn": "urn:pulumi:s::p::modelarts:index:TrainingJob::b", "type": "modelarts:index:TrainingJob",
         "inputs": {"autoStop": {"timeUnit": "HOURS", "duration": 1}}},
        {"urn": "urn:pulumi:s::p::modelarts:index:TrainingJob::c", "type": "modelarts:index:TrainingJob", "inputs": {}},
        {"urn": "urn:pulumi:s::p::modelarts:index:TrainingJob::d", "type": "modelarts:index:TrainingJob",
         "inputs": {}, "delete": True},
        {"urn": "urn:pulumi:s::p::modelarts:index:Bucket::e", "type": "modelarts:index:Bucket", "inputs": {}}]}
    assert jobs_of(deployment) == {"a": 2, "b": 1, "c": None}


def test_durations_read_as_a_person_reads_them() -> None:
    assert [duration_text(s) for s in (20, 59.5, 60, 1800, 4000, 3600, 5400)] == [
        "20 s", "59.5 s", "1 min", "30 min", "1.11 h", "1 h", "1.5 h"]

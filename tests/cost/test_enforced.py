"""The service's own limit (spec.auto_stop) derived from a job's wait deadline, once for both front doors, and the
preview line that says who keeps the bound (unit tests: no engine, no service)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from modelarts_provider.cost.stack_cost import items
from modelarts_provider.cost.enforced import bound_of, duration_text
from modelarts_provider.cost.plugin_cost import job_items
from modelarts_provider.cost.prices import Price, PriceBook
from modelarts_provider.cost.recorded import Recorded
from modelarts_provider.stack.config import parse
from modelarts_provider.stack.program import plan
from modelarts_provider.training_job.service_limit import carried, derived_hours, with_service_limit

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
    assert carried(False, None, None, 1) == 1         # new (a replacement too): derived
    assert carried(True, None, None, 1) is None       # recorded without a limit: no replacement by a bound
    assert carried(True, 1, None, 2) == 1             # its wait deadline moved: keeps its limit
    assert carried(True, 2, None, 2) == 2             # unchanged
    assert carried(True, 3, 3, 1) == 3                # recorded with the user's own (before limits were derived)
    assert carried(True, 3, 5, 5) == 5                # the user changed autoStopHours: replaced, as always
    assert carried(True, None, 5, 1) == 1             # the user added autoStopHours: replaced, as always


def _sent(p: Any, rec: Recorded = Recorded()) -> Any:
    """The auto_stop the TrainingJob's check sends for a plan's job (what the preview prices)."""
    from modelarts_provider.cost.stack_cost import sent_limit

    return sent_limit(p, rec)


def test_the_program_sends_the_users_limit_the_check_adds_the_derived_one_and_the_line_states_it() -> None:
    cfg = _cfg(jobs={"quick": _job(waitFor="completed", waitTimeoutSeconds=20),
                     "long": _job(waitFor="completed", waitTimeoutSeconds=5400, autoStopHours=9),
                     "free": _job(waitFor="running")},
               sweeps={"lr": {**_job(waitFor="completed", waitTimeoutSeconds=4000), "grid": {"lr": [0.1, 0.2]}}})
    plans = plan(cfg)
    declared = {p.key: p.args.auto_stop.model_dump() if p.args.auto_stop else None for p in plans}
    assert declared == {"quick": None, "long": {"time_unit": "HOURS", "duration": 9}, "free": None,
                        **{p.key: None for p in plans if p.sweep}}  # the user's own limit only: no state read
    sent = {p.key: _sent(p) for p in plans}
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
    (adopted,) = plan(_cfg(jobs={"a": _job(waitFor="completed", waitTimeoutSeconds=20, adoptJobId="job-0001")}))
    assert _sent(adopted) is None  # it runs already: a derived limit would not match it


def _state(plans: list[Any], hours: int | None) -> dict[str, Any]:
    """Each plan's job as an up recorded it (a derived name, an owner), with a limit of `hours` (None: none, as an
    up from before limits were derived recorded it)."""
    from modelarts_provider.training_job.normalize import stored_form

    out = {}
    for p in plans:
        args = p.args.model_dump(exclude_none=True, exclude_defaults=True)
        args.pop("auto_stop", None)
        if hours is not None:
            args["auto_stop"] = {"time_unit": "HOURS", "duration": hours}
        out[p.key] = {**stored_form(args), "name": f"{p.key}-abc123", "derived_name": True, "owner": {"token": "t"}}
    return out


def test_a_recorded_job_keeps_its_limit_and_the_line_says_the_service_does_not_enforce_the_deadline() -> None:
    cfg = _cfg(jobs={"old": _job(waitFor="completed", waitTimeoutSeconds=20),
                     "moved": _job(waitFor="completed", waitTimeoutSeconds=20, movedFrom=["before"]),
                     "new": _job(waitFor="completed", waitTimeoutSeconds=20)})
    plans = plan(cfg)
    state = _state(plans, None)
    rec = Recorded({"old": state["old"], "before": state["moved"]})
    sent = {p.key: _sent(p, rec) for p in plans}
    assert sent["old"] is None and sent["moved"] is None and sent["new"] == {"time_unit": "HOURS", "duration": 1}
    line = next(it.line() for it in items(cfg, plans, BOOK, rec=rec) if it.name == "old")
    assert line.startswith("old: 1 job x 1 node x 0.01 h max (not enforced by the service: this job was submitted "
                           "without autoStop"), line
    assert line.endswith("the wait terminates it at 20 s) x 0.45 CNY/node-hour = up to 0.0025 CNY"), line
    # an edit that re-runs it: the new run gets the limit its wait gives it, and the line prices that
    edited = _cfg(jobs={"old": _job(waitFor="completed", waitTimeoutSeconds=20, nodes=2)})
    (again,) = plan(edited)
    assert _sent(again, rec) == {"time_unit": "HOURS", "duration": 1}
    (line,) = [it.line() for it in items(edited, [again], BOOK, rec=rec)]
    assert "2 nodes x 1 h max (enforced by the service: autoStop 1 h;" in line, line
    # recorded with 1 h, its deadline since raised to 2 h: it keeps 1 h (no re-run), and the line says the service
    # stops it first
    raised = _cfg(jobs={"old": _job(waitFor="completed", waitTimeoutSeconds=7200)})
    (it,) = items(raised, plan(raised), BOOK, rec=Recorded(_state(plan(raised), 1)))
    assert it.line() == ("old: 1 job x 1 node x 1 h max (enforced by the service: autoStop 1 h, before the wait's "
                         "deadline of 2 h) x 0.45 CNY/node-hour = up to 0.45 CNY")


def test_the_training_job_check_keeps_a_recorded_jobs_limit_and_a_re_run_gets_the_derived_one() -> None:
    """The rule lives in TrainingJobProvider.check, which both front doors call (the plugin's check calls it too):
    with the recorded inputs, a recorded job keeps its limit (none) and its diff is empty; an edit that re-runs
    it is a replacement, which the engine checks again with no old inputs (pulumi's step generator, "recompute the
    default values"): that check gives the new run the limit derived for its wait."""
    from tests.provider.fixtures.stack_state import program_inputs, provider, recorded

    props = program_inputs()["mnist"]  # waitFor: completed, the default deadline of 1 h
    assert "auto_stop" not in props
    assert provider().check({}, props).inputs["auto_stop"]["duration"] == 1  # stored as canonical (HOURS implied)
    before = {k: v for k, v in recorded("mnist", props).items() if k != "auto_stop"}  # an up from before limits
    kept = provider().check(before, props)
    assert not kept.failures and "auto_stop" not in kept.inputs
    assert provider().diff("id-mnist", before, kept.inputs).changes is False  # not re-run for a derived limit
    edited = {**props, "algorithm": {**props["algorithm"], "parameters": [{"name": "lr", "value": "0.02"}]}}
    checked = provider().check(before, edited)
    assert "auto_stop" not in checked.inputs  # the check with old inputs does not decide the re-run ...
    from modelarts_provider.training_job.diff import decide  # the diff's rule, without its read of the live phase

    assert "algorithm" in decide("id-mnist", before, checked.inputs).replaces  # ... the diff does
    rerun = provider().check({}, edited)  # the engine's check of the replacement
    assert not rerun.failures and rerun.inputs["auto_stop"]["duration"] == 1
    assert rerun.inputs["name"] != kept.inputs["name"]  # a new run


def test_a_search_says_its_deadline_is_not_enforced_by_the_service() -> None:
    cfg = _cfg(jobs={"tune": _job(waitFor="completed", waitTimeoutSeconds=1800, search=SEARCH)})
    plans = plan(cfg)
    assert _sent(plans[0]) is None
    (it,) = items(cfg, plans, BOOK)
    assert it.hours == Decimal("0.5")
    assert "0.5 h max (not enforced by the service: a search's trials have no running-time limit in the service; " \
           "the wait terminates it at 30 min)" in it.line(), it.line()


def test_a_created_pools_hours_are_not_enforced_by_the_service() -> None:
    cfg = parse({"networks": {"n": {}}, "pools": {"own": {"create": {"flavor": CPU, "nodes": 2, "network": "n"}}},
                 "budget": {"max": 100, "poolHours": 3}})
    (pool,) = items(cfg, plan(cfg), BOOK)
    assert "3 h max (not enforced by the service: a pool has no running-time limit; destroy deletes it)" in pool.line()


def test_the_check_derives_the_same_limit_for_the_plugins_inputs_and_a_recorded_job_keeps_its_own() -> None:
    news = {"flavor_id": CPU, "wait_for": "completed", "wait_timeout_seconds": 20.0}
    assert with_service_limit({}, news)["auto_stop"] == {"time_unit": "HOURS", "duration": 1}
    assert with_service_limit(None, {**news, "wait_timeout_seconds": 9000.0})["auto_stop"]["duration"] == 3
    assert with_service_limit({}, {**news, "wait_for": "running"}) == {**news, "wait_for": "running"}
    assert with_service_limit({}, {**news, "auto_stop": {"duration": 5}})["auto_stop"]["duration"] == 1
    assert "auto_stop" not in with_service_limit({}, {**news, "adopt_job_id": "job-1"})  # it runs already
    recorded = {**news, "job_id": "j-1"}  # an earlier up, without a limit
    assert "auto_stop" not in with_service_limit(recorded, news)
    limited = {"auto_stop": {"time_unit": "HOURS", "duration": 1}}  # recorded with 1 h; its deadline moved to 2.5 h
    assert with_service_limit(limited, {**news, "wait_timeout_seconds": 9000.0})["auto_stop"]["duration"] == 1
    from modelarts_provider.core.unknowns import UNKNOWN

    unknown = {**news, "wait_timeout_seconds": UNKNOWN}
    assert with_service_limit({}, unknown) == unknown
    (it,) = job_items("quick", with_service_limit({}, news), BOOK)
    assert it.line() == ("quick: 1 job x 1 node x 1 h max (enforced by the service: autoStop 1 h; the wait terminates "
                         "it at 20 s) x 0.45 CNY/node-hour = up to 0.45 CNY")


def test_the_bound_used_for_a_budget_is_the_enforced_one_not_the_nearer_deadline() -> None:
    b = bound_of("completed", 20, {"time_unit": "HOURS", "duration": 1}, False)
    assert b.hours == Decimal(1) and b.enforced == 1


def test_durations_read_as_a_person_reads_them() -> None:
    assert [duration_text(s) for s in (20, 59.5, 60, 1800, 4000, 3600, 5400)] == [
        "20 s", "59.5 s", "1 min", "30 min", "1.11 h", "1 h", "1.5 h"]

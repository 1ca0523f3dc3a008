"""The /_emulator controls: counters, reset, fault injection, --latency-ms."""

from __future__ import annotations

import time

import pytest
import requests

from tests.emulator.helpers import Api, minimal_job
from modelarts_emulator.testing import running_emulator


def test_counters_count_api_calls_only(api):
    emu = api.emu
    assert emu.counters() == {"create": 0, "get": 0, "terminate": 0, "delete": 0, "update": 0,
                              "search": 0, "logs": 0, "iam_token": 0, "flavors": 0, "engines": 0,
                              "algorithm": 0, "total": 0}
    job_id = api.create(minimal_job()).json()["metadata"]["id"]
    api.get(job_id)
    api.get(job_id)
    api.search({})
    api.update(job_id, {"description": "d"})
    api.terminate(job_id)
    api.delete(job_id)
    emu.jobs()
    counters = emu.counters()
    assert counters == {"create": 1, "get": 2, "terminate": 1, "delete": 1, "update": 1,
                        "search": 1, "logs": 0, "iam_token": 0, "flavors": 0, "engines": 0, "algorithm": 0,
                        "total": 7}


def test_reset_clears_jobs_counters_and_faults(api):
    emu = api.emu
    api.create(minimal_job())
    emu.set_faults([{"operation": "get", "kind": "status", "status": 500, "times": 5}])
    emu.reset()
    assert emu.jobs() == [] and emu.counters()["total"] == 0
    assert api.get("x").status_code == 400  # no 500: faults are gone


def test_429_burst_with_retry_after(api):
    emu = api.emu
    emu.set_faults([{"operation": "create", "kind": "status", "status": 429, "retry_after": 2,
                     "times": 2}])
    for _ in range(2):
        r = api.create(minimal_job("throttled"))
        assert r.status_code == 429
        assert r.headers["Retry-After"] == "2"
        assert r.json() == {"error_msg": r.json()["error_msg"], "error_code": "APIGW.0308",
                            "error_solution": r.json()["error_solution"]}
    assert emu.jobs() == []
    assert api.create(minimal_job("throttled")).status_code == 201
    assert emu.counters()["create"] == 3


@pytest.mark.parametrize("status", [500, 502, 503])
def test_5xx(api, status):
    api.emu.set_faults([{"operation": "any", "kind": "status", "status": status}])
    r = api.get("x")
    assert r.status_code == status and set(r.json()) == {"error_msg", "error_code",
                                                         "error_solution"}
    assert api.get("x").status_code == 400  # times defaults to 1


def test_latency_fault(api):
    api.emu.set_faults([{"operation": "get", "kind": "latency", "latency_ms": 300}])
    t0 = time.monotonic()
    api.get("x")
    assert time.monotonic() - t0 >= 0.3
    assert api.emu._control("GET", "faults")["rules"] == []  # used up: the next call is not delayed


def test_connection_reset(api):
    api.emu.set_faults([{"operation": "get", "kind": "reset"}])
    with pytest.raises(requests.ConnectionError):
        api.get("x")
    assert api.get("x").status_code == 400


def test_drop_after_commit_stores_the_job(api):
    emu = api.emu
    emu.set_faults([{"operation": "create", "kind": "drop_after_commit"}])
    with pytest.raises(requests.ConnectionError):
        api.create(minimal_job("committed"))
    jobs = emu.jobs()
    assert [j["metadata"]["name"] for j in jobs] == ["committed"]
    r = api.search({"filters": [{"key": "name", "operator": "in", "value": ["committed"]}]})
    assert r.json()["total"] == 1


def test_rules_apply_in_order_and_by_operation(api):
    emu = api.emu
    emu.set_faults([{"operation": "search", "kind": "status", "status": 503},
                    {"operation": "any", "kind": "status", "status": 500, "times": 2}])
    assert api.get("x").status_code == 500
    assert api.search({}).status_code == 503
    assert api.search({}).status_code == 500
    assert api.search({}).status_code == 200
    emu.set_faults([{"operation": "get", "kind": "status", "status": 500, "times": 3}])
    emu.clear_faults()
    assert api.get("x").status_code == 400


def test_invalid_fault_rules_rejected(emu):
    for rule in ({"kind": "explode"}, {"status": 418}, {"times": 0}, {"operation": "list"}):
        r = requests.post(f"{emu.url}/_emulator/faults", json={"rules": [rule]})
        assert r.status_code == 400, rule


def test_latency_flag(tmp_path):
    # A latency far beyond any stall of a loaded machine: a control answering well within it was not
    # delayed (a lower bound alone says nothing about the speed of the machine).
    with running_emulator(tmp_path, latency_ms=8000) as emu:
        api = Api(emu)
        t0 = time.monotonic()
        api.get("x")
        assert time.monotonic() - t0 >= 8
        r = requests.get(f"{emu.url}/_emulator/counters", timeout=4)  # controls are not delayed
        assert r.json()["get"] == 1


def test_clock_moves_phases_logs_and_auto_stop_forward(api):
    emu = api.emu
    assert emu.clock()["offset_seconds"] == 0
    done = api.create(minimal_job("held", emulator__run_seconds="600")).json()["metadata"]["id"]
    body = minimal_job("capped", emulator__outcome="hang")
    body["spec"]["auto_stop"] = {"time_unit": "HOURS", "duration": 1}
    capped = api.create(body).json()["metadata"]["id"]
    assert api.phase(done) == "Creating"  # the module's phases last 30 s: nothing moves on its own
    before = emu.clock()["now_ms"]
    moved = emu.advance(60)  # Creating and Pending: 30 s each
    assert moved["offset_seconds"] == 60 and moved["now_ms"] >= before + 60_000
    assert api.phase(done) == "Running" and api.phase(capped) == "Running"
    assert "exited with code" not in api.logs(done).json()["content"]
    api.advance(600)
    assert api.phase(done) == "Completed" and api.phase(capped) == "Running"
    assert api.logs(done).json()["content"].splitlines()[-1].endswith("task worker-0 exited with code 0")
    api.advance(3600)  # past the auto stop hour
    st = api.get(capped).json()["status"]
    assert st["phase"] == "Terminated" and st["duration"] == 3_600_000
    assert "auto stop" in api.logs(capped).json()["content"]
    assert emu.clock()["offset_seconds"] == 4260


def test_clock_only_moves_forward_and_reset_puts_it_back(api):
    emu = api.emu
    emu.advance(1.5)
    for bad in ({"advance_seconds": -1}, {"advance_seconds": "soon"}, {"seconds": 1}, {}):
        r = requests.post(f"{emu.url}/_emulator/clock", json=bad, timeout=10)
        assert r.status_code == 400 and r.json()["error_code"] == "ModelArts.2788", bad
    assert emu.clock()["offset_seconds"] == 1.5
    assert emu.counters()["total"] == 0  # a control, not an API call
    emu.reset()
    assert emu.clock()["offset_seconds"] == 0

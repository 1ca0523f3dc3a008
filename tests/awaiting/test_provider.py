"""JobsAwaitProvider with the replay client on a virtual clock: create/diff/update/read/delete/check."""

from __future__ import annotations

import functools
import sys
import types
from typing import Any

import pytest
from pulumi.output import Unknown

from modelarts_provider.awaiting import provider as provider_mod
from modelarts_provider.awaiting.provider import JobsAwaitProvider
from modelarts_provider.awaiting.watcher import Watcher
from modelarts_provider.core.provider_error import ProviderError
from modelarts_provider.core.unknowns import UNKNOWN
from modelarts_provider.wait_engine import FakeClock

from .replay import ReplayClient


class Env:
    def __init__(self) -> None:
        self.clock = FakeClock()
        self.said: list[str] = []
        self.tails: list[str] = []


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch) -> Env:
    e = Env()
    monkeypatch.delenv("MODELARTS_AWAIT_STRATEGY", raising=False)
    monkeypatch.setattr(provider_mod, "Watcher", functools.partial(Watcher, clock=e.clock))
    monkeypatch.setattr(provider_mod, "engine_alive", lambda: True)
    monkeypatch.setattr(provider_mod, "say", e.said.append)

    def failure_log_tail(client: Any, job: Any, lines: int = 20, known: Any = None) -> str:  # offline: no log request
        e.tails.append(job.id)
        return f"\n    last lines of {job.name}/worker-0:\n    RuntimeError: {job.id} broke"

    # report.py imports modelarts_provider.core.job_logs at the failure; a stand-in module keeps it offline
    monkeypatch.setitem(sys.modules, "modelarts_provider.core.job_logs",
                        types.SimpleNamespace(failure_log_tail=failure_log_tail))
    return e


def entry(job_id: Any, wait_for: str = "completed", name: str | None = None, **over: Any) -> dict[str, Any]:
    return {"job_id": job_id, "job_name": name or f"name-{job_id}", "wait_for": wait_for, "timeout_seconds": 600,
            "poll_seconds": 5, "workspace_id": None, **over}


def replay_job(job_id: str, polls: list[Any], **more: Any) -> dict[str, Any]:
    return {"id": job_id, "name": f"name-{job_id}", "polls": polls, **more}


def provider(client: ReplayClient) -> JobsAwaitProvider:
    p = JobsAwaitProvider()
    p._api = lambda: client  # type: ignore[method-assign]
    return p


def created(env: Env, client: ReplayClient, jobs: dict[str, dict[str, Any]]) -> dict[str, Any]:
    return provider(client).create({"jobs": jobs, "statuses": None, "phases": None}).outs


# --- create -------------------------------------------------------------------------------------


def test_create_waits_for_every_job_and_records_what_it_saw(env):
    client = ReplayClient([replay_job("job-a", ["Pending", "Running", "Completed"]),
                           replay_job("job-b", ["Creating", "Pending"])])
    p = provider(client)
    res = p.create({"jobs": {"a": entry("job-a"), "b": entry("job-b", "created")}, "statuses": None, "phases": None})
    assert res.id.startswith("jobs-await-") and len(res.id) == len("jobs-await-") + 12
    assert res.outs["phases"] == {"a": "Completed", "b": "Pending"}
    assert res.outs["statuses"] == {
        "a": {"job_id": "job-a", "job_name": "name-job-a", "wait_for": "completed", "phase": "Completed",
              "reached": True, "workspace_id": None},
        "b": {"job_id": "job-b", "job_name": "name-job-b", "wait_for": "created", "phase": "Pending",
              "reached": True, "workspace_id": None}}
    assert res.outs["jobs"]["a"]["job_id"] == "job-a"
    assert env.said[0] == "waiting for 2 training jobs: name-job-a (completed), name-job-b (created)"
    assert env.clock.t == 10 and client.calls("get") == {"job-a": 3, "job-b": 2}


def test_create_of_the_same_keys_has_the_same_id(env):
    client = ReplayClient([replay_job("job-a", ["Running"]), replay_job("job-b", ["Running"])])
    one = provider(client).create({"jobs": {"a": entry("job-a", "running"), "b": entry("job-b", "running")}})
    two = provider(client).create({"jobs": {"b": entry("job-b", "running"), "a": entry("job-a", "running")}})
    assert one.id == two.id


def test_a_failure_raises_naming_every_failed_job_with_phase_exit_codes_and_log_tail(env):
    client = ReplayClient([
        replay_job("job-ok", ["Running", "Completed"]),
        replay_job("job-f", ["Running", "Failed"],
                   task_statuses=[{"task": "worker-0", "exit_code": 3, "message": "boom"}]),
        replay_job("job-x", ["Pending", "Abnormal"],
                   task_statuses=[{"task": "worker-0", "exit_code": 137, "message": "OOMKilled"},
                                  {"task": "worker-1", "exit_code": 0}]),
        replay_job("job-slow", ["Running"]),
        replay_job("job-gone", ["Running", None]),
    ])
    jobs = {"ok": entry("job-ok"), "f": entry("job-f"), "x": entry("job-x"),
            "slow": entry("job-slow", timeout_seconds=12), "gone": entry("job-gone")}
    with pytest.raises(ProviderError) as e:
        provider(client).create({"jobs": jobs})
    assert str(e.value) == "\n".join([
        "4 of 5 awaited training jobs did not reach their target: f, x, slow, gone",
        "- f: training job name-job-f (job-f) is Failed; task worker-0: exit code 3: boom",
        "- x: training job name-job-x (job-x) is Abnormal; task worker-0: exit code 137: OOMKilled; "
        "task worker-1: exit code 0",
        "- slow: training job name-job-slow (job-slow) timed out after 12s waiting for completed: it is Running; "
        "it was terminated",
        "- gone: training job name-job-gone (job-gone) disappeared while being waited for",
        "",
        "f (name-job-f): last lines of name-job-f/worker-0:", "    RuntimeError: job-f broke",
        "x (name-job-x): last lines of name-job-x/worker-0:", "    RuntimeError: job-x broke",
        "slow (name-job-slow): last lines of name-job-slow/worker-0:", "    RuntimeError: job-slow broke",
    ])
    assert env.tails == ["job-f", "job-x", "job-slow"]  # one log fetch per failing job, none for the gone one
    assert client.ids("terminate") == {"job-slow"}


def test_a_wait_the_engine_abandons_raises(env, monkeypatch):
    monkeypatch.setattr(provider_mod, "engine_alive", lambda: False)
    client = ReplayClient([replay_job("job-a", ["Running"])])
    with pytest.raises(ProviderError, match="^waiting for training jobs stopped: the Pulumi engine"):
        provider(client).create({"jobs": {"a": entry("job-a")}})


def test_nothing_to_wait_for_makes_no_call(env):
    client = ReplayClient([])
    res = provider(client).create({"jobs": {}})
    assert res.outs["statuses"] == {} and res.outs["phases"] == {} and client.log == [] and env.said == []


# --- diff ---------------------------------------------------------------------------------------


@pytest.fixture
def state(env) -> dict[str, Any]:
    client = ReplayClient([replay_job("job-a", ["Completed"]), replay_job("job-b", ["Pending"])])
    return created(env, client, {"a": entry("job-a"), "b": entry("job-b", "created")})


def diff(state: dict[str, Any], jobs: Any) -> Any:
    return JobsAwaitProvider().diff("id", state, {"jobs": jobs})


def test_diff_no_change_when_ids_and_targets_are_unchanged_and_reached(state):
    d = diff(state, {"a": entry("job-a"), "b": entry("job-b", "created")})
    assert d.changes is False and not d.replaces
    # timeouts and poll intervals are how to wait, not what: no wait for them alone
    d = diff(state, {"a": entry("job-a", timeout_seconds=99, poll_seconds=1), "b": entry("job-b", "created")})
    assert d.changes is False


@pytest.mark.parametrize("jobs", [
    pytest.param({"a": entry("job-a2"), "b": entry("job-b", "created")}, id="id-changed"),
    pytest.param({"a": entry(UNKNOWN), "b": entry("job-b", "created")}, id="id-unknown"),
    pytest.param({"a": entry(Unknown()), "b": entry("job-b", "created")}, id="id-Unknown"),
    pytest.param({"a": entry("job-a", "running"), "b": entry("job-b", "created")}, id="target-changed"),
    pytest.param({"a": entry("job-a"), "b": entry("job-b", "created"), "c": entry("job-c")}, id="key-added"),
    pytest.param({"a": entry("job-a")}, id="key-removed"),
    pytest.param({"a": UNKNOWN, "b": entry("job-b", "created")}, id="entry-unknown"),
    pytest.param(UNKNOWN, id="all-unknown"),
])
def test_diff_changes(state, jobs):
    d = diff(state, jobs)
    assert d.changes is True and not d.replaces


def test_diff_changes_while_a_job_has_not_reached_its_target(state):
    state["statuses"]["b"]["reached"] = False
    assert diff(state, {"a": entry("job-a"), "b": entry("job-b", "created")}).changes is True


# --- update -------------------------------------------------------------------------------------


def test_update_waits_only_for_the_changed_job(env, state):
    client = ReplayClient([replay_job("job-a", ["Completed"]), replay_job("job-b", ["Pending"]),
                           replay_job("job-b2", ["Creating", "Running"])])
    news = {"jobs": {"a": entry("job-a"), "b": entry("job-b2", "running")}}
    res = provider(client).update("id", state, news)
    # no poll of a; the replaced job-b (last seen Pending) read once, for its record in the run history
    assert {d for _, d in client.log} == {"job-b2", "job-b"}
    assert client.calls("get") == {"job-b2": 2, "job-b": 1}
    assert [r["job_id"] for r in res.outs["runs"]["b"]] == ["job-b", "job-b2"]
    assert res.outs["statuses"]["a"] == state["statuses"]["a"]
    assert res.outs["statuses"]["b"] == {"job_id": "job-b2", "job_name": "name-job-b2", "wait_for": "running",
                                         "phase": "Running", "reached": True, "workspace_id": None}
    assert res.outs["phases"] == {"a": "Completed", "b": "Running"}


def test_update_of_a_removed_key_waits_for_nothing(env, state):
    client = ReplayClient([])
    res = provider(client).update("id", state, {"jobs": {"a": entry("job-a")}})
    assert set(res.outs["statuses"]) == {"a"} and res.outs["phases"] == {"a": "Completed"}
    # the removed run stays on record: read once (its recorded phase, Pending, was not final)
    assert client.log == [("get", "job-b")] and [r["job_id"] for r in res.outs["runs"]["b"]] == ["job-b"]


def test_update_waits_again_for_a_job_that_had_not_reached(env, state):
    state["statuses"]["a"]["reached"] = False
    client = ReplayClient([replay_job("job-a", ["Completed"]), replay_job("job-b", ["Pending"])])
    provider(client).update("id", state, {"jobs": {"a": entry("job-a"), "b": entry("job-b", "created")}})
    assert client.calls("get") == {"job-a": 1}


# --- read and delete ----------------------------------------------------------------------------


def test_read_refreshes_every_phase_in_one_round(env, state):
    client = ReplayClient([replay_job("job-a", ["Completed"]), replay_job("job-b", ["Running"])])
    res = provider(client).read("id", state)
    assert res.id == "id" and res.outs["phases"] == {"a": "Completed", "b": "Running"}
    assert res.outs["statuses"]["b"]["phase"] == "Running" and res.outs["statuses"]["b"]["reached"] is True
    assert client.calls("get") == {"job-a": 1, "job-b": 1} and env.clock.sleeps == []
    assert res.outs["jobs"] == state["jobs"]


def test_read_marks_a_job_that_got_there_since(env, state):
    state["statuses"]["a"].update(phase="Running", reached=False)
    client = ReplayClient([replay_job("job-a", ["Completed"]), replay_job("job-b", ["Pending"])])
    res = provider(client).read("id", state)
    assert res.outs["statuses"]["a"]["phase"] == "Completed" and res.outs["statuses"]["a"]["reached"] is True


def test_read_keeps_what_it_cannot_see(env, state):
    client = ReplayClient([replay_job("job-a", [None]), replay_job("job-b", [{"error": 503}])])
    res = provider(client).read("id", state)
    assert res.outs["statuses"] == state["statuses"] and res.outs["phases"] == state["phases"]


def test_delete_touches_nothing_remote(env, state):
    client = ReplayClient([replay_job("job-a", ["Running"])])
    assert provider(client).delete("id", state) is None and client.log == []


# --- check --------------------------------------------------------------------------------------


def test_check_names_the_bad_field():
    res = JobsAwaitProvider().check({}, {"jobs": {"a": entry("job-a", "forever")}})
    assert [(f.property, f.reason) for f in res.failures] == [
        ("jobs.a.wait_for", "must be one of none, created, running or completed, not 'forever'")]


def test_check_lets_unknown_ids_through_at_preview():
    res = JobsAwaitProvider().check({}, {"jobs": {"a": entry(Unknown())}, "statuses": None})
    assert res.failures == [] and "statuses" not in res.inputs

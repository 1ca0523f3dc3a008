"""Lifecycle derived from timestamps, outcome annotations, terminate rules, restart persistence."""

from __future__ import annotations

from tests.emulator.helpers import HELD, Api, minimal_job
from modelarts_emulator.testing import running_emulator


def _phases_stepped(api: Api, job_id: str, steps: list[float]) -> list[str]:
    """The job's phase now and after each clock step: every phase is seen, however slow the machine."""
    seen = [api.phase(job_id)]
    for seconds in steps:
        api.advance(seconds)
        seen.append(api.phase(job_id))
    return seen


def test_complete_lifecycle(api):
    job = api.create(minimal_job("happy", emulator__run_seconds="0.5")).json()
    job_id = job["metadata"]["id"]
    seen = _phases_stepped(api, job_id, [30, 30, 0.5])  # Creating and Pending last 30 s (HELD)
    assert seen == ["Creating", "Pending", "Running", "Completed"]
    st = api.get(job_id).json()["status"]
    assert st["secondary_phase"] == "Completed"
    assert st["duration"] == 500
    assert st["start_time"] >= job["metadata"]["create_time"] + 60_000
    assert st["task_statuses"] == [{"task": "worker-0", "exit_code": 0, "message": ""}]
    assert st["node_count_metrics"][0] == [st["start_time"], 1]


def test_pending_is_queuing_and_running_has_duration(api):
    job_id = api.create(minimal_job("q", emulator__run_seconds="5")).json()["metadata"]["id"]
    api.advance(30)
    pending = api.get(job_id).json()
    assert pending["status"]["phase"] == "Pending"
    assert pending["status"]["secondary_phase"] == "Queuing"
    api.advance(30)
    running = api.get(job_id).json()
    assert running["status"]["phase"] == "Running"
    assert running["status"]["start_time"] > 0 and "task_statuses" not in running["status"]
    api.advance(0.1)
    assert api.get(job_id).json()["status"]["duration"] >= 100


def test_fail_outcome_with_exit_code_and_message(api):
    body = minimal_job("sad", emulator__outcome="fail", emulator__run_seconds="0.2",
                       emulator__exit_code="3")
    body["spec"]["resource"]["node_count"] = 2
    job_id = api.create(body).json()["metadata"]["id"]
    api.advance(60.2)
    st = api.get(job_id).json()["status"]
    assert st["phase"] == "Failed" and st["secondary_phase"] == "Failed"
    assert [t["task"] for t in st["task_statuses"]] == ["worker-0", "worker-1"]
    assert all(t["exit_code"] == 3 and "3" in t["message"] for t in st["task_statuses"])


def test_abnormal_outcome(api):
    job_id = api.create(minimal_job("odd", emulator__outcome="abnormal",
                                    emulator__run_seconds="0.1")).json()["metadata"]["id"]
    api.advance(60.1)
    st = api.get(job_id).json()["status"]
    assert st["phase"] == "Abnormal"
    assert st["task_statuses"][0]["exit_code"] != 0 and st["task_statuses"][0]["message"]


def test_hang_until_terminated(api):
    job_id = api.create(minimal_job("stuck", emulator__outcome="hang",
                                    emulator__run_seconds="0")).json()["metadata"]["id"]
    api.advance(60)
    assert api.phase(job_id) == "Running"
    api.advance(3600)  # far past the server's --run-seconds 60
    assert api.phase(job_id) == "Running"
    r = api.terminate(job_id)
    assert r.status_code == 202 and r.json()["status"]["phase"] == "Terminating"
    api.advance(30)
    st = api.get(job_id).json()["status"]
    assert st["phase"] == "Terminated"
    assert st["secondary_phase"] == "Terminated" and st["duration"] >= 3_600_000
    assert st["task_statuses"][0]["exit_code"] == 137


def test_terminate_rules(api):
    # Creating and Pending can be terminated
    a = api.create(minimal_job("t-creating")).json()["metadata"]["id"]
    assert api.terminate(a).status_code == 202
    b = api.create(minimal_job("t-pending")).json()["metadata"]["id"]
    api.advance(30)
    assert api.phase(b) == "Pending"
    assert api.terminate(b).status_code == 202
    # terminating again: 409 ModelArts.2796
    r = api.terminate(b)
    assert r.status_code == 409 and r.json()["error_code"] == "ModelArts.2796"
    st = api.get(a).json()["status"]
    assert st["phase"] == "Terminated"
    assert st["start_time"] == 0 and st["duration"] == 0
    # finished jobs cannot be terminated
    c = api.create(minimal_job("t-done", emulator__run_seconds="0")).json()["metadata"]["id"]
    api.advance(60)
    assert api.phase(c) == "Completed"
    r = api.terminate(c)
    assert r.status_code == 409 and r.json()["error_code"] == "ModelArts.2796"
    # other action types: 400 ModelArts.2812
    for action in ("stop", "", None):
        r = api.terminate(c, action)
        assert r.status_code == 400 and r.json()["error_code"] == "ModelArts.2812"
    # unknown job: 2775 (documented as 400)
    r = api.terminate("00000000-0000-0000-0000-000000000000")
    assert r.status_code == 400 and r.json()["error_code"] == "ModelArts.2775"


def test_restart_resumes_from_stored_timestamps(tmp_path):
    with running_emulator(tmp_path, **HELD) as emu:
        api = Api(emu)
        running = api.create(minimal_job("survivor")).json()["metadata"]["id"]
        hung = api.create(minimal_job("hung", emulator__outcome="hang")).json()["metadata"]["id"]
        gone = api.create(minimal_job("gone")).json()["metadata"]["id"]
        assert api.delete(gone).status_code == 202
        api.advance(60)
        assert api.phase(running) == "Running"
        url = emu.url
        emu.restart()
        assert emu.url == url
        assert emu.clock()["offset_seconds"] == 60  # the clock survives: no job goes back
        job = api.get(running).json()
        assert job["status"]["phase"] == "Running"
        assert job["metadata"]["name"] == "survivor"
        api.advance(60)
        st = api.get(running).json()["status"]
        assert st["phase"] == "Completed" and st["duration"] == 60_000
        assert api.phase(hung) == "Running"
        assert api.get(gone).json()["error_code"] == "ModelArts.2775"
        assert sorted(j["metadata"]["name"] for j in emu.jobs()) == ["hung", "survivor"]
        # a terminate accepted before a restart still completes after it
        assert api.terminate(hung).status_code == 202
        emu.restart()
        assert api.phase(hung) == "Terminating"
        api.advance(30)
        assert api.phase(hung) == "Terminated"

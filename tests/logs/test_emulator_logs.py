"""The emulator's task-log API over HTTP: documented shape, growth, the failure line, errors."""

from __future__ import annotations

import pytest

from modelarts_emulator.testing import RunningEmulator

from tests.emulator.helpers import HELD, wait_phase

from .conftest import SECRET_ENV_VALUE, finished, job_body, started

pytestmark = pytest.mark.timeout(120)


def preview(emu: RunningEmulator, job_id: str, task: str = "worker-0"):
    return emu.session().get(f"{emu.api_base}/training-jobs/{job_id}/tasks/{task}/logs/preview", timeout=10)


def create(emu: RunningEmulator, name: str, **kw) -> str:
    r = emu.session().post(f"{emu.api_base}/training-jobs", json=job_body(name, **kw), timeout=10)
    assert r.status_code == 201, r.text
    return r.json()["metadata"]["id"]


def test_shape_and_sizes(emu: RunningEmulator, client) -> None:
    job_id = create(emu, "shape")
    finished(emu)
    wait_phase(client, job_id, {"Completed"})
    r = preview(emu, job_id)
    assert r.status_code == 200 and r.headers["Content-Type"].startswith("application/json")
    body = r.json()
    assert set(body) == {"content", "current_size", "full_size"}  # SDK ShowTrainingJobLogsPreviewResponse
    assert body["current_size"] == body["full_size"] == len(body["content"].encode())
    lines = body["content"].splitlines()
    assert all(line[:4].isdigit() and line[10] == "T" and line[19] == "Z" for line in lines)  # timestamped
    assert "epoch 1/3" in body["content"] and "epoch 3/3" in body["content"]
    assert lines[-1].endswith("task worker-0 exited with code 0")
    assert "env NCCL_DEBUG=INFO" in body["content"]
    assert "env HW_SECRET_KEY=******" in body["content"] and SECRET_ENV_VALUE not in body["content"]
    assert "env MA_TASK_NAME=worker-0" in body["content"]  # TASK is not a secret-looking name
    assert emu.counters()["logs"] == 1
    assert preview(emu, job_id).json() == body  # finished: the log no longer changes


def test_empty_before_running_then_grows(emu: RunningEmulator, client) -> None:
    job_id = create(emu, "grows", run_seconds=600, epochs=5)  # an epoch every 100 s, the exit at 600 s
    first = preview(emu, job_id).json()
    assert first == {"content": "", "current_size": 0, "full_size": 0}  # Creating: no process yet
    started(emu)
    wait_phase(client, job_id, {"Running"})
    seen = [preview(emu, job_id).json()["content"]]
    for _ in range(6):  # a step per epoch and one to the end: the log grows at each
        emu.advance(100)
        seen.append(preview(emu, job_id).json()["content"])
    assert client.get_job(job_id).phase == "Completed"
    for before, after in zip(seen, seen[1:]):
        assert after.startswith(before) and after != before  # only appended to, and it grew
    assert "training job grows" in seen[0] and "epoch 1/5" not in seen[0] and "epoch 5/5" in seen[-1]


def test_failing_task_ends_with_its_exit_code(emu: RunningEmulator, client) -> None:
    job_id = create(emu, "fails", outcome="fail", exit_code=3, epochs=4)
    finished(emu)
    job = wait_phase(client, job_id, {"Failed"})
    (status,) = job.task_statuses
    content = preview(emu, job_id).json()["content"]
    last = content.splitlines()[-1]
    assert last.endswith(f"ERROR exit code 3: {status.message}") and status.exit_code == 3
    assert "epoch 2/4" in content and "epoch 3/4" not in content  # it failed half way
    assert "Traceback (most recent call last):" in content


def test_every_task_has_its_log(emu: RunningEmulator, client) -> None:
    job_id = create(emu, "two-nodes", nodes=2)
    finished(emu)
    wait_phase(client, job_id, {"Completed"})
    logs = [preview(emu, job_id, f"worker-{i}").json()["content"] for i in (0, 1)]
    assert "task worker-0 started on node 1 of 2" in logs[0]
    assert "task worker-1 started on node 2 of 2" in logs[1]
    assert logs[0].splitlines()[-1].endswith("exited with code 0")


def test_terminated_task_log_ends_with_137(emu: RunningEmulator, client) -> None:
    job_id = create(emu, "stopped", outcome="hang")
    started(emu)
    wait_phase(client, job_id, {"Running"})
    emu.advance(1.2)  # a hanging job logs an epoch a second
    before = preview(emu, job_id).json()["content"]
    assert "epoch 1/3" in before
    client.terminate_job(job_id)
    emu.advance(HELD["phase_seconds"])  # Terminating
    wait_phase(client, job_id, {"Terminated"})
    after = preview(emu, job_id).json()["content"]
    assert after.startswith(before)
    assert "SIGTERM received" in after and after.splitlines()[-1].endswith(
        "ERROR exit code 137: The training job was terminated.")


def test_unknown_task_and_unknown_job(emu: RunningEmulator) -> None:
    job_id = create(emu, "errors")
    r = preview(emu, job_id, "worker-7")
    assert r.status_code == 400
    body = r.json()
    assert body["error_code"] == "ModelArts.2788" and "task_id" in body["error_msg"]
    assert "worker-7" in body["error_msg"] and set(body) == {"error_msg", "error_code", "error_solution"}
    r = preview(emu, "00000000-0000-0000-0000-000000000000")
    assert r.status_code == 400 and r.json()["error_code"] == "ModelArts.2775"
    r = emu.session().post(f"{emu.api_base}/training-jobs/{job_id}/tasks/worker-0/logs/preview", timeout=10)
    assert r.status_code == 405 and r.json()["error_code"] == "APIGW.0101"


def test_unsigned_request_refused(emu: RunningEmulator) -> None:
    import requests

    job_id = create(emu, "auth")
    r = requests.get(f"{emu.api_base}/training-jobs/{job_id}/tasks/worker-0/logs/preview", timeout=10)
    assert r.status_code == 401 and r.json()["error_code"] == "APIGW.0301"


def test_log_survives_restart(emu: RunningEmulator, client) -> None:
    job_id = create(emu, "restarted")
    finished(emu)
    wait_phase(client, job_id, {"Completed"})
    before = preview(emu, job_id).json()
    emu.restart()
    assert preview(emu, job_id).json() == before  # derived from the stored row, like the phases

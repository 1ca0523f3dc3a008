"""ModelArtsClient.get_task_log_preview and task_ids against the emulator over HTTP."""

from __future__ import annotations

import pytest

from modelarts_provider.client import ModelArtsError, TrainingJob
from modelarts_provider.client.models import TaskLogPreview, task_ids

from tests.emulator.helpers import wait_phase

from .conftest import client_for, finished

pytestmark = pytest.mark.timeout(120)


def test_preview_of_a_finished_job(emu, client, make_job) -> None:
    job = make_job("done")
    finished(emu)
    wait_phase(client, job.id, {"Completed"})
    p = client.get_task_log_preview(job.id, "worker-0")
    assert isinstance(p, TaskLogPreview)
    assert p.text.splitlines()[-1].endswith("exited with code 0")
    assert p.sizes == (len(p.text.encode()), len(p.text.encode()))
    assert p.to_wire() == {"content": p.text, "current_size": p.sizes[0], "full_size": p.sizes[1]}


def test_unknown_job_and_task_raise(emu, client, make_job) -> None:
    with pytest.raises(ModelArtsError) as err:
        client.get_task_log_preview("00000000-0000-0000-0000-000000000000", "worker-0")
    assert err.value.error_code == "ModelArts.2775" and err.value.status == 400
    job = make_job("tasks")
    with pytest.raises(ModelArtsError) as err:
        client.get_task_log_preview(job.id, "worker-9")
    assert err.value.error_code == "ModelArts.2788" and "\n" not in str(err.value)
    for bad in ("", "a/b", "x?y"):
        with pytest.raises(ValueError):
            client.get_task_log_preview(job.id, bad)


def test_retried_like_a_get(emu, client, make_job) -> None:
    job = make_job("retried")
    emu.set_faults([{"operation": "any", "kind": "status", "status": 503, "times": 2}])
    assert isinstance(client.get_task_log_preview(job.id, "worker-0"), TaskLogPreview)
    assert emu.counters()["logs"] == 3


def test_errors_carry_no_secret(emu, make_job) -> None:
    job = make_job("wrong-key")
    with client_for(emu, credentials={"access_key": emu.access_key, "secret_key": "not-the-key-12345"}) as bad:
        with pytest.raises(ModelArtsError) as err:
            bad.get_task_log_preview(job.id, "worker-0")
    assert err.value.status == 401 and "not-the-key-12345" not in str(err.value) + repr(err.value)


def test_legacy_context_key_and_loose_types() -> None:
    p = TaskLogPreview.model_validate({"context": "old\n", "current_size": "4", "full_size": 9, "x": 1})
    assert p.text == "old\n" and p.sizes == (4, 9) and p.to_wire()["x"] == 1
    assert TaskLogPreview.model_validate({}).text == "" and TaskLogPreview.model_validate({}).sizes == (None, None)


def test_task_ids() -> None:
    def job(status: dict) -> TrainingJob:
        return TrainingJob.model_validate({"metadata": {"id": "j"}, "status": status})

    assert task_ids(job({"tasks": ["worker-0", "worker-1"]})) == ["worker-0", "worker-1"]
    assert task_ids(job({"task_statuses": [{"task": "worker-1", "exit_code": 1}]})) == ["worker-1"]
    assert task_ids(job({"task_statuses": {"task": "worker-2"}})) == ["worker-2"]  # one object
    assert task_ids(job({"tasks": []})) == ["worker-0"] and task_ids(job({})) == ["worker-0"]

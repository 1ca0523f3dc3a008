"""Issue 42: what a client reads about a training job besides its details and logs (its tasks, their machine
usage, its events, whether a name is taken), driven by the official SDK's client (huaweicloudsdkmodelarts)
against the local ModelArts on its held clock, answered in the SDK's own models."""

from __future__ import annotations

import pytest
from huaweicloudsdkcore.exceptions.exceptions import ClientRequestException
from huaweicloudsdkmodelarts.v1 import model as m

from tests.emulator.helpers import minimal_job

GPU = "modelarts.p3.large.public.free"


def _job(api, name: str, flavor: str | None = None) -> str:
    body = minimal_job(name)
    if flavor:
        body["spec"]["resource"]["flavor_id"] = flavor
    response = api.create(body)
    assert response.status_code == 201, response.text
    return response.json()["metadata"]["id"]


def _events(sdk, job_id: str, **query):
    return sdk.list_training_job_events(m.ListTrainingJobEventsRequest(training_job_id=job_id, **query))


def _refused(call) -> tuple[int, str]:
    with pytest.raises(ClientRequestException) as err:
        call()
    return err.value.status_code, err.value.error_code


def test_tasks_machine_usage_and_events_follow_the_job(emu, api, sdk):
    job = _job(api, "observed")
    tasks = lambda: sdk.list_training_job_tasks(m.ListTrainingJobTasksRequest(training_job_id=job)).body  # noqa: E731
    raw = api.call("GET", f"{api.base}/training-jobs/{job}/tasks")
    assert raw.status_code == 200 and raw.json() == []  # not scheduled yet (the SDK reads an empty list as None)
    created = _events(sdk, job)
    assert created.total == 1 and [(e.level, e.message) for e in created.events] == [
        ("Info", "The training job is created.")]

    api.advance(61)  # Creating 30 s, Pending 30 s: Running
    assert api.phase(job) == "Running"
    [task] = tasks()
    assert task.task == "worker-0" and task.schedule_count == 1 and task.ip and task.host_ip
    usage = sdk.show_training_job_metrics(m.ShowTrainingJobMetricsRequest(training_job_id=job, task_id="worker-0"))
    assert {u.metric: len(u.value) for u in usage.metrics} == {"cpuUsage": 1, "memUsage": 1}  # a CPU flavor
    assert all(0 <= v <= 100 for u in usage.metrics for v in u.value)

    api.advance(60)
    assert api.phase(job) == "Completed"
    assert [t.task for t in tasks()] == ["worker-0"]  # kept after the end
    listed = _events(sdk, job)
    assert listed.order == "desc" and listed.total == 4
    assert [e.message for e in listed.events] == [
        "The training job completed.", "Resources are allocated; the training job is running on 1 node(s).",
        "The training job is waiting for resources.", "The training job is created."]
    assert [e.message for e in _events(sdk, job, order="asc", offset=1, limit=1).events] == [
        "The training job is waiting for resources."]
    assert _events(sdk, job, level="Error").total == 0
    assert [e.message for e in _events(sdk, job, pattern="running").events] == [
        "Resources are allocated; the training job is running on 1 node(s)."]
    assert _refused(lambda: _events(sdk, job, limit=101)) == (400, "ModelArts.2788")
    assert _refused(lambda: _events(sdk, job, level="Debug")) == (400, "ModelArts.2788")


def test_a_gpu_jobs_usage_has_gpu_metrics_and_unknowns_are_refused(emu, api, sdk):
    job = _job(api, "observed-gpu", GPU)
    api.advance(61)
    usage = sdk.show_training_job_metrics(m.ShowTrainingJobMetricsRequest(training_job_id=job, task_id="worker-0"))
    assert {u.metric for u in usage.metrics} == {"cpuUsage", "memUsage", "gpuUtil", "gpuMemUsage"}
    assert _refused(lambda: sdk.show_training_job_metrics(m.ShowTrainingJobMetricsRequest(
        training_job_id=job, task_id="worker-9"))) == (400, "ModelArts.2788")
    assert api.terminate(job).status_code == 202
    api.advance(31)
    warned = _events(sdk, job, level="Warning")
    assert [e.message for e in warned.events] == ["The training job was terminated.",
                                                  "The training job is being terminated."], warned
    assert _refused(lambda: sdk.list_training_job_tasks(m.ListTrainingJobTasksRequest(
        training_job_id="00000000-0000-0000-0000-000000000000"))) == (400, "ModelArts.2775")  # as details


def test_whether_a_name_is_taken(emu, api, sdk):
    _job(api, "taken-name")
    check = lambda name: sdk.validate_training_job_name(m.ValidateTrainingJobNameRequest(job_name=name))  # noqa: E731
    assert check("taken-name").is_duplicate is True
    assert check("free-name").is_duplicate is False

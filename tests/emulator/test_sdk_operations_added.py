"""Issue 57: the operations the official SDK found missing (404 APIGW.0101, or 405 with batch-delete read as a job
id), now in their documented shapes, driven by the SDK's own client (huaweicloudsdkmodelarts 3.1.219) where it
has the method, and over signed HTTP for the log's OBS link, which the 3.1.219 SDK lacks."""

from __future__ import annotations

import pytest
import requests
from huaweicloudsdkcore.exceptions.exceptions import ClientRequestException
from huaweicloudsdkmodelarts.v1 import model as m

from tests.emulator.helpers import Api, minimal_job


def _job(api: Api, name: str) -> str:
    response = api.create(minimal_job(name))
    assert response.status_code == 201, response.text
    return response.json()["metadata"]["id"]


def test_batch_delete_through_the_sdk_deletes_all_or_none(api: Api, sdk) -> None:
    a, b, c = _job(api, "batch-a"), _job(api, "batch-b"), _job(api, "batch-c")

    def req(*ids: str) -> m.BatchDeleteTrainingJobRequest:
        return m.BatchDeleteTrainingJobRequest(body=m.BatchDeleteJobsReq(jobs=[
            m.BatchDeleteJobItem(kind="job", metadata=m.BatchDeleteJobMetadata(id=i)) for i in ids]))

    with pytest.raises(ClientRequestException) as refused:  # one unknown job: nothing is deleted
        sdk.batch_delete_training_job(req(a, "no-such-job"))
    assert (refused.value.status_code, refused.value.error_code) == (400, "ModelArts.2775")
    assert api.get(a).status_code == 200

    done = sdk.batch_delete_training_job(req(a, b))
    assert done.status_code == 202
    api.advance(1)  # deletes are asynchronous (HELD: 0.2 s)
    assert api.get(a).json()["error_code"] == "ModelArts.2775"
    assert api.get(b).json()["error_code"] == "ModelArts.2775"
    assert api.get(c).status_code == 200  # not listed: kept

    over = api.call("POST", f"{api.base}/training-jobs/batch-delete",
                    {"jobs": [{"kind": "job", "metadata": {"id": c}}] * 101})
    assert over.status_code == 400 and over.json()["error_code"] == "ModelArts.2788"  # at most 100
    assert api.get(c).status_code == 200


def test_training_quotas_count_the_projects_jobs(api: Api, sdk) -> None:
    def job_num() -> m.TrainingQuotaResponse:
        quotas = sdk.show_training_quotas(m.ShowTrainingQuotasRequest(resource="job-num")).quotas
        assert [q.resource for q in quotas] == ["job-num"]
        return quotas[0]

    assert (job_num().quota, job_num().used) == (10000, 0)  # the page's example quota (docs/assumptions.md)
    _job(api, "quota-a"), _job(api, "quota-b")
    assert job_num().used == 2
    with pytest.raises(ClientRequestException) as refused:
        sdk.show_training_quotas(m.ShowTrainingQuotasRequest(resource="gpu-num"))
    assert refused.value.error_code == "ModelArts.2788"


def test_list_algorithms_through_the_sdk_pages_and_searches(api: Api, sdk) -> None:
    listed = sdk.list_algorithms(m.ListAlgorithmsRequest(limit=50))
    assert listed.total == listed.count == len(listed.items) > 1
    one = listed.items[0]
    shown = sdk.show_algorithm_by_uuid(m.ShowAlgorithmByUuidRequest(algorithm_id=one.metadata.id))
    assert shown.metadata.name == one.metadata.name and shown.job_config.boot_file == one.job_config.boot_file
    ids = [a.metadata.id for a in listed.items]
    second = sdk.list_algorithms(m.ListAlgorithmsRequest(offset=1, limit=1))  # offset counts algorithms
    assert [a.metadata.id for a in second.items] == ids[1:2] and second.count == listed.total
    ascending = sdk.list_algorithms(m.ListAlgorithmsRequest(order="asc", limit=50))
    assert [a.metadata.id for a in ascending.items] == ids[::-1]
    part = one.metadata.name[1:4].upper()
    found = sdk.list_algorithms(m.ListAlgorithmsRequest(searches=part, limit=50))
    assert one.metadata.id in [a.metadata.id for a in found.items]
    assert all(part.lower() in a.metadata.name.lower() for a in found.items) and found.total == listed.total
    with pytest.raises(ClientRequestException) as refused:
        sdk.list_algorithms(m.ListAlgorithmsRequest(limit=51))
    assert refused.value.error_code == "ModelArts.2788"


def test_the_log_by_lines_through_the_sdk(api: Api, sdk) -> None:
    job = _job(api, "aom-log")
    api.advance(30 + 30 + 60)  # Creating, Pending, the whole run: the log is complete
    whole = api.logs(job).json()["content"].splitlines(keepends=True)
    assert len(whole) > 12

    def read(**query) -> m.ShowTrainingJobLogsFromAomResponse:
        return sdk.show_training_job_logs_from_aom(m.ShowTrainingJobLogsFromAomRequest(
            training_job_id=job, task_id="worker-0", **query))

    newest = read(lines=5)
    assert newest.content == "".join(whole[-5:]) and newest.lines == 5
    assert (newest.start_line, newest.end_line) == (str(len(whole) - 4), str(len(whole)))
    default = read()
    assert default.lines == min(50, len(whole)) and default.content == "".join(whole[-default.lines:])
    after = read(base_line="3", lines=4, order="desc")  # the lines after line 3
    assert after.content == "".join(whole[3:7]) and (after.start_line, after.end_line) == ("4", "7")
    before = read(base_line="10", lines=4, order="asc")  # the lines before line 10
    assert before.content == "".join(whole[5:9]) and (before.start_line, before.end_line) == ("6", "9")
    with pytest.raises(ClientRequestException) as refused:
        read(lines=501)
    assert refused.value.error_code == "ModelArts.2788"
    with pytest.raises(ClientRequestException) as unknown:
        sdk.show_training_job_logs_from_aom(m.ShowTrainingJobLogsFromAomRequest(
            training_job_id=job, task_id="worker-7"))
    assert unknown.value.error_code == "ModelArts.2788"


def test_the_logs_obs_link_serves_the_whole_log_unsigned(api: Api) -> None:
    job = _job(api, "log-link")
    api.advance(30 + 30 + 20)
    answer = api.call("GET", f"{api.base}/training-jobs/{job}/tasks/worker-0/logs/url")
    assert answer.status_code == 200 and set(answer.json()) == {"obs_url"}
    link = answer.json()["obs_url"]
    assert link.startswith(api.emu.url + "/")  # on the host the client called
    fetched = requests.get(link, timeout=30)  # as a presigned link is fetched: no signature
    assert fetched.status_code == 200 and fetched.headers["Content-Type"].startswith("text/plain")
    assert fetched.text == api.logs(job).json()["content"] and "task worker-0 started" in fetched.text
    unknown = api.call("GET", f"{api.base}/training-jobs/{job}/tasks/worker-9/logs/url")
    assert unknown.status_code == 400 and unknown.json()["error_code"] == "ModelArts.2788"

"""The client against the emulator on the issue-14/15 shapes: task jobs (flat channels handed over,
documented shapes sent and read back), the gateway's 404 (never "job gone"), the signed
X-Project-Id, the list API's workspace and paging, and duplicate names."""

from __future__ import annotations

import copy

import pytest
import requests

from modelarts_emulator.testing import running_emulator
from modelarts_provider.client import CreateTrainingJobRequest, ModelArtsClient, ModelArtsError
from modelarts_provider.client.models import as_list, task_ids
from modelarts_provider.client.signer import SdkHmacAuth

from .test_emulator_client import job_request, settings_for

pytestmark = pytest.mark.timeout(120)

ENGINE = "pytorch_1.8.0-cuda_10.2-py_3.7-ubuntu_18.04-x86_64"


@pytest.fixture(scope="module")
def emu(tmp_path_factory):
    # Runs far longer than the module's tests, however loaded the machine: a job is never past Running.
    with running_emulator(tmp_path_factory.mktemp("emu"), run_seconds=600, phase_seconds=0.2) as e:
        yield e


@pytest.fixture(autouse=True)
def _clean(emu):
    emu.reset()
    yield


@pytest.fixture
def client(emu):
    with ModelArtsClient(settings_for(emu)) as c:
        yield c


def flat_task_request(name: str) -> CreateTrainingJobRequest:
    """Tasks as the provider's Task models dump them: flat channels {"name", "obs_url"}."""
    return CreateTrainingJobRequest.model_validate({
        "kind": "job", "metadata": {"name": name, "description": ""},
        "tasks": [{"role": "worker",
                   "algorithm": {"code_dir": "obs://emulator-bucket/code/",
                                 "boot_file": "obs://emulator-bucket/code/train.py",
                                 "engine": {"engine_id": ENGINE},
                                 "inputs": [{"name": "data_url", "obs_url": "obs://emulator-bucket/data/"}],
                                 "outputs": [{"name": "train_url", "obs_url": "obs://emulator-bucket/out/"}]},
                   "task_resource": {"flavor_id": "modelarts.vm.cpu.8u", "node_count": 1}}]})


def test_task_job_round_trip(client, emu):
    """Shapes 2 and 3: flat channels handed over are sent as remote.obs (else the emulator would refuse
    them, naming remote); the response's single-object inputs/outputs parse in get_job, in a search
    page, and so in find_by_name."""
    created = client.create_job(flat_task_request("tasks-job"))
    job = client.get_job(created.id)
    alg = as_list(job.tasks)[0].algorithm
    assert not isinstance(alg.inputs, list) and alg.inputs.remote.obs.obs_url == "/emulator-bucket/data/"
    assert as_list(alg.outputs)[0].period == "30s"
    assert client.find_by_name("tasks-job").id == created.id
    assert [j.id for j in client.list_jobs()] == [created.id]
    assert [j.id for j in client.iter_jobs()] == [created.id]
    summary = client.get_job_summary(created.id)  # what `logs` reads: the same job, its phase and task ids
    later = client.get_job(created.id)  # (phases move with time: the summary's is the one before or after it)
    assert (summary.id, summary.name, task_ids(summary)) == (job.id, job.name, task_ids(job))
    assert summary.phase in (job.phase, later.phase)
    assert "tasks" in summary.unknown_fields  # the rest kept, unparsed
    assert client.get_job_summary("00000000-0000-0000-0000-000000000000") is None
    assert job.to_wire() == emu.jobs()[0] | {"status": job.to_wire()["status"]}


def test_gateway_404_is_an_error_not_a_missing_job(client, emu):
    """Issue 15 item 3: a wrong endpoint prefix gets the gateway's 404 (APIGW.0101); get_job and
    delete_job raise it instead of reporting the live job gone."""
    job = client.create_job(job_request("live", **{"emulator/outcome": "hang"}))
    with ModelArtsClient(settings_for(emu, endpoint=emu.url + "/wrong-prefix")) as wrong:
        for call in (lambda: wrong.get_job(job.id), lambda: wrong.delete_job(job.id)):
            with pytest.raises(ModelArtsError) as ei:
                call()
            assert ei.value.status == 404 and ei.value.error_code == "APIGW.0101"
            assert not ei.value.is_not_found
    # the same 404 for the right path (API not published): still not "gone"
    emu.set_faults([{"operation": "get", "status": 404}, {"operation": "delete", "status": 404}])
    with pytest.raises(ModelArtsError):
        client.get_job(job.id)
    with pytest.raises(ModelArtsError):
        client.delete_job(job.id)
    assert client.get_job(job.id).phase in {"Creating", "Pending", "Running"}
    # only the documented ModelArts.2775 means gone
    assert client.delete_job(job.id) is True
    emu.advance(1)  # deletes are asynchronous: the job is answered for a while (the phase time)
    assert client.get_job(job.id) is None and client.delete_job(job.id) is False


def test_project_id_header_is_sent_signed_and_checked(client, emu):
    """Shape 4: AK/SK requests carry a signed X-Project-Id (the emulator checks it against the path)."""
    seen = []
    client.transport.session.hooks["response"].append(lambda r, *a, **k: seen.append(r.request.headers))
    client.list_jobs()
    assert seen and seen[-1]["X-Project-Id"] == emu.project_id
    assert "x-project-id" in seen[-1]["Authorization"].split("SignedHeaders=")[1].split(",")[0].split(";")
    # another project in the header than in the path: the gateway's 403
    r = requests.post(f"{emu.api_base}/training-job-searches", json={},
                      auth=SdkHmacAuth(emu.access_key, emu.secret_key, project_id="0" * 32))
    assert r.status_code == 403 and r.json()["error_code"] == "APIGW.0302"


def test_workspace_search_and_iter_jobs(client, emu):
    ws = "b" * 32
    ids = [client.create_job(job_request(f"job-{i}")).id for i in range(7)]
    body = copy.deepcopy(job_request("elsewhere").to_wire())
    body["metadata"]["workspace_id"] = ws
    other = client.create_job(CreateTrainingJobRequest.model_validate(body))
    # default workspace "0": newest first, over three pages of 3
    before = emu.counters()["search"]
    assert [j.id for j in client.iter_jobs(page_size=3)] == ids[::-1]
    assert emu.counters()["search"] - before == 3
    assert [j.id for j in client.list_jobs(workspace_id=ws)] == [other.id]
    assert [j.id for j in client.iter_jobs(workspace_id=ws)] == [other.id]
    # the status tool's lighter read of the same listing: the same jobs, ids, names and phases
    # (the emulator's phases move with time: a summary's phase is the full listing's just before or just after)
    before = [(j.id, j.name, j.phase) for j in client.iter_jobs()]
    summaries = [(j.id, j.name, j.phase) for j in client.iter_job_summaries()]
    after = [(j.id, j.name, j.phase) for j in client.iter_jobs()]
    assert [s[:2] for s in summaries] == [b[:2] for b in before] and len(before) == 7
    assert all(s[2] in (b[2], a[2]) for s, b, a in zip(summaries, before, after)), (summaries, before, after)
    assert [j.id for j in client.iter_job_summaries(workspace_id=ws)] == [other.id]
    assert client.find_by_name("elsewhere") is None
    assert client.find_by_name("elsewhere", workspace_id=ws).id == other.id
    with pytest.raises(ValueError):
        next(client.iter_jobs(page_size=51))


def test_duplicate_names_when_the_service_accepts_them(client, emu):
    emu.settings(allow_duplicate_names=True)
    first = client.create_job(job_request("twin"))
    second = client.create_job(job_request("twin"))
    assert first.id != second.id
    assert client.find_by_name("twin").id == second.id  # the newest
    assert [j.id for j in client.list_jobs(name_like="twin")] == [second.id, first.id]


@pytest.mark.parametrize("offset_counts,calls", [("items", 4), ("pages", 3)])
def test_paging_works_whatever_offset_counts(client, emu, offset_counts, calls):
    """The documents disagree on what the list API's offset counts; the client's second request
    (offset 1) tells, and every job is listed once, newest first, either way."""
    emu.settings(search_offset=offset_counts)
    ids = [client.create_job(job_request(f"page-{i}")).id for i in range(8)][::-1]
    before = emu.counters()["search"]
    assert [j.id for j in client.iter_jobs(page_size=3)] == ids
    assert emu.counters()["search"] - before == calls
    assert [j.id for j in client.list_jobs(limit=5)] == ids[:5]
    assert [j.id for j in client.list_jobs(limit=100)] == ids
    assert client.find_by_name("page-0").id == ids[-1]

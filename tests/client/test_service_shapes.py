"""The client reads the job shapes the service answers (issue 42), over HTTP from the local ModelArts.

Evidence for each shape (docs/assumptions.md): terraform-provider-huaweicloud's training-job code and acceptance
tests (environments read into a map; algorithm outputs read as an array; DELETE then GET polled until
ModelArts.2775; list offset + 1 per page; status.secondary_phase read by its data source) and the SDK's models.
"""

from __future__ import annotations

from typing import Any, Iterator

import pytest

from modelarts_emulator.testing import RunningEmulator, running_emulator
from modelarts_provider.client import AkSkCredentials, ClientSettings, CreateTrainingJobRequest, ModelArtsClient
from modelarts_provider.client.models import as_list
from tests.emulator.helpers import HELD, minimal_job

pytestmark = pytest.mark.timeout(120)


def _settings(emu: RunningEmulator) -> ClientSettings:
    return ClientSettings(region="cn-north-4", project_id=emu.project_id, endpoint=emu.url,
                          credentials=AkSkCredentials(access_key=emu.access_key, secret_key=emu.secret_key),
                          backoff_factor=0.05, backoff_max=0.5, retry_total_s=20)


def _request(name: str, **envs: str) -> CreateTrainingJobRequest:
    body: dict[str, Any] = minimal_job(name)
    body["algorithm"]["inputs"].append({"name": "more_data",
                                        "remote": {"obs": {"obs_url": "/emulator-bucket/more/"}}})
    if envs:
        body["algorithm"]["environments"] = envs
    return CreateTrainingJobRequest.model_validate(body)


@pytest.fixture(scope="module")
def emulator_times() -> dict[str, float]:  # tests/conftest.py's module_emu (reset per test as `emu`) runs with these
    return {**HELD, "delete_seconds": 30}  # a deleted job stays until the test moves the clock


@pytest.fixture
def client(emu: RunningEmulator) -> Iterator[ModelArtsClient]:
    with ModelArtsClient(_settings(emu)) as c:
        yield c


def test_environments_map_channel_arrays_and_secondary_phase(client: ModelArtsClient, emu: RunningEmulator) -> None:
    job = client.create_job(_request("shapes", EPOCHS="3", LR="0.1"))
    raw = next(j for j in emu.jobs() if j["metadata"]["id"] == job.id)
    # what the service answers: environments one map, inputs/outputs arrays, a secondary phase
    assert raw["algorithm"]["environments"] == {"EPOCHS": "3", "LR": "0.1"}
    assert isinstance(raw["algorithm"]["inputs"], list) and isinstance(raw["algorithm"]["outputs"], list)
    got = client.get_job(job.id)
    assert got is not None and got.algorithm is not None
    assert got.algorithm.environments == {"EPOCHS": "3", "LR": "0.1"}
    assert [c.name for c in as_list(got.algorithm.inputs)] == ["data_url", "more_data"]
    assert [c.name for c in as_list(got.algorithm.outputs)] == ["train_url"]
    assert (got.phase, got.secondary_phase) == ("Creating", "Creating")
    emu.advance(HELD["phase_seconds"])
    got = client.get_job(job.id)
    assert got is not None and (got.phase, got.secondary_phase) == ("Pending", "Queuing")
    listed = client.find_by_name("shapes")
    assert listed is not None and listed.algorithm is not None
    assert listed.algorithm.environments == {"EPOCHS": "3", "LR": "0.1"}


def test_environments_as_the_response_table_says_read_the_same(tmp_path: Any) -> None:
    with running_emulator(tmp_path, environments_shape="array", **HELD) as emu:
        with ModelArtsClient(_settings(emu)) as client:
            job = client.create_job(_request("table-shape", A="1", B="2"))
            assert emu.jobs()[0]["algorithm"]["environments"] == [{"A": "1"}, {"B": "2"}]
            got = client.get_job(job.id)
            assert got is not None and got.algorithm is not None
            assert got.algorithm.environments == {"A": "1", "B": "2"}


def test_paging_with_offset_counting_pages(client: ModelArtsClient, emu: RunningEmulator) -> None:
    """The service's offset is a page number (Terraform's provider adds 1 per page): every job once, newest
    first, in one request per page."""
    assert emu.settings()["search_offset"] == "pages"
    ids = [client.create_job(_request(f"page-{i}")).id for i in range(7)][::-1]
    before = emu.counters()["search"]
    assert [j.id for j in client.iter_jobs(page_size=3)] == ids
    assert emu.counters()["search"] - before == 3  # pages of 3, 3 and 1
    assert [j.id for j in client.list_jobs(limit=100)] == ids


def test_a_deleted_job_is_answered_until_it_is_gone(client: ModelArtsClient, emu: RunningEmulator) -> None:
    job = client.create_job(_request("async-delete"))
    assert client.delete_job(job.id) is True
    still = client.get_job(job.id)
    assert still is not None and still.id == job.id  # the service deletes asynchronously
    emu.advance(30)
    assert client.get_job(job.id) is None  # ModelArts.2775: gone
    assert client.delete_job(job.id) is False

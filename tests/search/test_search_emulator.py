"""The provider's search path against the local ModelArts over HTTP (no engine): the algorithm catalog
check at preview, create of a search job, its trials read in one request whatever their number, an early
stop, and delete stopping a running search. The engine runs are tests/e2e/test_search.py."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from modelarts_provider.awaiting.searches import read_search
from testkit.providers import job_provider_on
from modelarts_provider.client import AkSkCredentials, ClientSettings, ModelArtsClient
from modelarts_provider.stack.config import parse
from modelarts_provider.stack.program import plan
from tests.provider.common import owner_of

ENGINE = {"name": "PyTorch", "version": "pytorch_1.8.0-cuda_10.2-py_3.7-ubuntu_18.04-x86_64"}
SEARCH = {"objective": {"name": "accuracy", "regex": "accuracy=([0-9.]+)"},
          "space": {"lr": {"loguniform": [0.0001, 0.1]}, "momentum": {"uniform": [0.5, 0.99]}},
          "algorithm": {"name": "tpe_search"}, "trials": 32, "parallel": 4}
RUN_SECONDS = 80.0


@pytest.fixture(scope="module")
def emu(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from modelarts_emulator.testing import running_emulator

    with running_emulator(tmp_path_factory.mktemp("emulator"), phase_seconds=0.1, run_seconds=RUN_SECONDS) as e:
        yield e


@pytest.fixture
def client(emu: Any) -> Iterator[ModelArtsClient]:
    emu.reset()
    with ModelArtsClient(ClientSettings(region="cn-north-4", project_id=emu.project_id, endpoint=emu.url,
                                        credentials=AkSkCredentials(access_key=emu.access_key,
                                                                    secret_key=emu.secret_key))) as c:
        yield c


provider = job_provider_on


def inputs(search: dict[str, Any], name: str = "tune-a") -> dict[str, Any]:
    raw = {"obs": {"main": {"bucket": "bucket-a"}}, "pools": {"cpu": {"flavor": "modelarts.vm.cpu.2u"}},
           "jobs": {"tune": {"pool": "cpu", "codeDir": "obs://bucket-a/code/", "bootFile": "train.py",
                             "engine": ENGINE, "waitFor": "completed", "name": name, "search": search,
                             "logs": False, "outputs": {}}}}
    args = plan(parse(raw))[0].args
    return {**args.model_dump(mode="json", exclude_none=True), "owner": owner_of(name)}


def test_an_unknown_algorithm_is_refused_at_check_with_one_catalog_read(emu: Any, client: ModelArtsClient) -> None:
    p = provider(client)
    failures = p.check({}, inputs({**SEARCH, "algorithm": {"name": "tpe_serch"}})).failures
    assert [f.reason for f in failures] == [
        "modelarts-jobs:jobs.tune.search.algorithm.name: unknown search algorithm 'tpe_serch' in cn-north-4; "
        "did you mean tpe_search?"]
    p.check({}, inputs({**SEARCH, "algorithm": {"name": "anneal_search", "params": {"gama": 1}}}))
    assert emu.counters()["total"] == 3  # flavors, engines, search algorithms: once each for the process


def test_a_32_trial_search_is_read_in_one_request(emu: Any, client: ModelArtsClient) -> None:
    p = provider(client)
    checked = p.check({}, inputs(SEARCH))
    assert checked.failures == []
    created = p.create(checked.inputs)
    job_id = created.outs["job_id"]
    emu.advance(RUN_SECONDS + 5)
    before = emu.counters()["total"]
    search = read_search(client, job_id, "accuracy")
    assert emu.counters()["total"] - before == 1
    assert len(search.trials) == 32 and all(t.phase == "Completed" and t.reward for t in search.trials)
    assert set(search.trials[0].parameters) == {"lr", "momentum"}
    lrs = {float(t.parameters["lr"]) for t in search.trials}
    assert min(lrs) >= 0.0001 and max(lrs) <= 0.1


def test_early_stop_of_a_running_trial_and_delete_stops_the_search(emu: Any, client: ModelArtsClient) -> None:
    p = provider(client)
    created = p.create(p.check({}, inputs(SEARCH, name="tune-b")).inputs)
    job_id = created.outs["job_id"]
    emu.advance(5)
    running = [t for t in read_search(client, job_id, "accuracy").trials if t.phase == "Running"]
    assert running
    assert client.early_stop_trial(job_id, running[0].trial_id) == running[0].trial_id
    emu.advance(1)
    after = {t.trial_id: t for t in read_search(client, job_id, "accuracy").trials}
    assert after[running[0].trial_id].early_stopped
    p.delete(created.id, {**created.outs, **p.check({}, inputs(SEARCH, name="tune-b")).inputs})
    live = {j["metadata"]["id"]: j for j in emu.jobs()}
    assert job_id not in live or live[job_id]["status"]["phase"] in ("Terminated", "Terminating")

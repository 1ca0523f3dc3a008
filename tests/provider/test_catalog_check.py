"""Issue 21 item 1: the catalog check at preview, against the emulator over HTTP.

The emulator serves the training catalogs in the official SDK's shapes (each response is read here with
the SDK's own response model, strictly: every key one the SDK declares). The provider's check reads them
once per process and place, only for jobs to be submitted, skips with one note when they cannot be
read, and refuses a bad flavor, engine or algorithm id naming the config key and the close matches.
"""

from __future__ import annotations

import importlib
import re
import socket
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from modelarts_provider.client import AkSkCredentials, ClientSettings, ModelArtsClient
from testkit.providers import job_provider_on
from modelarts_provider.stack.config import StackConfig
from modelarts_provider.stack.program import plan
from modelarts_provider.training_job.check import check_inputs

from .common import job_inputs

ENGINE = {"engine_name": "PyTorch", "engine_version": "pytorch_1.8.0-cuda_10.2-py_3.7-ubuntu_18.04-x86_64"}
ALGORITHM_ID = "8d1b2f4c-5a6e-4f70-9b81-c2d3e4f5a6b7"  # in the emulator's built-in catalog
CODE = {"code_dir": "obs://bkt/code/", "boot_file": "obs://bkt/code/train.py", "engine": ENGINE}
SDK_MODELS = "huaweicloudsdkmodelarts.v1.model"


@pytest.fixture(scope="module")
def emu(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from modelarts_emulator.testing import running_emulator

    with running_emulator(tmp_path_factory.mktemp("emulator")) as e:
        yield e


@pytest.fixture(autouse=True)
def _fresh(emu: Any) -> None:
    emu.reset()


def _client(emu: Any, *, endpoint: str | None = None, secret_key: str | None = None,
            project_id: str | None = None) -> ModelArtsClient:
    return ModelArtsClient(ClientSettings(
        region="cn-north-4", project_id=project_id or emu.project_id, endpoint=endpoint or emu.url,
        credentials=AkSkCredentials(access_key=emu.access_key, secret_key=secret_key or emu.secret_key)))


_provider = job_provider_on  # a provider on its own client (its own catalog cache)


def _catalog_calls(emu: Any) -> dict[str, int]:
    c = emu.counters()
    return {k: c[k] for k in ("flavors", "engines", "algorithm")} | {"total": c["total"]}


# --- the emulator serves the SDK's shapes -------------------------------------------------------------


def _sdk(data: Any, klass: str) -> Any:
    """`data` read into the SDK's model `klass` (its openapi_types), refusing any key the SDK does not declare."""
    if klass.startswith("list["):
        assert isinstance(data, list), f"{klass}: not a list: {data!r}"
        return [_sdk(d, klass[5:-1]) for d in data]
    m = re.fullmatch(r"dict\(str, (.*)\)", klass)
    if m:
        assert isinstance(data, dict)
        return {k: _sdk(v, m[1]) for k, v in data.items()}
    natives = {"str": str, "int": int, "bool": bool, "float": (int, float), "object": object}
    if klass in natives:
        assert isinstance(data, natives[klass]), f"{klass}: {data!r}"
        return data
    model = getattr(importlib.import_module(SDK_MODELS), klass)
    assert isinstance(data, dict), f"{klass}: not an object: {data!r}"
    unknown = set(data) - set(model.attribute_map.values())
    assert not unknown, f"{klass} has no {sorted(unknown)}"
    by_wire = {wire: attr for attr, wire in model.attribute_map.items()}
    return model(**{by_wire[k]: _sdk(v, model.openapi_types[by_wire[k]]) for k, v in data.items()})


def test_the_emulator_serves_the_catalogs_in_the_sdk_shapes(emu: Any) -> None:
    s = emu.session()
    base = f"{emu.url}/v2/{emu.project_id}"
    flavors = s.get(f"{base}/training-job-flavors").json()
    parsed = _sdk(flavors, "ShowTrainingJobFlavorsResponse")
    ids = [f.flavor_id for f in parsed.flavors]
    assert parsed.total_count == len(ids) and "modelarts.p3.large.public" in ids and "modelarts.vm.cpu.2u" in ids
    assert not [i for i in ids if i.startswith("modelarts.pool.")]  # a dedicated pool's flavors are not public
    cpu = _sdk(s.get(f"{base}/training-job-flavors", params={"flavor_type": "CPU"}).json(),
               "ShowTrainingJobFlavorsResponse")
    assert {f.flavor_type for f in cpu.flavors} == {"CPU"} and cpu.total_count == len(cpu.flavors) >= 2

    engines = _sdk(s.get(f"{base}/training-job-engines").json(), "ShowTrainingJobEnginesResponse")
    assert engines.total == len(engines.items)
    assert (ENGINE["engine_name"], ENGINE["engine_version"]) in {(e.engine_name, e.engine_version)
                                                                 for e in engines.items}

    alg = _sdk(s.get(f"{base}/algorithms/{ALGORITHM_ID}").json(), "ShowAlgorithmByUuidResponse")
    assert alg.metadata.id == ALGORITHM_ID and alg.job_config.engine.engine_name == "PyTorch"
    missing = s.get(f"{base}/algorithms/no-such-algorithm")
    assert missing.status_code == 400 and missing.json()["error_code"] == "ModelArts.2755"
    assert _catalog_calls(emu) == {"flavors": 2, "engines": 1, "algorithm": 2, "total": 5}


def test_the_client_reads_the_catalogs(emu: Any) -> None:
    with _client(emu) as client:
        assert "modelarts.p3.large.public" in {f.flavor_id for f in client.list_training_flavors().flavors}
        assert {f.flavor_type for f in client.list_training_flavors("GPU").flavors} == {"GPU"}
        assert any(e.engine_name == "PyTorch" for e in client.list_training_engines().items)
        detail = client.get_algorithm(ALGORITHM_ID)
        assert detail is not None and detail.metadata is not None and detail.metadata.id == ALGORITHM_ID
        assert client.get_algorithm("no-such-algorithm") is None


# --- the check --------------------------------------------------------------------------------------


def _new(**over: Any) -> dict[str, Any]:
    return job_inputs(**{"algorithm": {**CODE}, "flavor_id": "modelarts.p3.large.public", **over})


def test_n_jobs_read_each_catalog_once(emu: Any) -> None:
    with _client(emu) as client:
        p = _provider(client)
        jobs = [_new(name=f"job-{i}", algorithm={"id": ALGORITHM_ID}) if i % 2 else _new(name=f"job-{i}")
                for i in range(8)]
        threads = [threading.Thread(target=lambda j=j: results.append(p.check({}, j))) for j in jobs]
        results: list[Any] = []
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert [r.failures for r in results] == [[]] * 8
        assert _catalog_calls(emu) == {"flavors": 1, "engines": 1, "algorithm": 1, "total": 3}


def test_an_unchanged_job_makes_no_call_and_a_changed_one_is_checked(emu: Any) -> None:
    with _client(emu) as client:
        p = _provider(client)
        inputs = p.check({}, _new()).inputs
        state = {**inputs, "job_id": "j1", "job_name": "job-a", "phase": "Completed"}
        emu.reset()
        # unchanged, or changed where nothing is submitted (description, provider options): no call
        assert p.check(state, _new()).failures == []
        assert p.check(state, _new(description="other", wait_for="none")).failures == []
        assert emu.counters()["total"] == 0
        # a fresh provider process (its own client, cache empty) with a changed flavor: checked
        with _client(emu) as other:
            failures = _provider(other).check(state, _new(flavor_id="modelarts.p3.largee.public")).failures
        assert [f.reason for f in failures] == ["unknown flavor 'modelarts.p3.largee.public' in cn-north-4; "
                                                "did you mean modelarts.p3.large.public?"]
        assert _catalog_calls(emu)["flavors"] == 1


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize("case", ["refused", "unauthorized", "forbidden", "not-published"])
def test_an_unreadable_catalog_skips_with_one_note(emu: Any, case: str, capsys: pytest.CaptureFixture[str]) -> None:
    if case == "refused":
        client = _client(emu, endpoint=f"http://127.0.0.1:{_closed_port()}")
    elif case == "unauthorized":
        client = _client(emu, secret_key="not-the-secret-key")
    elif case == "forbidden":
        client = _client(emu, project_id="0123456789abcdef0123456789abcdef")
    else:
        client = _client(emu)
        emu.set_faults([{"operation": "flavors", "kind": "status", "status": 404, "times": 5}])
    with client:
        p = _provider(client)
        # bad values everywhere: nothing can be said about them, the service checks them at create
        results = [p.check({}, _new(name=f"job-{i}", flavor_id="modelarts.p3.largee.public",
                                    algorithm={**CODE, "engine": {**ENGINE, "engine_version": "nope"}}))
                   for i in range(3)]
    assert [r.failures for r in results] == [[], [], []]
    notes = [line for line in capsys.readouterr().err.splitlines() if "catalog check skipped" in line]
    assert len(notes) == 1, notes
    code = {"refused": "Client.ConnectionError", "unauthorized": "APIGW.0301", "forbidden": "APIGW.0302",
            "not-published": "APIGW.0101"}[case]
    assert notes[0].startswith("warning: catalog check skipped: cannot read the training catalogs of cn-north-4 "
                               f"(training-job-flavors: {code} ") and "checked by the service" in notes[0]
    if case == "refused":  # the URL tried and the setting that decides it, once
        assert "nothing listens at http://127.0.0.1:" in notes[0] and "modelarts:endpoint" in notes[0]
    # one attempt, not retried, nothing read after it
    assert emu.counters()["flavors"] == (0 if case == "refused" else 1) and emu.counters()["engines"] == 0


STACK = {
    "obs": {"main": {"bucket": "emulator-bucket"}},
    "pools": {"gpu": {"flavor": "modelarts.p3.large.public"}},
    "jobs": {"mnist": {"pool": "gpu", "codeDir": "mnist/", "bootFile": "train.py",
                       "engine": {"name": "PyTorch", "version": ENGINE["engine_version"]}},
             "algo": {"pool": "gpu", "algorithmId": ALGORITHM_ID}},
}


def _stack_failures(emu: Any, edit: Any) -> list[str]:
    """The check's failures for the stack program's TrainingJob args of STACK after `edit`, as
    `<property>: <reason>` (what `pulumi preview` prints)."""
    import copy

    raw = copy.deepcopy(STACK)
    edit(raw)
    plans = plan(StackConfig.model_validate(raw))
    out: list[str] = []
    with _client(emu) as client:
        p = _provider(client)
        for pl in plans:
            news = {**pl.args.model_dump(exclude_none=True), "name": f"{pl.key}-abcdef"}
            inputs, failures = check_inputs(news)
            assert failures == []
            out += [f"{f.property}: {f.reason}" for f in p.check({}, news).failures]
    return out


@pytest.mark.parametrize("edit,expected", [
    (lambda c: c["pools"]["gpu"].update(flavor="modelarts.p3.largee.public"),
     ["flavor_id: modelarts-jobs:pools.gpu.flavor: unknown flavor 'modelarts.p3.largee.public' in cn-north-4; "
      "did you mean modelarts.p3.large.public?"] * 2),
    (lambda c: c["jobs"]["mnist"]["engine"].update(name="Pytorch"),
     ["algorithm.engine.engine_name: modelarts-jobs:jobs.mnist.engine.name: unknown engine 'Pytorch' in "
      "cn-north-4; did you mean PyTorch?"]),
    (lambda c: c["jobs"]["mnist"]["engine"].update(version="pytorch_1.8.0-cuda_10.2-py_3.7-ubuntu_18.04"),
     ["algorithm.engine.engine_version: modelarts-jobs:jobs.mnist.engine.version: unknown version "
      "'pytorch_1.8.0-cuda_10.2-py_3.7-ubuntu_18.04' of engine PyTorch in cn-north-4; did you mean "
      "pytorch_1.8.0-cuda_10.2-py_3.7-ubuntu_18.04-x86_64?"]),
    (lambda c: c["jobs"]["algo"].update(algorithmId="8d1b2f4c-0000-4f70-9b81-c2d3e4f5a6b7"),
     ["algorithm.id: modelarts-jobs:jobs.algo.algorithmId: unknown algorithm id "
      "'8d1b2f4c-0000-4f70-9b81-c2d3e4f5a6b7' in cn-north-4: algorithm management does not have it "
      "(ModelArts.2755 algorithm not found)"]),
    # a dedicated pool's flavor is the pool's: not looked up in the public list
    (lambda c: c["pools"]["gpu"].update(flavor="modelarts.pool.visual.xlarge", poolId="poolfaf38d76"), []),
    (lambda c: None, []),
], ids=["flavor", "engine-name", "engine-version", "algorithm-id", "dedicated-pool", "valid"])
def test_a_bad_id_names_the_config_key_and_the_close_matches(emu: Any, edit: Any, expected: list[str]) -> None:
    assert _stack_failures(emu, edit) == expected


def test_library_use_names_the_argument(emu: Any) -> None:
    with _client(emu) as client:
        failures = _provider(client).check({}, _new(algorithm={**CODE, "engine": {"engine_id": "pytorch-1.8"}})).failures
    assert [(f.property, f.reason) for f in failures] == [
        ("algorithm.engine.engine_id", "unknown engine id 'pytorch-1.8' in cn-north-4; did you mean "
         "pytorch-cp36-1.4.0-v2?")]


def test_a_secret_value_is_named_but_never_shown(emu: Any) -> None:
    """A value the stack marks secret (its `secret_paths`, issue 20): the failure names the key, not the
    value, and lists no close match (it would tell the value)."""
    from modelarts_provider.training_job.catalog_check import CatalogCache, catalog_failures

    news = {"flavor_id": "modelarts.p3.largee.public", "config_keys": {"flavor_id": "modelarts-jobs:pools.gpu.flavor",
                                                                       "algorithm.engine": "modelarts-jobs:jobs.a.engine"},
            "algorithm": {"engine": {"engine_name": "Pytorch", "engine_version": "v"}},
            "secret_paths": ["flavor_id", "algorithm.engine.engine_name"]}
    with _client(emu) as client:
        failures = catalog_failures(news, CatalogCache(client, "cn-north-4", print))
    assert [f.reason for f in failures] == [
        "modelarts-jobs:pools.gpu.flavor: unknown flavor (a secret value, not shown) in cn-north-4",
        "modelarts-jobs:jobs.a.engine.name: unknown engine (a secret value, not shown) in cn-north-4"]
    assert not any("largee" in f.reason or "Pytorch" in f.reason or "PyTorch" in f.reason for f in failures)

"""The fake keeps the real client's contract: the same scenario, run through FakeClient and through
the real ModelArtsClient talking to the emulator (in this process, over localhost), sees the same.

Compared: listing (one workspace, newest first, name_like, phases, limit, pages), find_by_name,
duplicate names (refused by default, allowed by the switch), gone jobs (get None, delete False,
terminate/update ModelArts.2775), description updates, terminate of an active job. Job ids differ
between the two, so observations name jobs by name.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from modelarts_emulator.config import EmulatorConfig
from modelarts_emulator.server import EmulatorServer
from modelarts_provider.client import AkSkCredentials, ClientSettings, ModelArtsClient
from modelarts_provider.client.errors import ModelArtsError
from modelarts_provider.client.models import CreateTrainingJobRequest
from modelarts_provider.training_job.args import TrainingJobArgs

from .common import CODE, job_inputs
from .fakes import FakeClient

# An engine of the emulator's catalog (it validates engines and flavors like the service).
ENGINE = {"engine_name": "PyTorch", "engine_version": "pytorch_1.8.0-cuda_10.2-py_3.7-ubuntu_18.04-x86_64"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmulatorServer]:
    # Phases move on a clock the scenario never reaches: both sides stay in Creating / Terminating.
    cfg = EmulatorConfig(port=0, db=Path(tmp_path_factory.mktemp("emu")) / "emu.db",
                         phase_seconds=3600, run_seconds=3600)
    srv = EmulatorServer(cfg)
    thread = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()
    thread.join(5)


@pytest.fixture
def real(server: EmulatorServer) -> Iterator[tuple[ModelArtsClient, Callable[[bool], None]]]:
    server.app.store.reset()
    cfg = server.app.config
    settings = ClientSettings(region="cn-north-4", project_id=cfg.project_id, endpoint=server.url,
                              credentials=AkSkCredentials(access_key=cfg.access_key, secret_key=cfg.secret_key),
                              max_retries=0)

    def allow_duplicates(on: bool) -> None:
        server.app.jobs.allow_duplicate_names = on

    client = ModelArtsClient(settings)
    yield client, allow_duplicates
    allow_duplicates(False)
    client.close()


def fake_side() -> tuple[FakeClient, Callable[[bool], None]]:
    fake = FakeClient(script=["Creating"])  # stays Creating, like the emulator's slow clock
    fake.terminating_polls = 10**6           # stays Terminating, likewise
    fake.deleting_polls = 10**6              # a deleted job is still answered, likewise

    def allow_duplicates(on: bool) -> None:
        fake.allow_duplicate_names = on

    return fake, allow_duplicates


def request(name: str, workspace_id: str | None = None, **over: Any) -> CreateTrainingJobRequest:
    args = TrainingJobArgs.model_validate(job_inputs(name=name, workspace_id=workspace_id,
                                                     algorithm={**CODE, "engine": ENGINE}, **over))
    return CreateTrainingJobRequest.model_validate(args.to_wire())


def seen(job: Any) -> Any:
    if job is None:
        return None
    return (job.name, job.metadata.workspace_id, job.phase, job.description)


def outcome(call: Callable[[], Any]) -> Any:
    try:
        return call()
    except ModelArtsError as err:
        return ("error", err.status, err.error_code)


def scenario(client: Any, allow_duplicates: Callable[[bool], None]) -> list[Any]:
    ids: dict[str, str] = {}
    out: list[Any] = []

    def create(name: str, workspace_id: str | None = None) -> Any:
        time.sleep(0.005)  # distinct create times: "newest first" is well defined
        got = outcome(lambda: client.create_job(request(name, workspace_id)))
        if isinstance(got, tuple):
            return got
        ids.setdefault(name, got.id)
        return seen(got)

    def names(jobs: Any) -> list[str]:
        return [j.name for j in jobs]

    out.append(("create", [create("alpha"), create("beta"), create("delta", "ws-1"), create("gamma")]))
    out.append(("list", names(client.list_jobs())))
    out.append(("list ws-1", names(client.list_jobs(workspace_id="ws-1"))))
    out.append(("list ws 0", names(client.list_jobs(workspace_id="0"))))
    out.append(("like", names(client.list_jobs(name_like="ALPH")), names(client.list_jobs(name_like="a"))))
    out.append(("limit", names(client.list_jobs(limit=2))))
    out.append(("phases", names(client.list_jobs(phases=["Creating"])), names(client.list_jobs(phases=["Failed"]))))
    out.append(("pages", names(client.iter_jobs(page_size=2)), names(client.iter_jobs(page_size=1))))
    out.append(("find", seen(client.find_by_name("alpha")), seen(client.find_by_name("alph")),
                seen(client.find_by_name("delta")), seen(client.find_by_name("delta", "ws-1"))))
    out.append(("duplicate refused", create("beta"), create("delta")))
    out.append(("get", seen(client.get_job(ids["beta"])), seen(client.get_job(ids["delta"]))))
    out.append(("update", seen(client.update_description(ids["beta"], "new text")), seen(client.get_job(ids["beta"]))))
    out.append(("terminate", seen(client.terminate_job(ids["gamma"])), seen(client.get_job(ids["gamma"]))))
    out.append(("delete", client.delete_job(ids["beta"]), client.delete_job(ids["beta"]),
                seen(client.get_job(ids["beta"])), names(client.list_jobs())))
    # deletes are asynchronous: the job is still answered for a while
    out.append(("while deleting", seen(outcome(lambda: client.terminate_job(ids["beta"]))),
                seen(outcome(lambda: client.update_description(ids["beta"], "x")))))
    allow_duplicates(True)
    out.append(("duplicate allowed", create("alpha"), names(client.list_jobs(name_like="alpha"))))
    newest = client.find_by_name("alpha")
    out.append(("newest of a name", newest.id != ids["alpha"], newest.metadata.create_time
                == max(j.metadata.create_time for j in client.list_jobs(name_like="alpha"))))
    return out


def test_fake_and_real_client_see_the_same(real):
    fake_obs = scenario(*fake_side())
    real_obs = scenario(*real)
    for f, r in zip(fake_obs, real_obs):
        assert f == r, f"fake {f} != real {r}"
    assert len(fake_obs) == len(real_obs)
    # and the scenario does say something (not everything empty or None)
    as_dict = {o[0]: o[1:] for o in real_obs}
    assert as_dict["list"] == (["gamma", "beta", "alpha"],)
    assert as_dict["duplicate refused"] == (("error", 400, "ModelArts.2751"), ("error", 400, "ModelArts.2751"))
    # a delete is asynchronous: accepted twice, the job still answered and listed for a while
    assert as_dict["delete"] == (True, True, ("beta", "0", "Creating", "new text"), ["gamma", "beta", "alpha"])
    assert as_dict["while deleting"] == (("beta", "0", "Terminating", "new text"), ("beta", "0", "Terminating", "x"))


def test_fake_search_all_workspaces_lists_every_workspace(server, real):
    client, _ = real
    fake, _ = fake_side()
    fake.search_all_workspaces = server.app.jobs.search_all_workspaces = True
    try:
        observed = []
        for side in (fake, client):
            for name, ws in (("a", None), ("b", "ws-1")):
                time.sleep(0.005)
                side.create_job(request(name, ws))
            observed.append(([j.name for j in side.list_jobs()], [j.name for j in side.list_jobs(workspace_id="ws-1")],
                             [j.name for j in side.list_jobs(workspace_id="0")]))
    finally:
        server.app.jobs.search_all_workspaces = False
    assert observed[0] == observed[1] == (["b", "a"], ["b"], ["a"])


def test_fake_create_models_the_clients_ambiguous_create():
    req = request("job-a")
    c = FakeClient()
    c.fail_create_after_commit = True
    job = c.create_job(req)
    assert list(c.jobs) == [job.id] and c.calls == ["create", "search"]  # resolved by name, not resent

    c = FakeClient()
    c.ambiguous_create_unresolved = True
    with pytest.raises(ModelArtsError) as e:
        c.create_job(req)
    assert e.value.error_code == "Client.AmbiguousCreate" and len(c.jobs) == 1  # it did commit


def test_fake_phases_walk_the_script_one_get_at_a_time():
    c = FakeClient(script=["Creating", "Pending", "Running", "Completed"])
    job = c.create_job(request("job-a"))
    assert job.phase == "Creating"
    assert [c.get_job(job.id).phase for _ in range(4)] == ["Pending", "Running", "Completed", "Completed"]
    assert c.list_jobs()[0].phase == "Completed" and c.count("get") == 4 and c.count("list") == 1

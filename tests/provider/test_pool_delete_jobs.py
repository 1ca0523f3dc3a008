"""Issue 43 finding 5 at the ResourcePool provider, against the local ModelArts over HTTP: a pool's delete looks
at the jobs running on it first. Another owner's job (another stack's mark, or none) stops the delete with one
line naming it and its owner, and the pool and the job are left as they are; `force_delete` deletes the pool
anyway, naming the job in a warning; a job of the pool's own stack (left outside the state) is stopped first."""

from __future__ import annotations

from typing import Any

import pytest

from modelarts_emulator.testing import RunningEmulator
from modelarts_provider.client.models import CreateTrainingJobRequest
from modelarts_provider.core.identity import mark_key
from modelarts_provider.core.ownership import OwnerMark
from modelarts_provider.core.provider_error import ProviderError
from modelarts_provider.resource_pool.provider import ResourcePoolProvider
from tests.emulator.helpers import minimal_job

from .common import owner_of
from .test_resource_pool import _configured, _network, _pool_props, said  # noqa: F401 - said: a fixture


@pytest.fixture(scope="module")
def emulator_times() -> dict[str, float]:  # jobs run long: they are Running when the pool is deleted
    return {"phase_seconds": 0.2, "run_seconds": 600, "network_seconds": 0.2, "pool_seconds": 0.6}


def _pool(emu: RunningEmulator) -> tuple[ResourcePoolProvider, str, dict[str, Any]]:
    _, net, _ = _network(emu)
    pools = _configured(ResourcePoolProvider, emu)
    created = pools.create(_pool_props(net))
    return pools, created.id, created.outs


def _job_on(emu: RunningEmulator, pools: ResourcePoolProvider, pool: str, name: str, owner: dict | None) -> str:
    body = minimal_job(name)
    body["spec"]["resource"] = {"pool_id": pool, "node_count": 1}
    if owner is not None:
        body["metadata"]["annotations"] = OwnerMark.model_validate(owner).annotations("job", name)
    job = pools._api().create_job(CreateTrainingJobRequest.model_validate(body))
    emu.advance(2)  # Creating -> Running on the pool's free node
    return job.id or ""


def _phase(emu: RunningEmulator, job_id: str) -> str:
    return next(j["status"]["phase"] for j in emu.jobs() if j["metadata"]["id"] == job_id)


def test_another_stacks_job_stops_the_delete_naming_it(emu, said):
    pools, pool, outs = _pool(emu)
    theirs = _job_on(emu, pools, pool, "their-job", owner_of("train", stack="organization/proj/other"))
    unmarked = _job_on(emu, pools, pool, "console-job", None)
    assert {_phase(emu, theirs), _phase(emu, unmarked)} == {"Running"}
    with pytest.raises(ProviderError) as refused:
        pools.delete(pool, outs)
    msg = str(refused.value)
    assert "\n" not in msg
    assert f"pool gpu-pool ({pool}): not deleted, 2 jobs of another owner run on it and would fail" in msg
    assert f"their-job ({theirs}, Running; it belongs to organization/proj/other::train" in msg
    assert f"console-job ({unmarked}, Running; it carries no owner mark" in msg
    assert "set forceDelete: true on the pool" in msg
    # Nothing was done: the pool stands, the jobs run.
    assert [e for e in emu.pools()["events"] if e["action"] == "delete"] == []
    assert {_phase(emu, theirs), _phase(emu, unmarked)} == {"Running"} and emu.counters()["terminate"] == 0

    pools.delete(pool, {**outs, "force_delete": True})
    assert any(line.startswith("warning: pool gpu-pool: deleted with forceDelete while their-job") for line in said)
    assert [(e["kind"], e["action"]) for e in emu.pools()["events"] if e["action"] == "delete"] == [("pool", "delete")]
    assert _phase(emu, theirs) == "Failed"  # the emulator fails a job whose pool is deleted under it


def test_a_job_of_the_pools_own_stack_is_stopped_first(emu, said, monkeypatch):
    pools, pool, outs = _pool(emu)
    ours = _job_on(emu, pools, pool, "left-behind", owner_of("job-x"))  # same stack as the pool, another resource
    pools.delete(pool, outs)
    assert any("left-behind" in line and "stopping it before the pool is deleted" in line for line in said)
    assert _phase(emu, ours) == "Terminated" and emu.counters()["terminate"] == 1
    assert emu.counters()["delete"] == 0  # stopped, not deleted: a run's record stays
    assert any(e["kind"] == "pool" and e["action"] == "delete" for e in emu.pools()["events"])


def test_a_pool_without_jobs_is_deleted_after_one_listing(emu, said):
    pools, pool, outs = _pool(emu)
    before = emu.counters()["search"]
    pools.delete(pool, outs)
    assert emu.counters()["search"] == before + 1


def test_a_network_delete_checks_the_jobs_on_the_pools_it_removes(emu, said, monkeypatch):
    """Issue 43: a network's delete removes the pools this stack made on it that no state holds (a killed `up`, a
    `state delete`); each after the same check as a pool's own delete: another owner's job stops it (nothing is
    deleted), ours is stopped, and `force_delete` on the network deletes anyway, naming the job."""
    from .test_resource_pool import _network

    monkeypatch.setattr("modelarts_provider.network.provider.say", said.append)
    nets, net, net_outs = _network(emu)
    pools = _configured(ResourcePoolProvider, emu)
    pool = pools.create(_pool_props(net)).id  # in no state: the network's delete removes it
    theirs = _job_on(emu, pools, pool, "their-job", owner_of("train", stack="organization/proj/other"))
    ours = _job_on(emu, pools, pool, "left-behind", owner_of("job-x"))  # the network's stack
    with pytest.raises(ProviderError) as refused:
        nets.delete(net, net_outs)
    msg = str(refused.value)
    assert "\n" not in msg
    assert f"pool {pool} ({pool}): not deleted, 1 job of another owner runs on it and would fail: their-job " \
           f"({theirs}, Running; it belongs to organization/proj/other::train" in msg, msg
    assert "set forceDelete: true on the network (force_delete in a program)" in msg, msg
    assert [e for e in emu.pools()["events"] if e["action"] == "delete"] == []  # nothing deleted
    assert {_phase(emu, theirs), _phase(emu, ours)} == {"Running"} and emu.counters()["terminate"] == 0

    nets.delete(net, {**net_outs, "force_delete": True})
    assert any(line.startswith(f"warning: pool {pool}: deleted with forceDelete while their-job") for line in said)
    assert _phase(emu, ours) == "Terminated" and _phase(emu, theirs) == "Failed"
    assert [(e["kind"], e["action"]) for e in emu.pools()["events"] if e["action"] == "delete"] == [
        ("pool", "delete"), ("network", "delete")]


def test_a_same_named_stack_elsewhere_is_another_owner_by_its_proof(emu, said):
    """Issue 54, case 4: two stacks of the same project and stack name on two backends (file backends all say
    `organization`) write the same owner text; only the proof, made with each stack's own mark key (from its own
    seed), tells them apart. The pool's delete stops this stack's job and refuses the namesake's."""
    mine, theirs_key = mark_key("a" * 64), mark_key("b" * 64)
    _, net, _ = _network(emu)
    pools = _configured(ResourcePoolProvider, emu)
    created = pools.create(_pool_props(net, owner={**owner_of("pool-gpu"), "key": mine}))
    pool, outs = created.id, created.outs
    ours = _job_on(emu, pools, pool, "left-behind", {**owner_of("job-x"), "key": mine})
    namesake = _job_on(emu, pools, pool, "namesake-job", {**owner_of("job-x"), "key": theirs_key})
    with pytest.raises(ProviderError) as refused:
        pools.delete(pool, outs)
    assert f"namesake-job ({namesake}, Running; it belongs to organization/proj/dev::job-x" in str(refused.value)
    assert "left-behind" not in str(refused.value)
    assert {_phase(emu, namesake), _phase(emu, ours)} == {"Running"} and emu.counters()["terminate"] == 0
    assert [e for e in emu.pools()["events"] if e["action"] == "delete"] == []

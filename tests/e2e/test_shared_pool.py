"""Issue 43 finding 5 under the real engine: stack A creates a pool, stack B runs a job on it (`poolId`); A's
`destroy` stops before deleting the pool, with one line naming B's job and its owner, and B's job keeps running.
With `forceDelete: true` (recorded by an `up`), A's destroy deletes the pool and B's job fails.

The same for a network's delete, which removes the pools A made on it that left its state: it stops naming B's job,
and deletes with the network's `forceDelete`.

Both doors: A as the stack program (`pools.<key>.create.forceDelete`) and as a YAML program (the ResourcePool's
`forceDelete`); B is the stack program in both.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from testkit.faults import PROJECT, job, job_stack, output_of, own_pool, phase_of, pools_of, update_config
from testkit.emulators import fresh_emulator
from testkit.harness import Stack
from testkit.plugin_program import yaml_stack

POOL_FLAVOR = "modelarts.vm.gpu.tnt004"


emu = fresh_emulator(phase_seconds=0.2, run_seconds=600, network_seconds=0.3, pool_seconds=1.0)
# The service may leave annotations out of its answers (issue 54): the marks are then read from tags and labels.
dropping_emu = fresh_emulator("dropping_emu", phase_seconds=0.2, run_seconds=600, network_seconds=0.3,
                              pool_seconds=1.0, drop_annotations=True)


def _python_owner(tmp_path: Path, emu: Any) -> tuple[Stack, dict[str, Any]]:
    st = job_stack(tmp_path / "a", emu, jobs={}, pools=own_pool(1, timeout_seconds=60), stack="a")
    update_config(st, {f"{PROJECT}:networks": {"main": {}}})
    return st, own_pool(1, timeout_seconds=60)


def _force_python(st: Stack, pools: dict[str, Any]) -> None:
    pools["own"]["create"]["forceDelete"] = True
    update_config(st, {f"{PROJECT}:pools": pools})


def _yaml_resources(force: bool) -> dict[str, Any]:
    return {"main": {"type": "modelarts:index:Network", "properties": {"name": "yaml-net", "cidr": "192.168.128.0/17",
                                                                       "pollIntervalSeconds": 0.2}},
            "own": {"type": "modelarts:index:ResourcePool", "properties": {
                "name": "yaml-pool", "network": "${main.networkName}",
                "resources": [{"flavor": POOL_FLAVOR, "count": 1}], "pollIntervalSeconds": 0.2,
                **({"forceDelete": True} if force else {})}}}


def _yaml_owner(tmp_path: Path, emu: Any) -> tuple[Stack, dict[str, Any]]:
    return yaml_stack(tmp_path / "a", emu, _yaml_resources(False)), {}


def _force_yaml(st: Stack, _pools: dict[str, Any]) -> None:
    from testkit.plugin_program import write_program

    write_program(st.workdir, _yaml_resources(True))


OWNERS = {"python": (_python_owner, _force_python), "yaml": (_yaml_owner, _force_yaml)}


@pytest.mark.parametrize("door", sorted(OWNERS))
def test_destroying_a_pool_another_stacks_job_runs_on_is_refused(tmp_path: Path, emu: Any, door: str) -> None:
    make, force = OWNERS[door]
    a, pools = make(tmp_path, emu)
    a.up()
    (pool,) = pools_of(emu, live=True)
    pool_name = pool["metadata"]["name"]

    b = job_stack(tmp_path / "b", emu, stack="b", pools={"theirs": {"poolId": pool_name, "maxNodes": 1}},
                  jobs={"train": job(name="b-train", pool="theirs", waitFor="running")})
    b.up()
    (theirs,) = emu.jobs()
    assert theirs["spec"]["resource"]["pool_id"] == pool_name and phase_of(theirs) == "Running"

    refused = a.destroy(check=False)
    text = output_of(refused)
    assert refused.returncode != 0, text
    assert f"not deleted, 1 job of another owner runs on it and would fail: b-train ({theirs['metadata']['id']}, " \
           "Running; it belongs to " in text and "/b::" in text, text
    assert "set forceDelete: true on the pool" in text, text
    assert [p["metadata"]["name"] for p in pools_of(emu, live=True)] == [pool_name]  # the pool stands
    assert phase_of(emu.jobs()[0]) == "Running" and emu.counters()["terminate"] == 0  # B's job runs on

    force(a, pools)
    a.up()  # records forceDelete: no API call beyond the unchanged resources' none
    forced = output_of(a.destroy())
    assert "deleted with forceDelete while b-train" in forced, forced
    assert pools_of(emu, live=True) == []
    assert phase_of(emu.jobs()[0]) == "Failed"  # B's job failed with the pool, as the user accepted


# --- a network's delete (issue 43): the pools it removes are checked the same way ------------------------------


def _python_net_owner(tmp_path: Path, emu: Any) -> Stack:
    st = job_stack(tmp_path / "a", emu, jobs={}, pools=own_pool(1, timeout_seconds=60), stack="a")
    update_config(st, {f"{PROJECT}:networks": {"main": {}}})
    return st


def _python_net_only(st: Stack, force: bool) -> None:
    update_config(st, {f"{PROJECT}:pools": {}, f"{PROJECT}:networks": {"main": {"forceDelete": True} if force else {}}})


def _yaml_net_owner(tmp_path: Path, emu: Any) -> Stack:
    return yaml_stack(tmp_path / "a", emu, _yaml_resources(False))


def _yaml_net_only(st: Stack, force: bool) -> None:
    from testkit.plugin_program import write_program

    net = _yaml_resources(False)["main"]
    write_program(st.workdir, {"main": {**net, "properties": {**net["properties"],
                                                              **({"forceDelete": True} if force else {})}}})


NET_OWNERS = {"python": (_python_net_owner, _python_net_only), "yaml": (_yaml_net_owner, _yaml_net_only)}


@pytest.mark.parametrize("door", sorted(NET_OWNERS))
def test_a_network_delete_removing_our_untracked_pool_stops_on_another_stacks_job(tmp_path: Path, emu: Any,
                                                                                 door: str) -> None:
    make, net_only = NET_OWNERS[door]
    a = make(tmp_path, emu)
    a.up()
    (pool,) = pools_of(emu, live=True)
    pool_name = pool["metadata"]["name"]
    # The pool leaves A's state (a killed `up`, a `state delete`): A's network's delete is what removes it.
    (pool_urn,) = [r["urn"] for r in a.resources() if r["type"].endswith(":ResourcePool")]
    a.run("state", "delete", pool_urn, "--yes")
    net_only(a, False)
    a.up()
    assert [p["metadata"]["name"] for p in pools_of(emu, live=True)] == [pool_name]

    b = job_stack(tmp_path / "b", emu, stack="b", pools={"theirs": {"poolId": pool_name, "maxNodes": 1}},
                  jobs={"train": job(name="b-train", pool="theirs", waitFor="running")})
    b.up()
    (theirs,) = emu.jobs()

    refused = a.destroy(check=False)
    text = output_of(refused)
    assert refused.returncode != 0, text
    assert f"pool {pool_name} ({pool_name}): not deleted, 1 job of another owner runs on it and would fail: b-train " \
           f"({theirs['metadata']['id']}, Running; it belongs to " in text and "/b::" in text, text
    assert "set forceDelete: true on the network" in text, text
    assert [p["metadata"]["name"] for p in pools_of(emu, live=True)] == [pool_name]
    assert not [e for e in emu.pools()["events"] if e["action"] == "delete"]  # nothing deleted
    assert phase_of(emu.jobs()[0]) == "Running" and emu.counters()["terminate"] == 0

    net_only(a, True)
    a.up()  # records forceDelete
    forced = output_of(a.destroy())
    assert f"pool {pool_name}: deleted with forceDelete while b-train" in forced, forced
    assert pools_of(emu, live=True) == [] and phase_of(emu.jobs()[0]) == "Failed"
    assert [(e["kind"], e["action"]) for e in emu.pools()["events"] if e["action"] == "delete"] == [
        ("pool", "delete"), ("network", "delete")]


# --- issue 54 case 4: a same-named stack on another backend is another owner -----------------------------------


def _python_namesake(tmp_path: Path, emu: Any, owner: Stack, pool_name: str) -> Stack:
    """The stack program of the same project and stack name as `owner`, on a backend of its own."""
    return job_stack(tmp_path / "b", emu, stack=owner.name, pools={"theirs": {"poolId": pool_name, "maxNodes": 1}},
                     jobs={"train": job(name="b-train", pool="theirs", waitFor="running")})


def _yaml_namesake(tmp_path: Path, emu: Any, owner: Stack, pool_name: str) -> Stack:
    """A YAML program of the same project and stack name as `owner` (yaml_stack's), on a backend of its own."""
    from tests.e2e.test_plugin_yaml import ALGORITHM_ID

    st = yaml_stack(tmp_path / "b", emu, {"train": {"type": "modelarts:index:TrainingJob", "properties": {
        "name": "b-train", "algorithm": {"id": ALGORITHM_ID}, "poolId": pool_name, "pollIntervalSeconds": 0.2}}})
    project = [line for line in (owner.workdir / "Pulumi.yaml").read_text().splitlines() if line.startswith("name:")]
    assert project and project[0] in (st.workdir / "Pulumi.yaml").read_text().splitlines() and st.name == owner.name
    return st


NAMESAKES = {"python": _python_namesake, "yaml": _yaml_namesake}


@pytest.mark.engine
@pytest.mark.parametrize("service", ["emu", "dropping_emu"])
@pytest.mark.parametrize("door", sorted(OWNERS))
def test_a_same_named_stack_on_another_backend_is_another_owner_of_its_job_on_our_pool(
        tmp_path: Path, door: str, service: str, request: pytest.FixtureRequest) -> None:
    # Issue 54 case 4: file backends all say `organization`, so the owner text of the namesake's job is the pool
    # owner's own; its mark's proof is made with another stack's secret and never verifies here.
    emu = request.getfixturevalue(service)
    a, _pools = OWNERS[door][0](tmp_path, emu)
    a.up()
    (pool,) = pools_of(emu, live=True)
    pool_name = pool["metadata"]["name"]
    b = NAMESAKES[door](tmp_path, emu, a, pool_name)
    b.up()
    (theirs,) = emu.jobs()
    assert theirs["spec"]["resource"]["pool_id"] == pool_name
    emu.advance(2)
    assert phase_of(emu.jobs()[0]) == "Running"

    refused = a.destroy(check=False)
    text = output_of(refused)
    assert refused.returncode != 0, text
    assert f"1 job of another owner runs on it and would fail: b-train ({theirs['metadata']['id']}, Running" in text, \
        text
    assert [p["metadata"]["name"] for p in pools_of(emu, live=True)] == [pool_name]  # the pool stands
    assert phase_of(emu.jobs()[0]) == "Running" and emu.counters()["terminate"] == 0  # the namesake's job runs on

"""Issue 42 through the plugin door (a Pulumi YAML program, the real engine, the local ModelArts): a pool's job
types and an added flavor change in place, one merge-patch PATCH of the same pool (its id unchanged, no
delete), and the up waits until the new job type is Enabled."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import pytest

from testkit.faults import pools_of
from testkit.plugin_program import write_program, yaml_stack

pytestmark = pytest.mark.engine
GPU, CPU = "modelarts.vm.gpu.tnt004", "modelarts.vm.cpu.8u32g"


@pytest.fixture
def emu(tmp_path: Path) -> Iterator[Any]:
    from modelarts_emulator.testing import running_emulator

    with running_emulator(tmp_path / "emulator", phase_seconds=0.2, network_seconds=0.3, pool_seconds=0.6,
                          scope_seconds=0.5) as e:
        yield e


def _program(scope: list[str], resources: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "net": {"type": "modelarts:index:Network",
                "properties": {"name": "net-main", "cidr": "192.168.128.0/17", "pollIntervalSeconds": 0.2}},
        "pool": {"type": "modelarts:index:ResourcePool",
                 "properties": {"name": "gpu-pool", "network": "${net.networkName}", "scope": scope,
                                "resources": resources, "pollIntervalSeconds": 0.1, "timeoutSeconds": 120}},
    }


OUTPUTS = {"poolName": "${pool.poolName}", "available": "${pool.available}"}


def test_job_types_and_an_added_flavor_change_the_same_pool_in_place(tmp_path: Path, emu: Any) -> None:
    st = yaml_stack(tmp_path, emu, _program(["Train"], [{"flavor": GPU, "count": 2}]), OUTPUTS)
    st.up()
    pool_name = st.outputs()["poolName"]
    (pool,) = pools_of(emu)
    assert pool["metadata"]["name"] == pool_name and pool["status"]["scope"] == [
        {"scopeType": "Train", "state": "Enabled"}]

    write_program(st.workdir, _program(["Train", "Infer"], [{"flavor": GPU, "count": 2}, {"flavor": CPU, "count": 1}]),
                  OUTPUTS)
    changed = st.up()
    text = changed.stdout + changed.stderr
    assert "replac" not in text, text  # an update, not a replacement
    assert st.outputs() == {"poolName": pool_name, "available": 3}  # the same pool, its new node up
    (pool,) = pools_of(emu)
    assert pool["metadata"]["name"] == pool_name and not pool["gone"]
    assert {s["scopeType"]: s["state"] for s in pool["status"]["scope"]} == {"Train": "Enabled", "Infer": "Enabled"}
    assert {r["flavor"]: r["count"] for r in pool["spec"]["resources"]} == {GPU: 2, CPU: 1}
    assert [(e["kind"], e["action"]) for e in emu.pools()["events"]] == [
        ("network", "create"), ("pool", "create"), ("pool", "scale")]  # no delete, no second create
    st.destroy()
    assert all(item["gone"] for item in emu.pools()["items"])

"""Issues 24 and 42 under the real engine and the local ModelArts: a stack with a network, a dedicated pool it
creates and two jobs on it. Lean on purpose (six pulumi commands): up (the second job queues while the first
holds the pool's nodes), an unchanged up (no API call), a scale 2 -> 3 in place, a scale-up that fails
(the up fails at once naming the order's reason; the pool keeps its nodes), destroy (jobs, then pool, then
network, read from the emulator's records), and an up whose pool fails to create (fails at once naming the
order's reason, not at its deadline; the pool is deleted, not left billing)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from testkit.faults import PROJECT, job, job_stack, output_of, own_pool, pool_emulator, pools_of, update_config

@pytest.fixture
def emu(tmp_path: Path, pulumi_engine: Path) -> Any:
    with pool_emulator(tmp_path / "emulator", pool_seconds=1.0) as e:
        yield e


def test_network_pool_and_jobs_up_scale_destroy(tmp_path: Path, emu: Any) -> None:
    jobs = {k: job(pool="own", nodes=2, waitFor="completed") for k in ("a", "b")}
    st = job_stack(tmp_path / "stack", emu, jobs=jobs, pools=own_pool(2, timeout_seconds=60))
    update_config(st, {f"{PROJECT}:networks": {"main": {}}})

    up = output_of(st.up())
    assert "Running: 2/2 nodes available" in up, up
    (pool,) = pools_of(emu)
    pool_name = pool["metadata"]["name"]
    assert pool["status"]["phase"] == "Running" and pool["metadata"]["labels"]["os.modelarts/name"].startswith("own-")
    ran = {j["metadata"]["name"][:1]: j for j in emu.jobs()}
    assert {k: j["status"]["phase"] for k, j in ran.items()} == {"a": "Completed", "b": "Completed"}
    assert all(j["spec"]["resource"]["pool_id"] == pool_name for j in ran.values())
    first, second = sorted(ran.values(), key=lambda j: j["status"]["start_time"])
    # Two 2-node jobs on a 2-node pool: the second was queued until the first had finished.
    assert second["status"]["start_time"] >= first["status"]["start_time"] + first["status"]["duration"]

    before = emu.counters()["total"]
    st.up()
    assert emu.counters()["total"] == before, "an unchanged stack makes no API call"

    update_config(st, {f"{PROJECT}:pools": own_pool(3, timeout_seconds=60)})
    # Preview equals the up (issue 44): the pool keeps its id on a scale, so its jobs are not previewed as replaced.
    planned = output_of(st.preview("--diff"))
    assert "replace" not in planned and "pool_id" not in planned, planned
    assert "~ pulumi-python:dynamic/modelarts:ResourcePool: (update)" in planned, planned
    scaled = output_of(st.up())
    assert "scaling modelarts.vm.gpu.tnt004 2 -> 3" in scaled and "Running: 3/3 nodes available" in scaled, scaled
    assert "network-main updat" not in scaled and "replac" not in scaled, scaled  # the pool alone, in place
    (pool,) = pools_of(emu)
    assert pool["metadata"]["name"] == pool_name and pool["spec"]["resources"][0]["count"] == 3  # in place
    assert sum(x["count"] for x in pool["status"]["resources"]["available"]) == 3

    # A scale-up whose nodes fail: the up fails at once (not at its 600 s deadline) naming the order's reason,
    # and the pool keeps the nodes it has.
    emu.pool_fault("scale_fail", message="Scale-up failed: no capacity in cn-north-4a.")
    update_config(st, {f"{PROJECT}:pools": own_pool(4, timeout_seconds=600)})
    failed = st.up(check=False)
    text = output_of(failed)
    assert failed.returncode != 0, text
    assert "is ScalingFailed: 1 of 1 resources of the order failed: Scale-up failed: no capacity in cn-north-4a." \
        in text, text
    (pool,) = pools_of(emu)
    assert pool["metadata"]["name"] == pool_name and sum(x["count"] for x in pool["status"]["resources"]["available"]) == 3

    st.destroy()
    events = [(e["kind"], e["action"]) for e in emu.pools()["events"] if e["action"] == "delete"]
    assert events == [("job", "delete"), ("job", "delete"), ("pool", "delete"), ("network", "delete")], events
    assert all(item["gone"] for item in emu.pools()["items"]) and emu.jobs() == []

    # The same stack again, with every new pool failing to create: the up fails at once (not at its 600 s
    # deadline) naming the reason its order gives, and the pool is deleted rather than left billing.
    emu.pool_fault("create_fail", message="Insufficient GPU capacity in cn-north-4a.")
    update_config(st, {f"{PROJECT}:pools": own_pool(2, timeout_seconds=600)})
    failed = st.up(check=False)
    text = output_of(failed)
    assert failed.returncode != 0, text
    assert "resources of the order failed: Insufficient GPU capacity in cn-north-4a." in text, text
    assert "not usable after" not in text, text
    assert "was deleted, not left billing" in text, text
    assert all(p["gone"] or p["metadata"].get("deletionTimestamp") for p in pools_of(emu))
    assert emu.jobs() == [], "no job was submitted to a pool that never became usable"

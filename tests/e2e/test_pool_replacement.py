"""Issue 43 finding 3 under the real engine: replacing a dedicated pool (its flavor changed) must not delete a
Completed run before its successor exists. A pool's replacement deletes the old pool first (its name stays), and
Pulumi deletes the jobs on it before it: the Completed job would be gone before any new pool, let alone a new
job, existed. The `up` stops before any change instead, naming the job and the ways on, and the finished run
stays in the service and in the state.

Both doors: the stack program and a YAML program (Network, ResourcePool, TrainingJob on it). The new pool would
fail (every new pool turns Abnormal, an emulator fault), as in the issue's reproduction.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from testkit.faults import PROJECT, job, job_stack, output_of, own_pool, phase_of, pools_of, update_config, wait_until
from testkit.emulators import fresh_emulator
from testkit.harness import Stack
from testkit.plugin_program import write_program, yaml_stack

ALGORITHM_ID = "8d1b2f4c-5a6e-4f70-9b81-c2d3e4f5a6b7"  # in the emulator catalog
OTHER_FLAVOR = "modelarts.vm.gpu.8v100"


emu = fresh_emulator(phase_seconds=0.2, run_seconds=1, network_seconds=0.3, pool_seconds=1.0)


def _python(tmp_path: Path, emu: Any) -> tuple[Stack, Any]:
    st = job_stack(tmp_path / "p", emu, jobs={"train": job(pool="own", waitFor="completed")},
                   pools=own_pool(1, timeout_seconds=60))
    update_config(st, {f"{PROJECT}:networks": {"main": {}}})

    def change_flavor() -> None:
        pools = own_pool(1, timeout_seconds=60)
        pools["own"]["create"]["flavor"] = OTHER_FLAVOR
        update_config(st, {f"{PROJECT}:pools": pools})

    return st, change_flavor


def _yaml_resources(flavor: str) -> dict[str, Any]:
    return {
        "main": {"type": "modelarts:index:Network",
                 "properties": {"name": "yaml-net", "cidr": "192.168.128.0/17", "pollIntervalSeconds": 0.2}},
        "own": {"type": "modelarts:index:ResourcePool",
                "properties": {"name": "yaml-pool", "network": "${main.networkName}",
                               "resources": [{"flavor": flavor, "count": 1}], "pollIntervalSeconds": 0.2}},
        "train": {"type": "modelarts:index:TrainingJob",
                  "properties": {"algorithm": {"id": ALGORITHM_ID}, "poolId": "${own.id}", "nodeCount": 1,
                                 "pollIntervalSeconds": 0.2}},
        "waited": {"type": "modelarts:index:JobsAwait",
                   "properties": {"jobs": {"train": {"jobId": "${train.jobId}", "jobName": "${train.jobName}",
                                                     "waitFor": "completed", "pollSeconds": 0.2}}}}}


def _yaml(tmp_path: Path, emu: Any) -> tuple[Stack, Any]:
    st = yaml_stack(tmp_path / "y", emu, _yaml_resources("modelarts.vm.gpu.tnt004"))
    return st, lambda: write_program(st.workdir, _yaml_resources(OTHER_FLAVOR))


DOORS = {"python": _python, "yaml": _yaml}


def _jobs_in_state(st: Stack) -> set[str]:
    return {r["id"] for r in st.resources() if r.get("type", "").endswith("TrainingJob")}


@pytest.mark.parametrize("door", sorted(DOORS))
def test_a_pool_replacement_never_deletes_a_completed_run_first(tmp_path: Path, emu: Any, door: str) -> None:
    st, change_flavor = DOORS[door](tmp_path, emu)
    st.up()
    (done,) = emu.jobs()
    wait_until(lambda: phase_of(emu.jobs()[0]) == "Completed", 30, what="the job to complete")
    (pool,) = pools_of(emu, live=True)

    change_flavor()
    emu.pool_fault("abnormal", message="Insufficient GPU capacity in cn-north-4a.")
    refused = st.up(check=False)
    text = output_of(refused)
    assert refused.returncode != 0, text
    assert "has completed" in text and "its pool" in text and "deleteBeforeReplace" in text, text
    # The finished run is still in the service and in the state, the old pool stands, nothing was created.
    assert [j["metadata"]["id"] for j in emu.jobs()] == [done["metadata"]["id"]]
    assert phase_of(emu.jobs()[0]) == "Completed"
    assert _jobs_in_state(st) == {done["metadata"]["id"]}
    assert [p["metadata"]["name"] for p in pools_of(emu, live=True)] == [pool["metadata"]["name"]]
    assert [e for e in emu.pools()["events"] if e["action"] == "delete"] == []


def test_with_keep_finished_runs_the_run_stays_in_the_service_while_the_pool_is_replaced(tmp_path: Path,
                                                                                         emu: Any) -> None:
    # The way on that loses nothing: the run leaves the state but stays in the service, the pool is replaced
    # (here the new one fails), and the state holds nothing that is gone.
    st, change_flavor = _python(tmp_path, emu)
    st.up()
    wait_until(lambda: phase_of(emu.jobs()[0]) == "Completed", 30, what="the job to complete")
    (done,) = emu.jobs()
    update_config(st, {f"{PROJECT}:jobs": {"train": job(pool="own", waitFor="completed", keepFinishedRuns=True)}})
    st.up()  # records the option (an update without API call), as the refusal says
    change_flavor()
    emu.pool_fault("abnormal", message="Insufficient GPU capacity in cn-north-4a.")
    failed = st.up(check=False)
    text = output_of(failed)
    assert failed.returncode != 0 and "Insufficient GPU capacity" in text, text
    assert "kept in the service (Completed, keepFinishedRuns" in text, text
    assert [(j["metadata"]["id"], phase_of(j)) for j in emu.jobs()] == [(done["metadata"]["id"], "Completed")]
    # The state holds nothing gone from the service as if it were there: what the engine deleted on the way
    # (the old pool; the job, kept in the service) is marked pendingReplacement, the engine's own record of it.
    live = {p["metadata"]["name"] for p in pools_of(emu, live=True) if not p["metadata"].get("deletionTimestamp")}
    held = {r["id"] for r in st.resources() if r.get("type", "").endswith(("ResourcePool", "TrainingJob"))
            and not r.get("pendingReplacement")}
    assert held <= live | {done["metadata"]["id"]}, st.resources()

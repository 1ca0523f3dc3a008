"""A 2-node job under the real engine (issue 47): `pulumi up` uploads training/ddp, the execution-mode local
ModelArts runs one process per node with the distributed environment (MASTER_ADDR/PORT, RANK, WORLD_SIZE), the
two ranks find each other through it alone and average their gradients; `logs --task` shows each rank's steps."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from testkit.faults import ENGINE, job_stack, provider_config
from testkit.harness import REPO_ROOT
from tests.logs.test_logs_cli import logs

pytestmark = [pytest.mark.engine, pytest.mark.timeout(300)]


def _steps(text: str) -> list[tuple[list[float], list[float]]]:
    return [(json.loads(m[1]), json.loads(m[2]))
            for m in re.finditer(r"local_grad=(\[[^\]]*\]) mean_grad=(\[[^\]]*\])", text)]


def test_a_two_node_job_trains_data_parallel_on_cpu(tmp_path: Path) -> None:
    from modelarts_emulator.testing import running_emulator
    from obs_emulator.testing import running_obs

    job = {"pool": "cpu", "engine": dict(ENGINE), "pollIntervalSeconds": 0.2, "waitFor": "completed", "nodes": 2,
           "code": {"localDir": str(REPO_ROOT / "training" / "ddp"), "bootFile": "train.py"},
           "parameters": {"epochs": 4, "lr": 0.1}}
    with running_obs(tmp_path / "obs") as obs, \
            running_emulator(tmp_path / "emulator", phase_seconds=0.2, obs_endpoint=obs.url, execute=True) as emu:
        plain, secrets = provider_config(emu)
        plain["modelarts:obsEndpoint"] = obs.url
        st = job_stack(tmp_path, emu, jobs={"ddp": job}, plain=plain, secrets=secrets,
                       obs={"main": {"bucket": "exec", "create": True, "forceDestroy": True}},
                       pools={"cpu": {"flavor": "modelarts.vm.cpu.8u", "maxNodes": 2}})
        st.up()
        assert [j["status"]["phase"] for j in emu.jobs()] == ["Completed"]
        ranks = {}
        for task in ("worker-0", "worker-1"):
            shown = logs(st, "ddp", "--task", task)
            assert shown.returncode == 0, shown.stderr
            assert f"rank {task[-1]} of 2, rendezvous 127.0.0.1:" in shown.stdout, shown.stdout
            ranks[task] = _steps(shown.stdout)
        assert len(ranks["worker-0"]) == len(ranks["worker-1"]) == 4
        for (local0, mean0), (local1, mean1) in zip(ranks["worker-0"], ranks["worker-1"]):
            assert mean0 == mean1 and local0 != local1
            assert mean0 == pytest.approx([(a + b) / 2 for a, b in zip(local0, local1)], abs=2e-6)
        st.destroy()
        assert emu.jobs() == []

"""Execution mode on the user's hardware (issue 47): GPUs as the flavor says, several nodes ready for distributed
training, the user's own interpreter per engine.

The machine's GPUs are a fake inventory here (``--gpus 0,1``: two GPU indices, no CUDA needed): what is checked is
what each task is given (``CUDA_VISIBLE_DEVICES``, ``MA_NUM_GPUS``), what a CPU flavor sees (none), that a job
waits in Pending while too few are free, and that one needing more than the machine has is refused. The
distributed example (training/ddp/train.py, sockets and numpy) runs as a 2-node job: its ranks find each other
through the environment alone and average their gradients. One local OBS and one emulator per module, over HTTP.
"""

from __future__ import annotations

import json
import os
import re
import stat
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from modelarts_emulator.execution.engines import EnginePythons
from modelarts_emulator.execution.gpus import GpuPool, gpus_per_node, inventory, parse_nvidia_smi
from modelarts_emulator.testing import RunningEmulator, running_emulator
from modelarts_provider.client import ModelArtsClient, ModelArtsError
from modelarts_provider.client.models import CreateTrainingJobRequest, TrainingJob
from tests.emulator.helpers import obs_holding, wait_phase

BUCKET = "hw-bucket"
PYTORCH = {"engine_name": "PyTorch", "engine_version": "pytorch_1.8.0-cuda_10.2-py_3.7-ubuntu_18.04-x86_64"}
TENSORFLOW = {"engine_name": "TensorFlow", "engine_version": "tensorflow_2.1.0-cuda_10.1-py_3.7-ubuntu_18.04-x86_64"}
CPU = "modelarts.vm.cpu.8u"
GPU = "modelarts.p3.large.public"  # 1 GPU per node (the flavor catalog's flavor_info.gpu.unit_num)
DDP = Path(__file__).resolve().parents[2] / "training" / "ddp" / "train.py"

REPORT = '''\
import json, os, sys, time
keys = ("CUDA_VISIBLE_DEVICES", "MA_NUM_GPUS", "MASTER_ADDR", "MASTER_PORT", "RANK", "WORLD_SIZE", "LOCAL_RANK",
        "MA_NUM_HOSTS", "VC_TASK_INDEX", "MAPPED_BY")
print("REPORT " + json.dumps({k: os.environ.get(k) for k in keys} | {"python": sys.executable}), flush=True)
hold = [a.split("=", 1)[1] for a in sys.argv if a.startswith("--hold=")]
time.sleep(float(hold[0]) if hold else 0)
'''


@pytest.fixture(scope="module")
def local_obs(tmp_path_factory) -> Iterator[Any]:
    code = {"code/report/train.py": REPORT, "code/ddp/train.py": DDP.read_bytes()}
    with obs_holding(tmp_path_factory.mktemp("obs"), BUCKET, code) as obs:
        yield obs


@pytest.fixture(scope="module")
def wrapper(tmp_path_factory) -> Path:
    """Another interpreter: this Python behind a script that marks the processes it starts."""
    path = tmp_path_factory.mktemp("tf-env") / "python"
    path.write_text(f"#!/bin/sh\nMAPPED_BY=tf-env exec {sys.executable} \"$@\"\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.fixture(scope="module")
def emu(tmp_path_factory, local_obs: Any, wrapper: Path) -> Iterator[RunningEmulator]:
    with running_emulator(tmp_path_factory.mktemp("emu"), phase_seconds=0.1, run_seconds=60,
                          obs_endpoint=local_obs.url, execute=True, max_run_seconds=60, gpus="0,1",
                          engine_python=[f"TensorFlow={wrapper}"]) as server:
        yield server


def _create(client: ModelArtsClient, name: str, code: str = "report", *, flavor: str = GPU, nodes: int = 1,
            engine: dict[str, str] = PYTORCH, params: dict[str, str] | None = None) -> TrainingJob:
    body = {"kind": "job", "metadata": {"name": name},
            "algorithm": {"code_dir": f"obs://{BUCKET}/code/{code}/", "boot_file": f"obs://{BUCKET}/code/{code}/train.py",
                          "engine": engine,
                          "parameters": [{"name": k, "value": v} for k, v in (params or {}).items()]},
            "spec": {"resource": {"flavor_id": flavor, "node_count": nodes}}}
    return client.create_job(CreateTrainingJobRequest.model_validate(body))


def _log(client: ModelArtsClient, job_id: str, task: str = "worker-0") -> str:
    return client.get_task_log_preview(job_id, task).text


def _report(client: ModelArtsClient, job_id: str, task: str = "worker-0") -> dict[str, Any]:
    (line,) = [ln for ln in _log(client, job_id, task).splitlines() if ln.startswith("REPORT ")]
    return json.loads(line.removeprefix("REPORT "))


def test_a_gpu_flavor_task_gets_its_own_gpus_and_a_cpu_flavor_none(client) -> None:
    gpu = _create(client, "hw-gpu")
    cpu = _create(client, "hw-cpu", flavor=CPU)
    for job in (gpu, cpu):
        assert wait_phase(client, job.id, {"Completed", "Failed"}).phase == "Completed"
    seen = _report(client, gpu.id)
    assert seen["CUDA_VISIBLE_DEVICES"] in ("0", "1") and seen["MA_NUM_GPUS"] == "1", seen
    assert "given to this task (CUDA_VISIBLE_DEVICES)" in _log(client, gpu.id)
    hidden = _report(client, cpu.id)
    assert hidden["CUDA_VISIBLE_DEVICES"] == "" and hidden["MA_NUM_GPUS"] == "0", hidden  # "" hides every GPU


def test_each_node_gets_distinct_gpus_and_a_job_waits_while_too_few_are_free(client) -> None:
    both = _create(client, "hw-two-nodes", nodes=2, params={"hold": "3"})
    wait_phase(client, both.id, {"Running"})
    waiting = _create(client, "hw-waits")
    deadline = time.monotonic() + 20
    while "queued: this job needs 1 GPUs" not in (log := _log(client, waiting.id)):
        assert time.monotonic() < deadline, log
        time.sleep(0.1)
    assert client.get_job(waiting.id).phase == "Pending"  # the machine's two GPUs are both held
    assert wait_phase(client, both.id, {"Completed", "Failed"}, timeout=30).phase == "Completed"
    assert wait_phase(client, waiting.id, {"Completed", "Failed"}, timeout=30).phase == "Completed"
    given = {_report(client, both.id, t)["CUDA_VISIBLE_DEVICES"] for t in ("worker-0", "worker-1")}
    assert given == {"0", "1"}


def test_a_job_needing_more_gpus_than_the_machine_has_is_refused(client) -> None:
    with pytest.raises(ModelArtsError) as err:
        _create(client, "hw-too-big", nodes=3)
    assert "spec.resource.flavor_id" in str(err.value) and "need 3 GPUs" in str(err.value)


def test_a_two_node_job_averages_its_gradients_through_the_environment_alone(client) -> None:
    job = _create(client, "hw-ddp", "ddp", flavor=CPU, nodes=2, params={"epochs": "3", "lr": "0.1"})
    assert wait_phase(client, job.id, {"Completed", "Failed"}, timeout=60).phase == "Completed"
    logs = {t: _log(client, job.id, t) for t in ("worker-0", "worker-1")}
    steps = {t: [(json.loads(m[1]), json.loads(m[2])) for m in re.finditer(
        r"local_grad=(\[[^\]]*\]) mean_grad=(\[[^\]]*\])", text)] for t, text in logs.items()}
    assert len(steps["worker-0"]) == len(steps["worker-1"]) == 3, logs
    for (local0, mean0), (local1, mean1) in zip(steps["worker-0"], steps["worker-1"]):
        assert mean0 == mean1  # every rank applies the same average
        assert mean0 == pytest.approx([(a + b) / 2 for a, b in zip(local0, local1)], abs=2e-6)
        assert local0 != local1  # each rank has its own shard: the average is not one rank's gradient
    weights = {re.search(r"weights=(\[[^\]]*\])", text)[1] for text in logs.values()}
    assert len(weights) == 1, weights
    env = _log(client, job.id, "worker-1")
    assert "env RANK=1" in env and "env WORLD_SIZE=2" in env and "env MASTER_ADDR=127.0.0.1" in env, env


def test_a_failed_rank_fails_the_job_with_its_own_log(client) -> None:
    job = _create(client, "hw-ddp-fails", "ddp", flavor=CPU, nodes=2, params={"epochs": "3", "fail_rank": "1"})
    failed = wait_phase(client, job.id, {"Completed", "Failed"}, timeout=60)
    assert failed.phase == "Failed"
    assert "failing on purpose" in _log(client, job.id, "worker-1")
    assert "worker-1 failed, so the job's other tasks are stopped" in _log(client, job.id, "worker-0")
    raw = client.get_job(job.id).model_dump(mode="json")
    assert "exited with code 1" in json.dumps(raw["status"]), raw["status"]  # the failing rank's code, not 137


def test_an_engine_mapped_to_another_interpreter_runs_there(client, wrapper: Path) -> None:
    mapped = _create(client, "hw-tf", flavor=CPU, engine=TENSORFLOW)
    own = _create(client, "hw-torch", flavor=CPU)
    for job in (mapped, own):
        assert wait_phase(client, job.id, {"Completed", "Failed"}).phase == "Completed"
    assert _report(client, mapped.id)["MAPPED_BY"] == "tf-env"
    assert f"runs with {wrapper}" in _log(client, mapped.id)
    assert _report(client, own.id)["MAPPED_BY"] is None
    assert "is not mapped to an interpreter" in _log(client, own.id)


# --- the rules, without processes -------------------------------------------------------------------------

def test_nvidia_smi_output_and_the_gpus_option() -> None:
    smi = "0, NVIDIA H200, 143771 MiB\n1, NVIDIA H200, 143771 MiB\n"
    assert [g.index for g in parse_nvidia_smi(smi)] == [0, 1] and parse_nvidia_smi(smi)[0].name == "NVIDIA H200"
    assert [g.index for g in inventory("2,0")] == [0, 2] and inventory("none") == []
    with pytest.raises(ValueError, match="--gpus must be"):
        inventory("all")


def test_gpus_per_node_come_from_the_flavor_and_cpu_or_ascend_get_none() -> None:
    def doc(kind: str, units: Any = None) -> dict[str, Any]:
        info = {"gpu": {"unit_num": units}} if units is not None else {}
        return {"spec": {"resource": {"flavor_detail": {"flavor_type": kind, "flavor_info": info}}}}

    assert gpus_per_node(doc("GPU", 8)) == 8 and gpus_per_node(doc("GPU")) == 1
    assert gpus_per_node(doc("CPU")) == 0 and gpus_per_node(doc("Ascend", 8)) == 0


def test_the_pool_hands_out_distinct_gpus_and_takes_them_back() -> None:
    pool = GpuPool(inventory("0,1,2"))
    first, second = pool.try_take(2), pool.try_take(2)
    assert first == [0, 1] and second is None and pool.free == 1
    pool.give(first)
    assert pool.try_take(3) == [0, 1, 2]


def test_engine_pythons_pairs_file_and_the_most_specific_wins(tmp_path: Path) -> None:
    def python(name: str) -> str:  # every mapped interpreter must exist and be executable (checked at start)
        path = tmp_path / name
        path.write_text("#!/bin/sh\n")
        path.chmod(0o755)
        return str(path)

    file = tmp_path / "engines.json"
    file.write_text(json.dumps({"PyTorch": python("file-python"), "MindSpore": python("ms-python")}))
    engines = EnginePythons.parse([f"PyTorch={python('any-python')}", f"PyTorch:pytorch_1.8={python('v18')}"], file)
    assert engines.resolve("PyTorch", "pytorch_1.8").python == python("v18")
    assert engines.resolve("PyTorch", "2.0").python == python("any-python")  # a pair wins over the file
    assert engines.resolve("MindSpore", "x").python == python("ms-python")
    unmapped = engines.resolve("Caffe", "1.0")
    assert unmapped.python == sys.executable and "--engine-python Caffe=" in unmapped.note
    with pytest.raises(ValueError, match="NAME\\[:VERSION\\]=PYTHON"):
        EnginePythons.parse(["PyTorch"])
    assert os.sep in EnginePythons().resolve(None, None).python

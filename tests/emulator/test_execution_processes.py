"""Execution mode, issue 57 item 6: a dedicated pool's GPU flavor gets its GPUs, the rank that failed first in time is
the job's error, a bad interpreter mapping is refused at start in one line, and a job's end takes every process its
tasks started, a child in its own session (setsid) included.

The GPUs are a fake inventory (``--gpus 0,1,2``); the training code is tiny Python scripts. One local OBS and one
emulator for the module, over HTTP."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from modelarts_emulator.execution.engines import EnginePythons
from modelarts_emulator.execution.reaper import MARK_VAR, marked_pids
from modelarts_emulator.execution.runner import Running, first_failures
from modelarts_emulator.testing import RunningEmulator, running_emulator
from modelarts_provider.client import ModelArtsClient, ModelArtsError
from modelarts_provider.client.models import CreateTrainingJobRequest, TrainingJob
from tests.emulator.helpers import obs_holding, wait_phase

BUCKET = "proc-bucket"
ENGINE = {"engine_name": "PyTorch", "engine_version": "pytorch_1.8.0-cuda_10.2-py_3.7-ubuntu_18.04-x86_64"}
CPU = "modelarts.vm.cpu.8u"
POOL = "poolfaf38d76"  # the catalog's GPU pool (catalog.json), with the modelarts.pool.visual.* flavors

REPORT = '''\
import json, os
print("REPORT " + json.dumps({k: os.environ.get(k) for k in ("CUDA_VISIBLE_DEVICES", "MA_NUM_GPUS")}), flush=True)
'''

# rank 2 fails first; the others notice (as ranks that lose their peer's connection do) and fail 50 ms later, all
# within one of the emulator's polls of each other
CASCADE = '''\
import os, pathlib, sys, time
flag = pathlib.Path([a.split("=", 1)[1] for a in sys.argv if a.startswith("--flag=")][0])
rank = int(os.environ["RANK"])
if rank == 2:
    time.sleep(1.0)
    print("rank 2: CUDA error: an illegal memory access", flush=True)
    flag.write_text("dead")
    sys.exit(5)
while not flag.exists():
    time.sleep(0.001)
time.sleep(0.05)
print(f"rank {rank}: connection reset by peer", flush=True)
sys.exit(1)
'''

# a child in its own session (a daemon, a loader started with start_new_session=True): outside the process group
DAEMON = '''\
import os, subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"], start_new_session=True)
print(f"child={child.pid} sid={os.getsid(child.pid)} mine={os.getsid(0)}", flush=True)
hold = [a.split("=", 1)[1] for a in sys.argv if a.startswith("--hold=")]
time.sleep(float(hold[0]) if hold else 0)
'''


@pytest.fixture(scope="module")
def local_obs(tmp_path_factory) -> Iterator[Any]:
    code = {f"code/{name}/train.py": body
            for name, body in (("report", REPORT), ("cascade", CASCADE), ("daemon", DAEMON))}
    with obs_holding(tmp_path_factory.mktemp("obs"), BUCKET, code) as obs:
        yield obs


@pytest.fixture(scope="module")
def emu(tmp_path_factory, local_obs: Any) -> Iterator[RunningEmulator]:
    with running_emulator(tmp_path_factory.mktemp("emu"), phase_seconds=0.1, run_seconds=60,
                          obs_endpoint=local_obs.url, execute=True, max_run_seconds=60, gpus="0,1,2") as server:
        yield server


def _create(client: ModelArtsClient, name: str, code: str, resource: dict[str, Any],
            params: dict[str, str] | None = None) -> TrainingJob:
    body = {"kind": "job", "metadata": {"name": name},
            "algorithm": {"code_dir": f"obs://{BUCKET}/code/{code}/", "boot_file": f"obs://{BUCKET}/code/{code}/train.py",
                          "engine": ENGINE,
                          "parameters": [{"name": k, "value": v} for k, v in (params or {}).items()]},
            "spec": {"resource": resource}}
    return client.create_job(CreateTrainingJobRequest.model_validate(body))


def _log(client: ModelArtsClient, job_id: str, task: str = "worker-0") -> str:
    return client.get_task_log_preview(job_id, task).text


def _until_logged(client: ModelArtsClient, job_id: str, text: str) -> str:
    deadline = time.monotonic() + 30
    while text not in (log := _log(client, job_id)):
        assert time.monotonic() < deadline, log
        time.sleep(0.1)
    return log


def _alive(pid: int) -> bool:
    stat_file = Path(f"/proc/{pid}/stat")
    try:
        return stat_file.read_text().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def _until_gone(pid: int, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while _alive(pid):
        assert time.monotonic() < deadline, f"process {pid} outlived its job"
        time.sleep(0.1)


# --- (a) a dedicated pool's GPU flavor -------------------------------------------------------------------------

def test_a_gpu_flavor_on_a_dedicated_pool_gets_the_gpus_its_flavor_has(client) -> None:
    job = _create(client, "pool-gpu", "report",
                  {"pool_id": POOL, "flavor_id": "modelarts.pool.visual.2xlarge", "node_count": 1})
    assert wait_phase(client, job.id, {"Completed", "Failed"}).phase == "Completed"
    log = _log(client, job.id)
    (line,) = [ln for ln in log.splitlines() if ln.startswith("REPORT ")]
    seen = json.loads(line.removeprefix("REPORT "))
    assert seen["MA_NUM_GPUS"] == "2" and len(seen["CUDA_VISIBLE_DEVICES"].split(",")) == 2, seen
    assert "given to this task (CUDA_VISIBLE_DEVICES)" in log


def test_a_dedicated_pool_flavor_needing_more_gpus_than_the_machine_has_is_refused(client) -> None:
    with pytest.raises(ModelArtsError) as err:
        _create(client, "pool-too-big", "report",
                {"pool_id": POOL, "flavor_id": "modelarts.pool.visual.8xlarge", "node_count": 1})
    assert "spec.resource.flavor_id" in str(err.value) and "need 8 GPUs" in str(err.value)


# --- (b) the first rank to fail in time ------------------------------------------------------------------------

def test_the_rank_that_failed_first_in_time_is_the_jobs_error_not_the_first_by_index(client, emu, tmp_path) -> None:
    job = _create(client, "cascade", "cascade", {"flavor_id": CPU, "node_count": 3},
                  {"flag": str(tmp_path / "rank2-died")})
    done = wait_phase(client, job.id, {"Completed", "Failed"}, timeout=60)
    assert done.phase == "Failed"
    # the job's own error (what its events say: "The training job failed: ..."), as stored
    with sqlite3.connect(emu.db) as db:
        code, message = db.execute("SELECT exit_code, message FROM jobs WHERE id = ?", (job.id,)).fetchone()
    assert (code, message) == (5, "Training process of worker-2 exited with code 5."), (code, message)
    codes = {t.task: t.exit_code for t in client.get_job(job.id).task_statuses}
    assert codes["worker-2"] == 5 and codes["worker-0"] in (1, 137), codes
    assert "illegal memory access" in _log(client, job.id, "worker-2")
    assert "task worker-0 failed" not in _log(client, job.id, "worker-1")  # nobody is stopped for worker-0


def _ran(index: int, code: int | None, ended: float | None, by_peer: bool = False) -> Running:
    from types import SimpleNamespace

    return Running(plan=SimpleNamespace(index=index, task=f"worker-{index}"), proc=None, started=0.0,  # type: ignore[arg-type]
                   exit_code=code, ended=ended, stopped_by_peer=by_peer)


def test_failures_are_ordered_by_when_they_happened() -> None:
    procs = [_ran(0, 1, 10.05), _ran(1, 137, 10.2, by_peer=True), _ran(2, 5, 10.0), _ran(3, 0, 9.0)]
    assert [r.plan.index for r in first_failures(procs)] == [2, 0, 1, 3]


# --- (e) every process a task started goes with it ------------------------------------------------------------

def test_terminate_ends_a_child_in_its_own_session(client) -> None:
    job = _create(client, "daemon-term", "daemon", {"flavor_id": CPU, "node_count": 1}, {"hold": "120"})
    log = _until_logged(client, job.id, "child=")
    child, sid, mine = (int(part.split("=")[1]) for part in ("child=" + log.split("child=", 1)[1]).split()[:3])
    assert sid != mine and _alive(child)  # outside the task's session and process group
    client.terminate_job(job.id)
    _until_gone(child)
    assert wait_phase(client, job.id, {"Terminated"}, timeout=30).phase == "Terminated"


def test_a_task_that_ends_takes_its_setsid_child_along(client) -> None:
    job = _create(client, "daemon-end", "daemon", {"flavor_id": CPU, "node_count": 1})
    log = _until_logged(client, job.id, "child=")
    child = int(log.split("child=", 1)[1].split()[0])
    assert wait_phase(client, job.id, {"Completed", "Failed"}, timeout=30).phase == "Completed"
    _until_gone(child)


def test_the_marker_finds_a_setsid_descendant_and_nothing_else() -> None:
    mark = f"test/{os.getpid()}/{time.monotonic_ns()}"
    env = {**os.environ, MARK_VAR: mark}
    code = "import subprocess, sys, time; subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(30)'], " \
           "start_new_session=True); print('ok', flush=True); time.sleep(30)"
    parent = subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE)
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        assert parent.stdout is not None and parent.stdout.readline().strip() == b"ok"
        found = marked_pids(mark)
        assert parent.pid in found and len(found) == 2 and other.pid not in found, found
    finally:
        for pid in marked_pids(mark):
            os.kill(pid, 9)
        for p in (parent, other):
            p.kill()
            p.wait()


# --- (d) a bad interpreter mapping, refused at start ----------------------------------------------------------

@pytest.mark.parametrize("flags,words", [
    (["--engine-python", "PyTorch=/no/such/python"], "/no/such/python does not exist"),
    (["--engine-python", "PyTorch"], "takes NAME[:VERSION]=PYTHON"),
    (["--engine-python", "PyTorch=NOT_EXECUTABLE"], "is not an executable file"),
])
def test_a_bad_engine_mapping_is_refused_at_start_in_one_line(tmp_path, flags, words) -> None:
    plain = tmp_path / "python.txt"
    plain.write_text("not a program")
    plain.chmod(0o644)
    flags = [f.replace("NOT_EXECUTABLE", str(plain)) for f in flags]
    done = subprocess.run([sys.executable, "-m", "modelarts_emulator", "--execute", "--port", "0", "--db",
                           str(tmp_path / "e.db"), *flags], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and words in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert "listening" not in done.stdout


def test_a_malformed_mapping_file_is_one_line_and_a_good_one_is_kept(tmp_path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ValueError, match="--engine-pythons .*cannot read it as JSON") as err:
        EnginePythons.parse([], bad)
    assert "\n" not in str(err.value)
    python = tmp_path / "python"
    python.write_text("#!/bin/sh\n")
    python.chmod(python.stat().st_mode | stat.S_IXUSR)
    good = tmp_path / "good.json"
    good.write_text(json.dumps({"PyTorch": str(python)}))
    assert EnginePythons.parse([], good).resolve("PyTorch", "x").python == str(python)
    with pytest.raises(ValueError, match="does not exist"):
        EnginePythons.parse([], _write(tmp_path / "gone.json", {"PyTorch": str(tmp_path / "gone")}))


def _write(path: Path, value: Any) -> Path:
    path.write_text(json.dumps(value))
    return path


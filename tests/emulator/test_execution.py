"""Execution mode (issue 22): the local ModelArts runs a job's own code as local processes, with its code
and inputs from the local OBS, its parameters on the command line, its outputs uploaded back, its real
output as the task log, its exit code as the phase; terminate kills it; the machine is protected.

One local OBS and one emulator (``--execute``) per module, over real HTTP; each test uploads its own
small script."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from modelarts_emulator.testing import RunningEmulator, running_emulator
from modelarts_provider.client import ModelArtsClient
from modelarts_provider.client.models import CreateTrainingJobRequest, TrainingJob
from modelarts_provider.core.job_logs import failure_log_tail
from tests.emulator.helpers import obs_holding, product_client, wait_phase

BUCKET = "exec-bucket"
ENGINE = {"engine_name": "PyTorch", "engine_version": "pytorch_1.8.0-cuda_10.2-py_3.7-ubuntu_18.04-x86_64"}
CPU = "modelarts.vm.cpu.8u"

SCRIPT = '''\
import os, sys, argparse, pathlib
print("MYJOB-MARKER", flush=True)
p = argparse.ArgumentParser()
p.add_argument("--lr"); p.add_argument("--data_url"); p.add_argument("--train_url")
a, _ = p.parse_known_args()
print(f"lr={a.lr} task={os.environ['MA_TASK_NAME']} index={os.environ['VC_TASK_INDEX']} "
      f"workers={os.environ['VC_WORKER_NUM']} greeting={os.environ.get('GREETING')}", flush=True)
print("input says:", (pathlib.Path(a.data_url) / "sub" / "rows.csv").read_text().strip(), flush=True)
print("cwd is code dir:", pathlib.Path.cwd() == pathlib.Path(__file__).parent, flush=True)
print("secret leaked:", any("SECRET" in k or "AWS_" in k for k in os.environ), flush=True)
(pathlib.Path(a.train_url) / "model.txt").write_text(f"model of {os.environ['MA_TASK_NAME']} lr={a.lr}")
'''

FAILING = '''\
import sys
print("about to fail", flush=True)
def load():
    raise ValueError("the input has no rows")
try:
    load()
except ValueError:
    import traceback; traceback.print_exc()
    sys.exit(3)
'''

SLEEPER = '''\
import os, pathlib, sys, time
print(f"pid={os.getpid()}", flush=True)
out = [a.split("=", 1)[1] for a in sys.argv if a.startswith("--train_url=")]
if out:
    (pathlib.Path(out[0]) / "partial.txt").write_text("written before the end")
time.sleep(120)
'''


@pytest.fixture(scope="module")
def local_obs(tmp_path_factory) -> Iterator[Any]:
    code = {f"code/{name}/train.py": body for name, body in (("ok", SCRIPT), ("fail", FAILING), ("sleep", SLEEPER))}
    with obs_holding(tmp_path_factory.mktemp("obs"), BUCKET, {**code, "data/in/sub/rows.csv": b"1,2,3\n"}) as obs:
        yield obs


@pytest.fixture(scope="module")
def emu(tmp_path_factory, local_obs: Any) -> Iterator[RunningEmulator]:
    with running_emulator(tmp_path_factory.mktemp("emu"), phase_seconds=0.1, run_seconds=60,
                          obs_endpoint=local_obs.url, execute=True, max_run_seconds=60) as server:
        yield server


def _body(name: str, code: str, *, nodes: int = 1, **algorithm: Any) -> dict[str, Any]:
    return {"kind": "job", "metadata": {"name": name},
            "algorithm": {"code_dir": f"obs://{BUCKET}/code/{code}/",
                          "boot_file": f"obs://{BUCKET}/code/{code}/train.py", "engine": ENGINE, **algorithm},
            "spec": {"resource": {"flavor_id": CPU, "node_count": nodes}}}


def _create(client: ModelArtsClient, name: str, code: str, **kw: Any) -> TrainingJob:
    return client.create_job(CreateTrainingJobRequest.model_validate(_body(name, code, **kw)))


def _log(client: ModelArtsClient, job_id: str, task: str = "worker-0") -> str:
    return client.get_task_log_preview(job_id, task).text


def _until_logged(client: ModelArtsClient, job_id: str, text: str, task: str = "worker-0") -> str:
    deadline = time.monotonic() + 30
    while text not in (log := _log(client, job_id, task)):
        assert time.monotonic() < deadline, log
        time.sleep(0.1)
    return log


def test_the_script_runs_with_its_parameters_inputs_environment_and_outputs(client, local_obs) -> None:
    job = _create(client, "exec-ok", "ok", parameters=[{"name": "lr", "value": "0.25"},
                                                        {"name": "api_token", "value": "tok-123-secret"}],
                  inputs=[{"name": "data_url", "remote": {"obs": {"obs_url": f"obs://{BUCKET}/data/in/"}}}],
                  outputs=[{"name": "train_url", "remote": {"obs": {"obs_url": f"obs://{BUCKET}/out/ok/"}}}],
                  environments={"GREETING": "hello"})
    done = wait_phase(client, job.id, {"Completed", "Failed"}, timeout=30)
    log = _log(client, job.id)
    assert done.phase == "Completed", log
    assert [s.exit_code for s in done.task_statuses] == [0]
    assert "MYJOB-MARKER" in log
    assert "lr=0.25 task=worker-0 index=0 workers=1 greeting=hello" in log
    assert "input says: 1,2,3" in log
    assert "cwd is code dir: True" in log
    assert "secret leaked: False" in log  # the emulator's own credentials stay out of the user's process
    assert log.rstrip().endswith("task worker-0 exited with code 0")
    assert "--api_token=******" in log and "tok-123-secret" not in log  # the command line shown, masked
    body = local_obs.client().get_object(Bucket=BUCKET, Key="out/ok/model.txt")["Body"].read()
    assert body == b"model of worker-0 lr=0.25"


def test_a_script_exiting_3_fails_the_job_with_code_3_and_its_real_traceback(client) -> None:
    body = _body("exec-fail", "fail")
    body["spec"]["resource"]["flavor_id"] = "modelarts.p3.large.public"  # a GPU flavor runs on the CPU
    job = client.create_job(CreateTrainingJobRequest.model_validate(body))
    failed = wait_phase(client, job.id, {"Completed", "Failed"}, timeout=30)
    assert failed.phase == "Failed"
    [status] = failed.task_statuses
    assert status.exit_code == 3
    assert "exited with code 3" in status.message
    assert "flavor modelarts.p3.large.public has GPU accelerators; this local process has none" in _log(
        client, job.id)
    report = failure_log_tail(client, failed)
    assert "about to fail" in report
    assert "in load" in report and "train.py" in report  # the script's own frames, not an invented one
    assert "ValueError: the input has no rows" in report
    assert report.rstrip().splitlines()[-1].strip().endswith(
        "ERROR exit code 3: Training process of worker-0 exited with code 3.")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie is gone for good: its parent has not reaped it yet
    stat = Path(f"/proc/{pid}/stat")
    return stat.exists() and stat.read_text().split(")")[-1].split()[0] != "Z"


def test_terminate_kills_the_process_and_uploads_what_it_wrote(client, local_obs) -> None:
    job = _create(client, "exec-terminate", "sleep",
                  outputs=[{"name": "train_url", "remote": {"obs": {"obs_url": f"obs://{BUCKET}/out/term/"}}}])
    log = _until_logged(client, job.id, "pid=")
    pid = int(log.split("pid=", 1)[1].split()[0])
    assert _alive(pid)
    client.terminate_job(job.id)
    deadline = time.monotonic() + 15
    while _alive(pid):
        assert time.monotonic() < deadline, f"process {pid} still runs after terminate"
        time.sleep(0.1)
    log = _until_logged(client, job.id, "ERROR exit code 137")
    assert "SIGTERM received" in log
    assert wait_phase(client, job.id, {"Terminated"}, timeout=30).task_statuses[0].exit_code == 137
    keys = [o["Key"] for o in local_obs.client().list_objects_v2(Bucket=BUCKET, Prefix="out/term/")["Contents"]]
    assert keys == ["out/term/partial.txt"]


def test_two_nodes_run_two_processes_with_their_task_indexes(client) -> None:
    job = _create(client, "exec-two", "ok", nodes=2, parameters=[{"name": "lr", "value": "1"}],
                  inputs=[{"name": "data_url", "remote": {"obs": {"obs_url": f"obs://{BUCKET}/data/in/"}}}],
                  outputs=[{"name": "train_url", "remote": {"obs": {"obs_url": f"obs://{BUCKET}/out/two/"}}}])
    done = wait_phase(client, job.id, {"Completed", "Failed"}, timeout=30)
    assert done.phase == "Completed"
    assert [s.exit_code for s in done.task_statuses] == [0, 0]
    assert "accelerators" not in _log(client, job.id)  # a CPU flavor
    for index in (0, 1):
        assert f"task=worker-{index} index={index} workers=2" in _log(client, job.id, f"worker-{index}")


def test_an_algorithm_from_management_keeps_the_generated_log(client) -> None:
    job = client.create_job(CreateTrainingJobRequest.model_validate({
        "kind": "job", "metadata": {"name": "exec-managed"},
        "algorithm": {"id": "8d1b2f4c-5a6e-4f70-9b81-c2d3e4f5a6b7"},
        "spec": {"resource": {"flavor_id": CPU, "node_count": 1}}}))
    wait_phase(client, job.id, {"Running"}, timeout=30)
    assert "training job exec-managed" in _until_logged(client, job.id, "[ModelArts Service Log] env MA_JOB_NAME")


@pytest.mark.parametrize(("change", "field", "words"), [
    ({"engine": {"image_url": "swr.cn-north-4.myhuaweicloud.com/me/train:1"}}, "algorithm.engine.image_url",
     "cannot run container images"),
    ({"inputs": [{"name": "data_url", "remote": {"dataset": {"id": "d1", "version_id": "v1"}}}]},
     "algorithm.inputs[0].remote.dataset", "has no datasets"),
])
def test_what_a_local_process_cannot_do_is_refused_at_create(emu, change, field, words) -> None:
    body = _body("exec-refused", "ok")
    body["algorithm"].update(change)
    s = emu.session()
    resp = s.post(f"{emu.api_base}/training-jobs", json=body, timeout=10)
    assert resp.status_code == 400, resp.text
    err = resp.json()
    assert err["error_code"] == "ModelArts.2788"
    assert field in err["error_msg"] and words in err["error_msg"]
    assert "exec-refused" not in [j["metadata"]["name"] for j in emu.jobs()]


def test_volumes_are_refused_at_create(emu) -> None:
    body = _body("exec-nfs", "ok")
    body["spec"]["volumes"] = [{"nfs": {"nfs_server_path": "10.0.0.1:/data", "local_path": "/data"}}]
    resp = emu.session().post(f"{emu.api_base}/training-jobs", json=body, timeout=10)
    assert resp.status_code == 400 and "spec.volumes" in resp.json()["error_msg"], resp.text


def test_the_run_time_limit_and_the_process_bound_say_so_when_they_bite(tmp_path, local_obs) -> None:
    with running_emulator(tmp_path, phase_seconds=0.1, obs_endpoint=local_obs.url, execute=True,
                          max_processes=1, max_run_seconds=2) as emu, product_client(emu) as client:
        first = _create(client, "exec-long", "sleep")
        wait_phase(client, first.id, {"Running"}, timeout=30)
        second = _create(client, "exec-queued", "ok", parameters=[{"name": "lr", "value": "1"}],
                         inputs=[{"name": "data_url", "remote": {"obs": {"obs_url": f"obs://{BUCKET}/data/in/"}}}],
                         outputs=[{"name": "train_url",
                                   "remote": {"obs": {"obs_url": f"obs://{BUCKET}/out/queued/"}}}])
        queued = _until_logged(client, second.id, "--max-processes")
        assert "queued: 1 of the 1 local processes" in queued
        assert client.get_job(second.id).phase == "Pending"
        killed = wait_phase(client, first.id, {"Failed", "Completed"}, timeout=30)
        assert killed.phase == "Failed"
        assert killed.task_statuses[0].exit_code == 137
        assert "--max-run-seconds" in killed.task_statuses[0].message
        assert "run-time limit of 2 s" in _log(client, first.id)
        assert wait_phase(client, second.id, {"Completed", "Failed"}, timeout=30).phase == "Completed"


def test_a_restart_kills_the_processes_and_says_so(tmp_path, local_obs) -> None:
    with running_emulator(tmp_path, phase_seconds=0.1, obs_endpoint=local_obs.url, execute=True) as emu, \
            product_client(emu) as client:
        job = _create(client, "exec-restart", "sleep")
        pid = int(_until_logged(client, job.id, "pid=").split("pid=", 1)[1].split()[0])
        emu.restart()
        assert not _alive(pid)  # the emulator's processes do not outlive it
        lost = wait_phase(client, job.id, {"Abnormal", "Failed", "Completed"}, timeout=30)
        assert lost.phase == "Abnormal"
        assert "stopped while this task ran" in lost.task_statuses[0].message
        assert "ERROR the local ModelArts stopped while this task ran" in _log(client, job.id)


def test_container_paths_map_under_the_task_directory(tmp_path) -> None:
    from modelarts_emulator.execution.plan import plan_tasks
    from modelarts_emulator.jobs.models import JobRow

    alg = {"code_dir": "/b/code/proj/", "boot_file": "/b/code/proj/src/train.py",
           "local_code_dir": "/home/ma-user/../../etc", "working_dir": "/home/ma-user/work",
           "parameters": [{"name": "lr", "value": "0.1"}, {"name": "epochs", "value": "2"}],
           "inputs": [{"name": "data_url", "local_dir": "/home/ma-user/in", "remote": {"obs": {"obs_url": "/b/d/"}}}],
           "outputs": [{"name": "train_url", "local_dir": "/home/ma-user/out", "remote": {"obs": {"obs_url": "/b/o/"}}}],
           "environments": [{"MA_NUM_HOSTS": "overridden", "MINE": "1"}]}
    row = JobRow(id="j1", name="n", description="", create_ms=0, doc={"algorithm": alg}, node_count=2,
                 outcome="hang", creating_ms=0, pending_ms=0, run_ms=None, terminating_ms=0, auto_stop_ms=None,
                 exit_code=0, message=None, terminate_ms=None)
    w0, w1 = plan_tasks(row, tmp_path)
    assert w0.code_dir == tmp_path / "worker-0" / "home" / "ma-user" / "etc" / "proj"  # .. cannot climb out
    assert w0.boot_file == w0.code_dir / "src" / "train.py"
    assert w0.working_dir == tmp_path / "worker-0" / "home" / "ma-user" / "work"
    assert list(w1.argv[1:]) == [str(w1.boot_file), "--lr=0.1", "--epochs=2",
                                 f"--data_url={tmp_path}/worker-1/home/ma-user/in",
                                 f"--train_url={tmp_path}/worker-1/home/ma-user/out"]
    assert (w1.env["VC_TASK_INDEX"], w1.env["VC_WORKER_NUM"], w1.env["MINE"]) == ("1", "2", "1")
    assert w1.env["MA_NUM_HOSTS"] == "overridden"  # the job's environments come last, as declared


def test_reset_removes_only_the_directories_of_its_own_jobs(tmp_path, local_obs) -> None:
    work = tmp_path / "work"
    work.mkdir()
    foreign = work / "notes.txt"  # a file the emulator did not make, in its --work-dir
    foreign.write_text("mine, not the emulator's")
    (work / "keep").mkdir()
    with running_emulator(tmp_path / "emu", phase_seconds=0.1, obs_endpoint=local_obs.url, execute=True,
                          work_dir=str(work)) as emu, product_client(emu) as client:
        job = _create(client, "exec-reset", "fail")
        wait_phase(client, job.id, {"Completed", "Failed"}, timeout=30)
        assert (work / job.id).is_dir()
        emu.reset()
        assert not (work / job.id).exists()  # the job's own directory went with the job
        assert foreign.read_text() == "mine, not the emulator's" and (work / "keep").is_dir()

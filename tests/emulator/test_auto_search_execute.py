"""Auto-search jobs in execution mode (``--execute``): the user's script runs once per trial with the
trial's parameters, at most max_concurrent at once, its reward read from its own log with the declared
regex, the next trials picked by Optuna; early stop and terminate kill the trials' processes. The
official SDK reads the trials; each trial's log (task ``trial-<id>``) shows its own parameters."""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from huaweicloudsdkcore.auth.credentials import BasicCredentials
from huaweicloudsdkcore.http.http_config import HttpConfig
from huaweicloudsdkmodelarts.v1 import ModelArtsClient
from huaweicloudsdkmodelarts.v1 import model as m

from modelarts_emulator.testing import RunningEmulator, running_emulator
from testkit.faults import wait_until
from tests.emulator.helpers import Api, obs_holding

BUCKET = "search-bucket"
MNIST = Path(__file__).resolve().parents[2] / "training" / "mnist" / "train.py"
ENGINE = {"engine_name": "PyTorch", "engine_version": "pytorch_1.8.0-cuda_10.2-py_3.7-ubuntu_18.04-x86_64"}

TRAIN = '''\
import sys
args = dict(a[2:].split("=", 1) for a in sys.argv[1:] if a.startswith("--") and "=" in a)
lr, bs = float(args["lr"]), int(args["batch_size"])
print(f"training with lr={lr} batch_size={bs}", flush=True)
for epoch in (1, 2):
    acc = 0.9 - (lr - 0.03) ** 2 * 50 - abs(bs - 32) / 1000 - (2 - epoch) * 0.1
    print(f"epoch {epoch} accuracy={acc:.6f} loss={1 - acc:.6f}", flush=True)
'''
BROKEN = '''\
import sys
print("accuracy=oops", flush=True)
sys.exit(4)
'''
WRITER = '''\
import sys
from pathlib import Path
args = dict(a[2:].split("=", 1) for a in sys.argv[1:] if a.startswith("--") and "=" in a)
Path(args["train_url"], "model.txt").write_text(f"lr={args['lr']}")
print(f"accuracy={1 - float(args['lr']):.6f} loss=0.1", flush=True)
'''
SLOW = '''\
import os, time
print(f"pid={os.getpid()} accuracy=0.5", flush=True)
time.sleep(60)
print("accuracy=0.9", flush=True)
'''


def _search(algorithm: str, samples: int, concurrent: int) -> dict[str, Any]:
    return {"reward_attrs": [{"name": "accuracy", "mode": "max", "regex": r"accuracy=([0-9.]+)"},
                             {"name": "loss", "mode": "min", "regex": r"loss=([0-9.]+)"}],
            "search_params": [{"name": "lr", "param_type": "continuous", "lower_bound": "0.001",
                               "upper_bound": "0.1"},
                              {"name": "batch_size", "param_type": "discrete", "discrete_values": ["16", "32", "64"]}],
            "algo_configs": [{"name": algorithm, "params": [{"key": "num_samples", "value": str(samples)},
                                                            {"key": "max_concurrent", "value": str(concurrent)},
                                                            {"key": "n_initial_points", "value": "3"}]
                              if algorithm == "tpe_search" else
                              [{"key": "num_samples", "value": str(samples)},
                               {"key": "max_concurrent", "value": str(concurrent)}]}]}


def _body(name: str, code: str, search: dict[str, Any]) -> dict[str, Any]:
    return {"kind": "job", "metadata": {"name": name},
            "algorithm": {"code_dir": f"obs://{BUCKET}/code/{code}/",
                          "boot_file": f"obs://{BUCKET}/code/{code}/train.py",
                          "engine": ENGINE, "policies": {"auto_search": search}},
            "spec": {"resource": {"flavor_id": "modelarts.vm.cpu.8u", "node_count": 1}}}


@pytest.fixture(scope="module")
def local_obs(tmp_path_factory) -> Iterator[Any]:
    code = {f"code/{name}/train.py": body for name, body in (("train", TRAIN), ("writer", WRITER), ("slow", SLOW),
                                                             ("broken", BROKEN), ("mnist", MNIST.read_text()))}
    with obs_holding(tmp_path_factory.mktemp("obs"), BUCKET, code) as obs:
        yield obs


@pytest.fixture(scope="module")
def module_emu(tmp_path_factory, local_obs: Any) -> Iterator[RunningEmulator]:
    with running_emulator(tmp_path_factory.mktemp("emu"), phase_seconds=0.1, run_seconds=60,
                          obs_endpoint=local_obs.url, execute=True, max_run_seconds=60, max_processes=4) as server:
        yield server


@pytest.fixture
def sdk(emu: RunningEmulator) -> ModelArtsClient:
    config = HttpConfig.get_default_config()
    return (ModelArtsClient.new_builder()
            .with_credentials(BasicCredentials(emu.access_key, emu.secret_key, emu.project_id))
            .with_endpoint(emu.url).with_http_config(config).build())


def _trials(sdk: ModelArtsClient, job_id: str) -> list[dict[str, Any]]:
    items = sdk.show_auto_search_trials(m.ShowAutoSearchTrialsRequest(training_job_id=job_id)).items
    rows = [dict(zip(items.header, row)) for row in items.data]
    for r in rows:
        r["config"] = ast.literal_eval(re.sub(r"Decimal\('([^']*)'\)", r"\1", r["config"]))
    return rows


def _wait(check: Any, timeout: float = 60.0) -> Any:
    return wait_until(check, timeout, every=0.1, what="the search")


def test_each_trial_runs_the_script_and_the_best_by_the_logs_is_reported(api: Api, sdk: ModelArtsClient) -> None:
    jid = api.create(_body("tpe-search", "train", _search("tpe_search", 5, 2))).json()["metadata"]["id"]
    job = api.wait_phase(jid, {"Completed", "Failed"}, timeout=90)
    assert job["status"]["phase"] == "Completed"
    rows = _trials(sdk, jid)
    assert len(rows) == 5 and all((r["status"], r["done"]) == ("TERMINATED", "True") for r in rows)
    best_by_logs = None
    for r in rows:
        log = api.logs(jid, f"trial-{r['trial_id']}").json()["content"]
        cfg = r["config"]
        assert f"training with lr={float(cfg['lr'])} batch_size={cfg['batch_size']}" in log  # its own parameters
        assert f"--lr={float(cfg['lr'])!r}" in log and f"--batch_size={cfg['batch_size']}" in log
        last = float(re.findall(r"accuracy=([0-9.]+)", log)[-1])
        assert float(r["reward_attr"]) == last and r["training_iteration"] == "2"
        assert float(r["loss"]) == pytest.approx(1 - last, abs=1e-5)
        if best_by_logs is None or last > best_by_logs[1]:
            best_by_logs = (r["trial_id"], last)
    best = max(rows, key=lambda r: float(r["best_reward"]))
    assert best_by_logs is not None and best["trial_id"] == best_by_logs[0]
    job_log = api.logs(jid).json()["content"]
    assert f"best trial {best['trial_id']} accuracy=" in job_log
    # never more than max_concurrent (2) trials at once, by the job log's start/end lines
    running, most = set(), 0
    for line in job_log.splitlines():
        if (s := re.search(r"trial (\w{8}) \(#\d+\) started", line)):
            running.add(s.group(1))
            most = max(most, len(running))
        elif (e := re.search(r"trial (\w{8}) ended", line)):
            running.discard(e.group(1))
    assert most == 2


def test_each_trial_uploads_its_outputs_to_a_folder_of_its_own(api: Api, sdk: ModelArtsClient,
                                                                 local_obs: Any) -> None:
    """Issue 41: 8 trials leave 8 folders under the job's output channel, each with that trial's model."""
    body = _body("writer-search", "writer", _search("anneal_search", 8, 4))
    body["algorithm"]["outputs"] = [{"name": "train_url", "remote": {"obs": {"obs_url": f"obs://{BUCKET}/out/w/"}}}]
    jid = api.create(body).json()["metadata"]["id"]
    assert api.wait_phase(jid, {"Completed", "Failed"}, timeout=90)["status"]["phase"] == "Completed"
    rows = _trials(sdk, jid)
    listed = local_obs.client().list_objects_v2(Bucket=BUCKET, Prefix="out/w/")["Contents"]
    assert sorted(o["Key"] for o in listed) == sorted(f"out/w/{r['trial_id']}/model.txt" for r in rows)
    assert len(rows) == 8
    for r in rows:
        got = local_obs.client().get_object(Bucket=BUCKET, Key=f"out/w/{r['trial_id']}/model.txt")["Body"].read()
        assert got.decode() == f"lr={float(r['config']['lr'])!r}"


def test_early_stop_kills_the_trial_and_terminate_stops_the_search(api: Api, sdk: ModelArtsClient) -> None:
    jid = api.create(_body("slow-search", "slow", _search("anneal_search", 3, 1))).json()["metadata"]["id"]
    first = _wait(lambda: [r for r in _trials(sdk, jid) if r["training_iteration"] == "1"])[0]
    pid = int(first["pid"])
    got = sdk.show_auto_search_trial_early_stop(
        m.ShowAutoSearchTrialEarlyStopRequest(training_job_id=jid, trial_id=first["trial_id"]))
    assert got.earlystop_trial == first["trial_id"]
    second = _wait(lambda: [r for r in _trials(sdk, jid) if r["trial_id"] != first["trial_id"]
                            and r["status"] == "RUNNING"])[0]
    stopped = next(r for r in _trials(sdk, jid) if r["trial_id"] == first["trial_id"])
    assert (stopped["status"], stopped["early_stopped"], stopped["done"], stopped["reward_attr"]) == (
        "TERMINATED", "True", "False", "0.5")
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    assert "early stop requested" in api.logs(jid, f"trial-{first['trial_id']}").json()["content"]
    assert api.terminate(jid).status_code == 202
    api.wait_phase(jid, {"Terminated"}, timeout=30)
    last = next(r for r in _wait(lambda: [r for r in _trials(sdk, jid) if r["trial_id"] == second["trial_id"]
                                          and r["status"] != "RUNNING"]))
    assert (last["status"], last["done"]) == ("TERMINATED", "False")
    with pytest.raises(ProcessLookupError):
        os.kill(int(last["pid"]), 0)
    assert len(_trials(sdk, jid)) == 2  # no trial starts after the terminate


def test_a_search_whose_trials_all_fail_fails(api: Api, sdk: ModelArtsClient) -> None:
    jid = api.create(_body("broken-search", "broken", _search("tpe_search", 2, 2))).json()["metadata"]["id"]
    job = api.wait_phase(jid, {"Completed", "Failed"}, timeout=60)
    assert job["status"]["phase"] == "Failed"
    rows = _trials(sdk, jid)
    assert [(r["status"], r["done"], r["reward_attr"]) for r in rows] == [("ERROR", "False", "")] * 2
    first = rows[0]["trial_id"]
    assert f"ERROR trial {first} failed: exit code 4" in api.logs(jid, f"trial-{first}").json()["content"]
    assert "no trial reported accuracy" in api.logs(jid).json()["content"]


def test_deleting_a_search_kills_its_running_trials(api: Api, sdk: ModelArtsClient) -> None:
    jid = api.create(_body("deleted-search", "slow", _search("tpe_search", 4, 2))).json()["metadata"]["id"]
    running = _wait(lambda: [r for r in _trials(sdk, jid) if r["training_iteration"] == "1"][1:] and
                    _trials(sdk, jid))
    pids = [int(r["pid"]) for r in running]
    assert len(pids) == 2
    assert api.delete(jid).status_code == 202

    def all_gone() -> bool:
        for pid in pids:
            try:
                os.kill(pid, 0)
                return False
            except ProcessLookupError:
                continue
        return True
    _wait(all_gone, timeout=15)


def test_the_example_training_script_searched_by_tpe(api: Api, sdk: ModelArtsClient) -> None:
    """training/mnist/train.py (the local stack's example) as the searched script: its epoch lines are the
    reports, and the best trial reported is the best by the trials' own logs."""
    search = _search("tpe_search", 4, 2)
    search["reward_attrs"] = [{"name": "accuracy", "mode": "max", "regex": r"accuracy=([0-9.]+)"}]
    body = _body("mnist-search", "mnist", search)
    body["algorithm"]["parameters"] = [{"name": "epochs", "value": "2"}, {"name": "samples", "value": "300"}]
    jid = api.create(body).json()["metadata"]["id"]
    assert api.wait_phase(jid, {"Completed", "Failed"}, timeout=120)["status"]["phase"] == "Completed"
    rows = _trials(sdk, jid)
    by_logs = {}
    for r in rows:
        log = api.logs(jid, f"trial-{r['trial_id']}").json()["content"]
        assert f"lr={float(r['config']['lr'])} batch_size={r['config']['batch_size']} epochs=2" in log
        by_logs[r["trial_id"]] = float(re.findall(r"accuracy=([0-9.]+)", log)[-1])
        assert r["training_iteration"] == "2" and float(r["reward_attr"]) == by_logs[r["trial_id"]]
    best = max(rows, key=lambda r: float(r["reward_attr"]))
    assert by_logs[best["trial_id"]] == max(by_logs.values())


def test_a_restart_ends_running_trials_in_error(tmp_path, local_obs: Any) -> None:
    with running_emulator(tmp_path, phase_seconds=0.1, obs_endpoint=local_obs.url, execute=True) as emu:
        api = Api(emu)
        config = HttpConfig.get_default_config()
        sdk = (ModelArtsClient.new_builder()
               .with_credentials(BasicCredentials(emu.access_key, emu.secret_key, emu.project_id))
               .with_endpoint(emu.url).with_http_config(config).build())
        jid = api.create(_body("restarted-search", "slow", _search("tpe_search", 2, 1))).json()["metadata"]["id"]
        first = _wait(lambda: [r for r in _trials(sdk, jid) if r["training_iteration"] == "1"])[0]
        emu.restart()
        with pytest.raises(ProcessLookupError):
            os.kill(int(first["pid"]), 0)
        assert api.wait_phase(jid, {"Abnormal", "Failed", "Completed"}, timeout=30)["status"]["phase"] == "Abnormal"
        rows = _trials(sdk, jid)
        assert [(r["status"], r["reward_attr"]) for r in rows] == [("ERROR", "0.5")]
        assert "stopped while this trial ran" in api.logs(jid, f"trial-{first['trial_id']}").json()["content"]

"""Every run kept (issue 41) under the real engine, the local ModelArts running the code (--execute) and the local OBS: a
Completed job whose parameter changes three times leaves four runs, each in the service with its own log and
each with its own output files in OBS, every one reachable through `logs --run N`, `results --history` and
`outputs --run N --get DIR`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from testkit.faults import ENGINE, configure_jobs, job_stack, provider_config
from testkit.harness import REPO_ROOT, Stack
from tests.logs.test_logs_cli import logs

pytestmark = [pytest.mark.engine, pytest.mark.timeout(420)]

RATES = (0.1, 0.2, 0.3, 0.4)  # the first run, then three edits


def cli(st: Stack, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**st.env, "PYTHONPATH": str(REPO_ROOT)}
    return subprocess.run([sys.executable, "-m", "modelarts_provider", *args, "--stack", st.name,
                           "--cwd", str(st.workdir)], env=env, text=True, capture_output=True, timeout=120)


def test_three_edits_of_a_completed_job_leave_every_run_with_its_own_logs_and_files(tmp_path: Path) -> None:
    from modelarts_emulator.testing import running_emulator
    from obs_emulator.testing import running_obs

    def entry(lr: float) -> dict:
        return {"pool": "cpu", "engine": dict(ENGINE), "pollIntervalSeconds": 0.2, "waitFor": "completed",
                "code": {"localDir": str(REPO_ROOT / "training" / "mnist"), "bootFile": "train.py"},
                "parameters": {"epochs": 1, "lr": lr}}

    with running_obs(tmp_path / "obs") as obs, \
            running_emulator(tmp_path / "emulator", phase_seconds=0.2, obs_endpoint=obs.url, execute=True) as emu:
        plain, secrets = provider_config(emu)
        plain["modelarts:obsEndpoint"] = obs.url
        st = job_stack(tmp_path, emu, jobs={"train": entry(RATES[0])},
                       obs={"main": {"bucket": "runs", "create": True, "forceDestroy": True}},
                       plain=plain, secrets=secrets, pools={"cpu": {"flavor": "modelarts.vm.cpu.8u", "maxNodes": 1}})
        st.up()
        for lr in RATES[1:]:
            configure_jobs(st, jobs={"train": entry(lr)})
            st.up()

        runs = st.outputs()["runs"]["train"]
        assert [r["parameters"]["lr"] for r in runs] == [str(lr) for lr in RATES]
        assert all(r["phase"] == "Completed" for r in runs), runs
        folders = [r["outputPath"] for r in runs]
        assert folders == [f"obs://runs/outputs/train/{r['name']}/" for r in runs] and len(set(folders)) == 4
        # every run is still in the service (kept when replaced), none was deleted
        assert {j["metadata"]["id"] for j in emu.jobs()} == {r["jobId"] for r in runs}
        assert emu.counters().get("delete", 0) == 0
        keys = [o["Key"] for o in obs.client().list_objects_v2(Bucket="runs", Prefix="outputs/train/")["Contents"]]
        assert sorted(keys) == sorted(f"outputs/train/{r['name']}/{f}" for r in runs
                                      for f in ("metrics.json", "model.npz"))

        history = cli(st, "results", "train", "--history")
        assert history.returncode == 0, history.stderr
        assert history.stdout.splitlines()[0] == "train: 4 runs, newest last"
        assert all(folder in history.stdout for folder in folders)
        for n, (lr, run) in enumerate(zip(RATES, runs), start=1):
            shown = logs(st, "train", "--run", str(n))
            assert shown.returncode == 0, shown.stderr
            assert f"lr={lr} " in shown.stdout and "model written to" in shown.stdout, shown.stdout
            got = tmp_path / f"run{n}"
            fetched = cli(st, "outputs", "train", "--run", str(n), "--get", str(got))
            assert fetched.returncode == 0, fetched.stderr
            assert fetched.stdout.splitlines()[0] == f"train run {n} ({run['name']}): 2 files in {run['outputPath']}"
            model = obs.client().get_object(Bucket="runs", Key=f"outputs/train/{run['name']}/model.npz")["Body"].read()
            assert (got / "model.npz").read_bytes() == model
        every = logs(st, "train", "--all")
        assert [line for line in every.stdout.splitlines() if line.startswith("=== ")] == [
            f"=== train run {n} ({r['name']}, Completed) ===" for n, r in enumerate(runs, start=1)]
        st.destroy()
        assert emu.jobs() == []  # destroy: the current run and the kept ones are ours and finished


def test_through_the_plugin_a_replaced_run_stays_with_its_folder_and_its_log(tmp_path: Path) -> None:
    """The same through the provider plugin (a YAML program): the replaced finished run stays in the service,
    each run has its own output folder, and `logs --run N` reaches both through the JobsAwait's run history in
    the state (a YAML program exports no `runs`)."""
    from modelarts_emulator.testing import running_emulator
    from testkit.plugin_program import write_program, yaml_stack

    def program(lr: str) -> dict:
        return {
            "train": {"type": "modelarts:index:TrainingJob", "properties": {
                "algorithm": {"id": "8d1b2f4c-5a6e-4f70-9b81-c2d3e4f5a6b7", "parameters": [{"name": "lr", "value": lr}],
                              "outputs": [{"name": "train_url", "obsUrl": "obs://bkt/outputs/train/"}]},
                "flavorId": "modelarts.vm.cpu.2u", "pollIntervalSeconds": 0.2}},
            "waited": {"type": "modelarts:index:JobsAwait", "properties": {"jobs": {
                "train": {"jobId": "${train.jobId}", "jobName": "${train.jobName}", "waitFor": "completed",
                          "pollSeconds": 0.2}}}}}

    outputs = {"path": "${train.outputPath}"}
    with running_emulator(tmp_path / "emulator", run_seconds=1, phase_seconds=0.2) as emu:
        st = yaml_stack(tmp_path, emu, program("0.1"), outputs)
        st.up()
        first = st.outputs()["path"]
        write_program(st.workdir, program("0.2"), outputs)
        st.up()
        second = st.outputs()["path"]
        jobs = {j["metadata"]["name"]: j for j in emu.jobs()}
        assert len(jobs) == 2 and {j["status"]["phase"] for j in jobs.values()} == {"Completed"}
        assert first != second and {first, second} == {f"obs://bkt/outputs/train/{n}/" for n in jobs}
        shown_runs = []
        for n, lr in ((1, "0.1"), (2, "0.2")):
            shown = logs(st, "train", "--run", str(n))
            assert shown.returncode == 0, shown.stderr
            assert f"training with parameters: epochs=10 lr={lr}" in shown.stdout, shown.stdout
            shown_runs += [n for n in jobs if f"training job {n} " in shown.stdout]
        assert sorted(shown_runs) == sorted(jobs)  # each run's own log
        history = cli(st, "results", "train", "--history")
        assert history.returncode == 0 and first in history.stdout and second in history.stdout, history
        st.destroy()
        assert emu.jobs() == []

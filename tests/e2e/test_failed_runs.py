"""A failed run is a result on record, not a blocker (issue 56, item 2), under the real engine, through both front
doors: the stack program (its jobs' scripts run for real by the local ModelArts, one needing a package the
interpreter lacks) and a YAML program through the provider plugin.

- The `up` with a failed job fails, and the runs that succeeded are recorded all the same: their results, run
  records and output paths are in the state (the JobsAwait's init error), so `results` and `outputs` reach them,
  and the failed point of a sweep is listed as failed and never its best.
- The next `up` with nothing changed fails again on the same run, re-running nothing.
- `acceptFailed: true` (per job; per sweep: every point) settles the failure: that `up` succeeds, and every
  later preview and `up` says it again in a warning naming the job and why it failed, with no change and no wait.
- `replaceFailed: true` re-runs it: a new run, on record beside the first.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from modelarts_provider.results.failed_up import exports_behind
from modelarts_provider.stack.sweep import point_name
from testkit.faults import ENGINE, PROJECT, job_stack, output_of, provider_config, up_advancing, update_config
from testkit.harness import REPO_ROOT, Stack
from testkit.plugin_program import write_program, yaml_stack
from tests.e2e.test_plugin_yaml import ALGORITHM_ID, CPU

pytestmark = [pytest.mark.engine, pytest.mark.timeout(600)]

# A script that scores itself (accuracy = 0.9 - lr), writes a model, and needs a package nobody has when asked to.
TRAIN = '''\
import os, sys
args = dict(a[2:].split("=", 1) for a in sys.argv[1:] if a.startswith("--") and "=" in a)
print("starting with", sorted(args), flush=True)
if args.get("needs") == "missing" or args.get("lr") == "0.5":
    import a_package_this_interpreter_lacks  # noqa: F401
lr = float(args.get("lr", "0.1"))
print(f"accuracy={0.9 - lr:.4f}", flush=True)
with open(os.path.join(args["train_url"], "model.txt"), "w") as f:
    f.write(f"lr={lr}\\n")
'''
BEST = point_name("grid", {"lr": 0.1})
FAILED_POINT = point_name("grid", {"lr": 0.5})
MISSING = "ModuleNotFoundError: No module named 'a_package_this_interpreter_lacks'"


def cli(st: Stack, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**st.env, "PYTHONPATH": str(REPO_ROOT)}
    return subprocess.run([sys.executable, "-m", "modelarts_provider", *args, "--stack", st.name,
                           "--cwd", str(st.workdir)], env=env, text=True, capture_output=True, timeout=180)


def awaits(st: Stack) -> list[dict[str, Any]]:
    return [r for r in st.resources() if r["type"].endswith("JobsAwait")]


def warnings(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if "warning: " in line and "failed" in line]


def test_python_program_records_the_runs_that_succeeded_and_accepts_a_failed_one(tmp_path: Path) -> None:
    from modelarts_emulator.testing import running_emulator
    from obs_emulator.testing import running_obs

    code = tmp_path / "code"
    code.mkdir()
    (code / "train.py").write_text(TRAIN)
    entry = {"pool": "cpu", "engine": dict(ENGINE), "pollIntervalSeconds": 0.2, "waitFor": "completed",
             "code": {"localDir": str(code), "bootFile": "train.py"}}
    jobs = {"a": {**entry, "parameters": {"lr": 0.1}}, "twonode": {**entry, "nodes": 2, "parameters": {"lr": 0.2}},
            "bad": {**entry, "parameters": {"needs": "missing"}}}
    objective = {"name": "accuracy", "regex": "accuracy=([0-9.]+)", "goal": "max"}
    sweeps = {"grid": {**entry, "grid": {"lr": [0.1, 0.3, 0.5]}, "objective": objective}}
    with running_obs(tmp_path / "obs") as obs, \
            running_emulator(tmp_path / "emulator", phase_seconds=0.2, obs_endpoint=obs.url, execute=True) as emu:
        plain, secrets = provider_config(emu)
        plain["modelarts:obsEndpoint"] = obs.url
        st = job_stack(tmp_path, emu, jobs=jobs, sweeps=sweeps, plain=plain, secrets=secrets,
                       obs={"main": {"bucket": "exec", "create": True, "forceDestroy": True}},
                       pools={"cpu": {"flavor": "modelarts.vm.cpu.8u", "maxNodes": 2}})

        # 1. One job and one point fail: the up fails, naming them with the script's own error.
        up = st.up(check=False)
        text = output_of(up)
        assert up.returncode != 0, text
        head = next(line for line in text.splitlines() if "awaited training jobs did not reach their target" in line)
        named = head.split("2 of 6 awaited training jobs did not reach their target: ", 1)[1]
        assert sorted(named.split(", ")) == sorted(["bad", FAILED_POINT]), head
        assert MISSING in text
        # the runs that succeeded were scored and shown: the failed point is listed as failed, never the best
        assert f"grid: 3 points, 1 failed; best {BEST} (accuracy 0.8, max)" in text, text
        # ... and recorded: the JobsAwait is in the state with what it saw, and its init error
        (waited,) = awaits(st)
        assert waited["initErrors"] and waited["initErrors"][0].startswith("2 of 6 awaited training jobs"), waited
        statuses = waited["outputs"]["statuses"]
        reached = {k for k, s in statuses.items() if s["reached"]}
        assert reached == {"a", "twonode", BEST, point_name("grid", {"lr": 0.3})}, statuses
        assert statuses["bad"]["phase"] == "Failed" and statuses["bad"]["failure"].startswith("Failed; exit code 1")
        assert statuses[BEST]["objective"] == 0.8
        assert "jobs" not in st.outputs()  # the program exported nothing: the CLI reads the state

        # `outputs` and `results` reach them (issue 56: `no output path of 'twonode'` before)
        listed = cli(st, "outputs", "twonode")
        assert listed.returncode == 0, listed.stderr
        assert listed.stdout.splitlines()[0].startswith("twonode run 1 (") and "model.txt" in listed.stdout
        table = cli(st, "results", "grid")
        assert table.returncode == 0, table.stderr
        rows = table.stdout.splitlines()
        assert rows[0] == f"grid: 3 points, 1 failed; best {BEST} (accuracy 0.8, max)", rows
        failed_row = next(r for r in rows if FAILED_POINT in r)
        assert failed_row.split()[:3] == ["-", "0.5", "Failed"], rows
        best = cli(st, "outputs", "grid", "--best")
        assert best.returncode == 0 and f"grid best point {BEST}" in best.stdout and "model.txt" in best.stdout, \
            best.stdout + best.stderr
        history = cli(st, "results", "bad", "--history")
        assert history.returncode == 0, history.stderr
        assert "Failed (exit code 1" in history.stdout, history.stdout

        # 2. Nothing changed: the same failure again, nothing re-run.
        jobs_before = len(emu.jobs())
        again = st.up(check=False)
        assert again.returncode != 0 and MISSING in output_of(again), output_of(again)
        assert len(emu.jobs()) == jobs_before

        # 3. Accepted (the job, and the sweep's every point): that up succeeds and says so.
        jobs["bad"]["acceptFailed"] = True
        sweeps["grid"]["acceptFailed"] = True
        update_config(st, {f"{PROJECT}:jobs": jobs, f"{PROJECT}:sweeps": sweeps})
        accepted = st.up()
        said = warnings(output_of(accepted))
        assert any(line.startswith("warning: bad failed, accepted (acceptFailed): Failed; exit code 1")
                   for line in said), said
        assert any(f"warning: sweep grid: 1 failed point on record (acceptFailed), never its best: {FAILED_POINT} "
                   "(Failed; exit code 1" in line for line in said), said
        assert len(emu.jobs()) == jobs_before
        out = st.outputs()
        assert out["jobs"]["bad"]["phase"] == "Failed" and out["jobs"]["twonode"]["phase"] == "Completed"
        grid = out["sweeps"]["grid"]
        assert grid["best"]["key"] == BEST and grid["failures"] == 1
        assert {p["key"]: p["phase"] for p in grid["points"]}[FAILED_POINT] == "Failed"
        assert not awaits(st)[0].get("initErrors")

        # 4. Later previews and ups with nothing changed: no change, no call, the warnings again.
        calls = emu.counters()
        preview = st.preview("--expect-no-changes")
        assert any(line.startswith("warning: bad failed, accepted") for line in warnings(output_of(preview)))
        unchanged = st.up()
        said = warnings(output_of(unchanged))
        assert any(line.startswith("warning: bad failed, accepted (acceptFailed)") for line in said), said
        assert any(line.startswith("warning: sweep grid: 1 failed point on record") for line in said), said
        assert "waiting for" not in output_of(unchanged)
        assert emu.counters()["create"] == calls["create"] and emu.counters()["get"] == calls["get"]

        # 5. Re-run it: replaceFailed makes a new run (it fails again, accepted); both runs on record.
        jobs["bad"]["replaceFailed"] = True
        update_config(st, {f"{PROJECT}:jobs": jobs})
        first_run = statuses["bad"]["job_id"]
        rerun = st.up()
        (now,) = [r["outputs"]["job_id"] for r in st.resources() if r["urn"].endswith("TrainingJob::bad")]
        assert now != first_run and any(j["metadata"]["id"] == now for j in emu.jobs()), output_of(rerun)
        history = cli(st, "results", "bad", "--history")
        assert history.returncode == 0, history.stderr
        assert history.stdout.splitlines()[0] == "bad: 2 runs, newest last", history.stdout
        assert history.stdout.count("Failed (exit code 1") == 2, history.stdout

        # 6. Acceptance withdrawn: the up fails again; the exports stay those of the last up that succeeded, and
        # the state says it is newer (what the command-line tools read first then: results/failed_up.py).
        assert not exports_behind(st.resources())
        del jobs["bad"]["acceptFailed"], jobs["bad"]["replaceFailed"]
        update_config(st, {f"{PROJECT}:jobs": jobs})
        withdrawn = st.up(check=False)
        assert withdrawn.returncode != 0 and "did not reach their target: bad" in output_of(withdrawn)
        assert exports_behind(st.resources())
        assert len(st.outputs()["runs"]["bad"]) == 2  # as exported before
        (waited,) = awaits(st)
        assert waited["outputs"]["statuses"]["bad"].get("tolerated") is None
        assert [r["phase"] for r in waited["outputs"]["runs"]["bad"]] == ["Failed", "Failed"]


def _point(lr: str, **extra: Any) -> dict[str, Any]:
    return {"type": "modelarts:index:TrainingJob",
            "properties": {"algorithm": {"id": ALGORITHM_ID, "parameters": [{"name": "lr", "value": lr}]},
                           "flavorId": CPU, "pollIntervalSeconds": 0.2, **extra}}


def _yaml_program(accept: bool) -> dict[str, Any]:
    objective = {"name": "val_accuracy", "regex": "val_accuracy=([0-9.]+)", "goal": "max"}
    keys = {"g-a": "0.01", "g-b": "0.1", "g-bad": "0.001"}
    resources: dict[str, Any] = {k: _point(lr) for k, lr in keys.items()}
    resources["g-bad"]["properties"]["annotations"] = {"emulator/outcome": "fail", "emulator/exit-code": "3"}
    entries = {k: {"jobId": f"${{{k}.jobId}}", "jobName": f"${{{k}.jobName}}", "waitFor": "completed",
                   "pollSeconds": 0.2, "objective": dict(objective), "group": "g", "parameters": {"lr": lr}}
               for k, lr in keys.items()}
    if accept:
        entries["g-bad"]["acceptFailed"] = True
    resources["waited"] = {"type": "modelarts:index:JobsAwait", "properties": {"jobs": entries}}
    return resources


def test_yaml_program_records_the_runs_that_succeeded_and_accepts_a_failed_one(tmp_path: Path) -> None:
    from modelarts_emulator.testing import running_emulator

    with running_emulator(tmp_path / "emulator", phase_seconds=0.2, run_seconds=600) as emu:
        st = yaml_stack(tmp_path, emu, _yaml_program(accept=False), {"phases": "${waited.phases}"})

        # 1. One point fails (its clock moved past every run): the up fails; the others are on record.
        up = up_advancing(st, emu, 602, log=tmp_path / "up.log", check=False)
        text = output_of(up)
        assert up.returncode != 0, text
        assert "1 of 3 awaited training jobs did not reach their target: g-bad" in text
        assert "g: 3 points, 1 failed; best g-a (val_accuracy 0.95, max)" in text, text
        (waited,) = awaits(st)
        assert waited["initErrors"], waited
        statuses = waited["outputs"]["statuses"]
        assert statuses["g-a"]["objective"] == 0.95 and statuses["g-b"]["reached"] is True
        assert statuses["g-bad"]["reached"] is False and statuses["g-bad"]["failure"].startswith("Failed; exit code 3")
        table = cli(st, "results", "g")
        assert table.returncode == 0, table.stderr
        rows = table.stdout.splitlines()
        assert rows[0] == "g: 3 points, 1 failed; best g-a (val_accuracy 0.95, max)", rows
        assert next(r for r in rows if "g-bad" in r).split()[:3] == ["-", "0.001", "Failed"], rows
        history = cli(st, "results", "g-b", "--history")
        assert history.returncode == 0 and "Completed" in history.stdout, history.stdout + history.stderr

        # 2. Nothing changed: it fails again, nothing re-run.
        count = len(emu.jobs())
        again = st.up(check=False)
        assert again.returncode != 0 and "did not reach their target: g-bad" in output_of(again), output_of(again)
        assert len(emu.jobs()) == count

        # 3. Accepted in the JobsAwait's entry: the up succeeds, and every later one says it.
        write_program(st.workdir, _yaml_program(accept=True), {"phases": "${waited.phases}"})
        accepted = st.up()
        line = ("warning: sweep g: 1 failed point on record (acceptFailed), never its best: g-bad (Failed; exit code 3")
        assert any(w.startswith(line) for w in warnings(output_of(accepted))), output_of(accepted)
        assert st.outputs()["phases"] == {"g-a": "Completed", "g-b": "Completed", "g-bad": "Failed"}
        calls = emu.counters()
        preview = st.preview("--expect-no-changes")
        assert any(w.startswith(line) for w in warnings(output_of(preview))), output_of(preview)
        unchanged = st.up()
        assert any(w.startswith(line) for w in warnings(output_of(unchanged))), output_of(unchanged)
        assert emu.counters()["create"] == calls["create"] and len(emu.jobs()) == count

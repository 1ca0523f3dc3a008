"""Live progress and metric curves (issue 41) under the real engine, through both front doors.

A 4-point sweep whose emulated trainings print `epoch k/10 loss=L accuracy=A` as they run, declaring two metrics
beside its objective. The emulator holds the jobs Running (long run times) and its clock is moved forward: three
epochs are in every log, and `up` prints, while it still waits, a line per job with the current metric values
(`<job>: Running, step 3: loss ..., accuracy ...`); then the jobs complete, and each point's curves (10 points,
steps 1..10) are recorded, exported and shown by `results`. The Python stack program's dynamic provider prints
them on stderr; the plugin through the engine's diagnostics (the engine hides a plugin's stderr): the same lines.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from modelarts_provider.stack.sweep import point_name
from testkit.emulators import fresh_emulator
from testkit.faults import job_stack, running_up, wait_until
from testkit.harness import REPO_ROOT, Stack
from testkit.plugin_program import yaml_stack

ALGORITHM = "8d1b2f4c-5a6e-4f70-9b81-c2d3e4f5a6b7"  # in the emulator's catalog: prints its epochs
GRID = {"lr": [0.1, 0.01], "batch_size": [32, 64]}
OBJECTIVE = {"name": "val_accuracy", "regex": "val_accuracy=([0-9.]+)", "goal": "max"}
METRICS = [{"name": "loss", "regex": "epoch (?P<epoch>[0-9]+)/[0-9]+ loss=([0-9.]+)", "goal": "min"},
           {"name": "accuracy", "regex": r"\baccuracy=([0-9.]+)", "goal": "max"}]  # not val_accuracy=
RUN_SECONDS = 600  # epoch k of 10 is written at k/11 of the run
THREE_EPOCHS = 170  # epoch 3 at 164 s, epoch 4 at 218 s
FINISH = RUN_SECONDS + 5
# `<job>: Running, step 3: loss 0.976, accuracy 0.5934`, after the engine's prefix (resource, its state, time)
PROGRESS = re.compile(r"(\S+): Running, step [0-9]+: loss [0-9.]+, accuracy [0-9.]+\s*$", re.MULTILINE)

RUNNING = re.compile(r"(\S+): (?:\S+ -> )?Running\s*$", re.MULTILINE)  # the phase line: first seen or changed

pytestmark = [pytest.mark.engine, pytest.mark.timeout(420)]


emu = fresh_emulator(phase_seconds=0.2, run_seconds=RUN_SECONDS)


def progress_while_waiting(st: Stack, emu: Any, log: Path) -> str:
    """`up` in the background: once every job runs, three epochs on the emulator's clock; every job's progress
    line is awaited before the jobs may complete. The up's whole output."""
    with running_up(st, log) as bg:
        wait_until(lambda: "waiting for 4 training jobs" in bg.output or bg.proc.poll() is not None, 300,
                   what="the wait to start")
        wait_until(lambda: len(set(RUNNING.findall(bg.output))) >= 4 or bg.proc.poll() is not None, 120,
                   what="every job running")
        emu.advance(THREE_EPOCHS)
        # a running job's log is read at most every 10 s (awaiting/progress.py): its line follows within that
        try:
            wait_until(lambda: len(set(PROGRESS.findall(bg.output))) >= 4 or bg.proc.poll() is not None, 120,
                       what="a progress line of every job")
        except AssertionError as err:
            raise AssertionError(f"{err}\n{bg.output}") from None
        assert bg.proc.poll() is None, bg.output  # still waiting: the lines came during the wait
        emu.advance(FINISH)
        code = bg.wait(300)
    assert code == 0, bg.output
    return bg.output


def assert_curves(points: list[dict[str, Any]]) -> None:
    assert len(points) == 4
    for p in points:
        loss = p["metrics"]["loss"]
        assert [s for s, _ in loss["points"]] == [float(k) for k in range(1, 11)], loss
        assert loss["matches"] == 10 and loss["last"] == loss["points"][-1][1]
        assert loss["best"] == min(v for _, v in loss["points"])
        assert p["metrics"]["accuracy"]["matches"] == 10
        assert p["metrics"]["val_accuracy"]["points"] == [[1.0, p["objective"]]]  # the objective's curve


def results_cli(st: Stack, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**st.env, "PYTHONPATH": str(REPO_ROOT)}
    return subprocess.run([sys.executable, "-m", "modelarts_provider", "results", *args, "--stack", st.name,
                           "--cwd", str(st.workdir)], env=env, text=True, capture_output=True, timeout=120)


def test_the_python_program_prints_progress_lines_and_records_curves(tmp_path: Path, emu: Any) -> None:
    grid = {"pool": "gpu", "algorithmId": ALGORITHM, "grid": GRID, "waitFor": "completed", "objective": OBJECTIVE,
            "metrics": METRICS, "pollIntervalSeconds": 0.2, "waitTimeoutSeconds": 900}
    st = job_stack(tmp_path, emu, sweeps={"s": grid})
    out = progress_while_waiting(st, emu, tmp_path / "up.log")
    names = set(PROGRESS.findall(out))
    jobs = st.outputs()["jobs"]
    assert names == {jobs[point_name("s", {"lr": lr, "batch_size": bs})]["name"]
                     for lr in GRID["lr"] for bs in GRID["batch_size"]}, out
    diagnostics = out[out.index("Diagnostics:"):]  # the provider's lines, each whole
    head = diagnostics.index("s: 4 points; best ")
    header = diagnostics[head:].splitlines()[1].split()
    assert header[:6] == ["#", "batch_size", "lr", "phase", "val_accuracy", "loss"], diagnostics

    sweep = st.outputs()["sweeps"]["s"]
    assert sweep["metrics"] == [{"name": "loss", "goal": "min"}, {"name": "accuracy", "goal": "max"}]
    assert_curves(sweep["points"])
    shown = results_cli(st, "s", "--chart", str(tmp_path / "s.png"))
    assert shown.returncode == 0, shown.stderr
    assert "loss" in shown.stdout.splitlines()[1] and (tmp_path / "s.png").read_bytes()[:4] == b"\x89PNG"


def test_a_yaml_program_prints_the_same_progress_lines_through_the_engine(tmp_path: Path, emu: Any) -> None:
    resources: dict[str, Any] = {}
    jobs: dict[str, Any] = {}
    for lr in GRID["lr"]:
        for bs in GRID["batch_size"]:
            key = f"p-{str(lr).replace('.', 'p')}-{bs}"
            resources[key] = {"type": "modelarts:index:TrainingJob", "properties": {
                "algorithm": {"id": ALGORITHM, "parameters": [{"name": "lr", "value": str(lr)},
                                                              {"name": "batch_size", "value": str(bs)}]},
                "flavorId": "modelarts.vm.cpu.2u", "name": key}}
            jobs[key] = {"jobId": f"${{{key}.jobId}}", "jobName": f"${{{key}.jobName}}", "waitFor": "completed",
                         "pollSeconds": 0.2, "timeoutSeconds": 900, "group": "s",
                         "parameters": {"lr": str(lr), "batch_size": str(bs)},
                         "objective": dict(OBJECTIVE), "metrics": [dict(m) for m in METRICS]}  # copies: no YAML aliases
    resources["waited"] = {"type": "modelarts:index:JobsAwait", "properties": {"jobs": jobs}}
    st = yaml_stack(tmp_path, emu, resources)
    out = progress_while_waiting(st, emu, tmp_path / "up.log")
    assert set(PROGRESS.findall(out)) == set(jobs), out

    (waited,) = [r for r in st.resources() if r["type"] == "modelarts:index:JobsAwait"]
    statuses = waited["outputs"]["statuses"]
    assert_curves([{"objective": s["objective"], "metrics": s["metrics"]} for s in statuses.values()])
    shown = results_cli(st, "s")
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert lines[1].split()[:6] == ["#", "batch_size", "lr", "phase", "val_accuracy", "loss"], shown.stdout
    assert lines[2].split()[:2] == ["1", "64"] and lines[2].split()[2] == "0.01"  # the emulator's best point

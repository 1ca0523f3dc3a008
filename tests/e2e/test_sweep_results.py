"""Which point of a sweep won (issue 23), under the real engine with the local ModelArts over HTTP.

One `up` of a 2x3 grid of an algorithm from management, whose emulated log prints a validation
accuracy that is a known function of lr and batch_size (best: lr 0.01, batch_size 64), beside a job
with its own code whose log has no match. One point is terminated during the wait and tolerated
(maxFailures 1). Then: the exported table and best point (read by `pulumi stack output` and by another
stack's StackReference), the report at the end of the up, a second `up` making no API call, and the
`results` (with its chart) and `status` commands. The bounded report of 60 failing points is a unit test
(tests/results/test_failure_report.py): an engine run of 60 jobs would cost minutes of the shared CPUs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from modelarts_emulator.jobs.logs import known_accuracy
from modelarts_provider.client import AkSkCredentials, ClientSettings, ModelArtsClient
from modelarts_provider.stack.sweep import point_name
from testkit.harness import REPO_ROOT, Stack
from testkit.emulators import fresh_emulator
from testkit.faults import job, job_stack, output_of, running_up, wait_until

ALGORITHM = "8d1b2f4c-5a6e-4f70-9b81-c2d3e4f5a6b7"  # in the emulator's catalog
GRID = {"lr": [0.1, 0.01], "batch_size": [32, 64, 128]}
OBJECTIVE = {"name": "val_accuracy", "regex": "val_accuracy=([0-9.]+)", "goal": "max"}
RUN_SECONDS = 600  # no job ends by itself during the test
FINISH = 2 * 0.2 + RUN_SECONDS + 1
BEST = point_name("grid", {"lr": 0.01, "batch_size": 64})
STOPPED = point_name("grid", {"lr": 0.1, "batch_size": 128})

pytestmark = [pytest.mark.timeout(420)]


emu = fresh_emulator(phase_seconds=0.2, run_seconds=RUN_SECONDS)


def client_of(emu: Any) -> ModelArtsClient:
    return ModelArtsClient(ClientSettings(region="cn-north-4", project_id=emu.project_id, endpoint=emu.url,
                                          credentials=AkSkCredentials(access_key=emu.access_key,
                                                                      secret_key=emu.secret_key)))


def owner_key(j: dict[str, Any]) -> str:
    return (j["metadata"].get("annotations") or {}).get("modelarts-pulumi/owner", "").rsplit("::", 1)[-1]


def cli(st: Stack, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**st.env, "PYTHONPATH": str(REPO_ROOT)}
    return subprocess.run([sys.executable, "-m", "modelarts_provider", *args, "--stack", st.name,
                           "--cwd", str(st.workdir)], env=env, text=True, capture_output=True, timeout=120)


def test_a_sweep_exports_its_best_point_table_and_chart(tmp_path: Path, emu: Any) -> None:
    grid = {"pool": "gpu", "algorithmId": ALGORITHM, "grid": GRID, "waitFor": "completed",
            "objective": OBJECTIVE, "maxFailures": 1, "pollIntervalSeconds": 0.2, "waitTimeoutSeconds": 300}
    st = job_stack(tmp_path, emu, sweeps={"grid": grid},
                   jobs={"plain": job(waitFor="completed", name="plain-own-code", objective=OBJECTIVE,
                                      waitTimeoutSeconds=300)})
    with running_up(st, tmp_path / "up.log") as bg:
        wait_until(lambda: "waiting for 7 training jobs" in bg.output or bg.proc.poll() is not None, 300,
                   what="the wait to start")
        # Someone stops one point while the sweep runs: a failed point, within maxFailures.
        stopped = next(j for j in emu.jobs() if owner_key(j) == STOPPED)
        with client_of(emu) as client:
            client.terminate_job(stopped["metadata"]["id"])
        emu.advance(FINISH)
        code = bg.wait(300)
    assert code == 0, bg.output
    up = bg.output[bg.output.index("Diagnostics:"):]  # the provider's lines, each whole

    # The report at the end of the up: the table, best first, the stopped point tolerated.
    assert "tolerated: sweep grid has 1 failed point, within its maxFailures (1)" in up, up
    head = f"grid: 6 points, 1 failed; best {BEST} (val_accuracy 0.95, max)"
    assert head in up, up
    table = up[up.index(head):].splitlines()
    assert table[2].split()[:5] == ["1", "64", "0.01", "Completed", "0.95"], table
    assert "plain: val_accuracy none (no match for 'val_accuracy=([0-9.]+)' in the log)" in up, up

    # The exports: every point with its values, the best point with its job and output path.
    out = st.outputs()
    sweep = out["sweeps"]["grid"]
    by_key = {p["key"]: p for p in sweep["points"]}
    live = {owner_key(j): j for j in emu.jobs()}
    assert set(by_key) == {point_name("grid", {"lr": lr, "batch_size": bs}) for lr in GRID["lr"]
                           for bs in GRID["batch_size"]}
    for key, p in by_key.items():
        if key == STOPPED:
            # judged failed as soon as it was seen stopping (Terminating) or stopped
            assert p["phase"] in ("Terminating", "Terminated") and p["objective"] is None, p
            assert p["note"].startswith(p["phase"]), p
        else:
            want = known_accuracy({"lr": str(p["parameters"]["lr"]), "batch_size": str(p["parameters"]["batch_size"])})
            assert p["phase"] == "Completed" and p["objective"] == want, p
            assert p["durationSeconds"] and p["durationSeconds"] > 0
        assert p["jobId"] == live[key]["metadata"]["id"]
    assert sweep["failures"] == 1
    best = sweep["best"]
    assert best["key"] == BEST and best["objective"] == 0.95 and best["parameters"] == {"lr": 0.01, "batch_size": 64}
    assert best["jobId"] == live[BEST]["metadata"]["id"]
    assert best["outputPath"] == out["jobs"][BEST]["outputPath"] and best["outputPath"].endswith(
        f"/grid/{BEST}/{live[BEST]['metadata']['name']}/")  # issue 41: the run's own folder
    assert out["objectives"]["plain"]["value"] is None
    assert out["objectives"]["plain"]["note"].startswith("no match")

    # A second up of the unchanged stack: no API call, no wait, no log read again.
    before = emu.counters()
    again = st.up()
    assert emu.counters() == before, output_of(again)
    assert "waiting for" not in output_of(again)

    # Another stack reads the best point's output path through a StackReference.
    reader = tmp_path / "reader"
    reader.mkdir()
    (reader / "Pulumi.yaml").write_text(f"name: reader\nruntime:\n  name: python\n  options:\n"
                                        f"    virtualenv: {REPO_ROOT / '.venv'}\n")
    (reader / "__main__.py").write_text(
        "import pulumi\n"
        f"ref = pulumi.StackReference('organization/modelarts-jobs/{st.name}')\n"
        "pulumi.export('bestOutput', ref.get_output('sweeps').apply(lambda s: s['grid']['best']['outputPath']))\n")
    rs = Stack(reader, "reader", st.env)
    rs.run("stack", "init", "reader", stack_flag=False)
    rs.up()
    assert rs.outputs()["bestOutput"] == best["outputPath"]

    # `results`: the table from the outputs (no ModelArts call) and a chart.
    calls = emu.counters()["total"]
    chart = tmp_path / "charts" / "grid.png"
    shown = cli(st, "results", "grid", "--chart", str(chart))
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert lines[0] == head and lines[2].split()[:5] == ["1", "64", "0.01", "Completed", "0.95"]
    assert f"best output: {best['outputPath']}" in lines and lines[-1] == f"chart: {chart}"
    data = chart.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    assert int.from_bytes(data[16:20], "big") > 0 and int.from_bytes(data[20:24], "big") > 0
    assert emu.counters()["total"] == calls

    # `status`: every job of the stack with its live phase and tags, from one list call and one tag filter call.
    listed = cli(st, "status")
    assert listed.returncode == 0, listed.stderr
    after = emu.counters()
    assert after["total"] - calls == 2 and after["search"] - before["search"] == 1, (before, after)
    assert after.get("tags_filter", 0) - before.get("tags_filter", 0) == 1, (before, after)
    phases = {line.split()[0]: line.split()[2] for line in listed.stdout.splitlines()[1:-1]}
    assert phases == {**{k: "Completed" for k in by_key if k != STOPPED}, STOPPED: "Terminated",
                      "plain": "Completed"}, listed.stdout
    assert listed.stdout.splitlines()[-1] == "7 jobs: 6 Completed, 1 Terminated"
    assert os.path.getsize(chart) > 1000
    json.dumps(out)  # plain JSON all the way (a StackReference reads it as such)

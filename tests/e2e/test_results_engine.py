"""Results you can act on (issue 56, items 1, 3 and 4) under the real engine, through both front doors: the stack
program and a YAML program through the provider plugin, the local ModelArts running each job's script for real
(--execute) against the local OBS.

The script prints `epoch k accuracy=<value>` lines; with lr 0.1 it prints 0.93, 0.95 then `accuracy=nan`, which
the README's regex `accuracy=([0-9.]+)` never matches. Such a run diverged: a sweep's point that did is never its
best (its last finite value, 0.95, would have won) and `results` lists it as diverged; a lone job that did exports
no value and a `diverged` marker (the stack program's `objectives`, the JobsAwait's `statuses`). The CLI is run as
a user runs it: `results KEY --chart` for one job, `--history --chart` after an edit, `outputs SWEEP --best --get`
from the local OBS. One `up` per door, and one more for the edit: every other rule is a unit test
(tests/results/test_divergence.py, test_job_chart_and_best_outputs.py; a search's legend: test_search_legend.py).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from modelarts_provider.stack.sweep import point_name
from testkit.executing_clouds import executing_clouds
from testkit.faults import ENGINE, PROJECT, job_stack, output_of, update_config
from testkit.harness import REPO_ROOT, Stack

pytestmark = [pytest.mark.engine, pytest.mark.timeout(600)]

# lr 0.1 diverges after two finite values; any other lr ends at 0.9 - lr. Each run writes its lr as its model.
TRAIN = '''\
import os, sys
args = dict(a[2:].split("=", 1) for a in sys.argv[1:] if a.startswith("--") and "=" in a)
lr = float(args.get("lr", "0.1"))
values = ["0.93", "0.95", "nan"] if lr == 0.1 else ["0.5", f"{0.9 - lr:.4f}"]
for epoch, value in enumerate(values, start=1):
    print(f"epoch {epoch} accuracy={value}", flush=True)
with open(os.path.join(args["train_url"], "model.txt"), "w") as f:
    f.write(f"lr={lr}\\n")
'''
README_REGEX = "accuracy=([0-9.]+)"  # the README's own: it never matches `nan`
OBJECTIVE = {"name": "accuracy", "regex": README_REGEX, "goal": "max"}
DIVERGED_AT = "accuracy nan at line "  # the line number is the executed log's (the script's third line)
PNG = b"\x89PNG\r\n\x1a\n"


def cli(st: Stack, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**st.env, "PYTHONPATH": str(REPO_ROOT)}
    return subprocess.run([sys.executable, "-m", "modelarts_provider", *args, "--stack", st.name,
                           "--cwd", str(st.workdir)], env=env, text=True, capture_output=True, timeout=180)


def ok(proc: subprocess.CompletedProcess[str]) -> list[str]:
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout.splitlines()


def is_png(path: Path) -> bool:
    data = path.read_bytes()
    return data[:8] == PNG and data[12:16] == b"IHDR" and int.from_bytes(data[16:20], "big") > 0


def awaited_statuses(st: Stack) -> dict[str, Any]:
    (waited,) = [r for r in st.resources() if r["type"].endswith("JobsAwait")]
    return waited["outputs"]["statuses"]


def test_python_program_a_diverged_run_never_wins_and_results_are_one_command_away(tmp_path: Path) -> None:
    code = tmp_path / "code"
    code.mkdir()
    (code / "train.py").write_text(TRAIN)
    entry = {"pool": "cpu", "engine": dict(ENGINE), "pollIntervalSeconds": 0.2, "waitFor": "completed",
             "code": {"localDir": str(code), "bootFile": "train.py"}, "objective": OBJECTIVE}
    jobs = {"solo": {**entry, "parameters": {"lr": 0.1}}, "mine": {**entry, "parameters": {"lr": 0.3}}}
    sweeps = {"grid": {**entry, "grid": {"lr": [0.1, 0.2]}}}
    best, diverged = point_name("grid", {"lr": 0.2}), point_name("grid", {"lr": 0.1})
    with executing_clouds(tmp_path) as clouds:
        st = job_stack(tmp_path, clouds.emu, jobs=jobs, sweeps=sweeps, plain=clouds.plain, secrets=clouds.secrets,
                       obs={"main": {"bucket": "exec", "create": True, "forceDestroy": True}},
                       pools={"cpu": {"flavor": "modelarts.vm.cpu.8u", "maxNodes": 2}})
        text = output_of(st.up())
        head = f"grid: 2 points, 1 diverged; best {best} (accuracy 0.7, max)"
        assert head in text, text
        assert f"solo: diverged ({DIVERGED_AT}" in text and "mine: accuracy 0.6" in text, text

        # The exports: the diverged point has no value and is never the best; the lone job that diverged exports
        # no value (never its last finite 0.95) and where it diverged.
        out = st.outputs()
        grid = out["sweeps"]["grid"]
        assert grid["best"]["key"] == best and grid["best"]["objective"] == 0.7, grid["best"]
        (point,) = [p for p in grid["points"] if p["key"] == diverged]
        assert point["objective"] is None and point["diverged"].startswith(DIVERGED_AT), point
        assert point["metrics"]["accuracy"]["last"] == 0.95  # the curve keeps its finite points
        solo = out["objectives"]["solo"]
        assert solo["value"] is None and solo["diverged"].startswith(DIVERGED_AT), solo
        assert solo["note"] == f"diverged: {solo['diverged']}"
        assert out["objectives"]["mine"] == {"name": "accuracy", "goal": "max", "value": 0.6, "note": None,
                                             "diverged": None}
        assert "objective" not in out["runs"]["solo"][-1]  # a run record exports set fields only
        assert out["runs"]["solo"][-1]["note"] == f"diverged: {solo['diverged']}"

        # `results grid`: the diverged point listed apart, unranked.
        rows = ok(cli(st, "results", "grid"))
        assert rows[0] == head, rows
        row = next(r for r in rows if diverged in r)
        assert row.split()[:4] == ["-", "0.1", "Completed", "diverged"] and row.endswith(
            f"{diverged}  diverged: {point['diverged']}"), rows

        # `outputs grid --best --get DIR`: the best point's files, from the local OBS.
        got = tmp_path / "best"
        fetched = ok(cli(st, "outputs", "grid", "--best", "--get", str(got)))
        assert f"grid best point {best}" in fetched[0], fetched
        assert sorted(p.name for p in got.iterdir()) == ["model.txt"]
        assert (got / "model.txt").read_text() == "lr=0.2\n"

        # `results mine --chart`: one job's curves.
        chart = tmp_path / "charts" / "mine.png"
        shown = ok(cli(st, "results", "mine", "--chart", str(chart)))
        assert shown[-1] == f"chart: {chart}" and is_png(chart), shown

        # An edit re-runs mine; `--history --chart` overlays its two runs.
        jobs["mine"]["parameters"] = {"lr": 0.4}
        update_config(st, {f"{PROJECT}:jobs": jobs})
        st.up()
        assert [r["objective"] for r in st.outputs()["runs"]["mine"]] == [0.6, 0.5]
        overlay = tmp_path / "charts" / "history.png"
        shown = ok(cli(st, "results", "mine", "--history", "--chart", str(overlay)))
        assert shown[0] == "mine: 2 runs, newest last" and shown[-1] == f"chart: {overlay}", shown
        assert is_png(overlay) and overlay.read_bytes() != chart.read_bytes()


def _yaml_program() -> dict[str, Any]:
    """Two sweep points (group g) and a lone job, each running TRAIN uploaded by a CodeUpload."""
    def run(key: str, lr: str) -> dict[str, Any]:
        return {"type": "modelarts:index:TrainingJob", "properties": {
            "algorithm": {"codeDir": "${code.codeDir}", "bootFile": "${code.bootFile}",
                          "engine": {"engineName": ENGINE["name"], "engineVersion": ENGINE["version"]},
                          "parameters": [{"name": "lr", "value": lr}],
                          "outputs": [{"name": "train_url", "obsUrl": f"obs://exec/outputs/{key}/"}]},
            "flavorId": "modelarts.vm.cpu.8u", "pollIntervalSeconds": 0.2}}

    lrs = {"g-a": "0.1", "g-b": "0.2", "solo": "0.1"}
    resources: dict[str, Any] = {
        "bucket": {"type": "modelarts:index:Bucket", "properties": {"bucket": "exec", "forceDestroy": True}},
        "code": {"type": "modelarts:index:CodeUpload",
                 "properties": {"localDir": "./code", "bootFile": "train.py", "bucket": "${bucket.bucket}"}},
        **{key: run(key, lr) for key, lr in lrs.items()}}
    entries = {key: {"jobId": f"${{{key}.jobId}}", "jobName": f"${{{key}.jobName}}", "waitFor": "completed",
                     "pollSeconds": 0.2, "objective": dict(OBJECTIVE)} for key in lrs}
    for key in ("g-a", "g-b"):
        entries[key] |= {"group": "g", "parameters": {"lr": lrs[key]}}
    resources["waited"] = {"type": "modelarts:index:JobsAwait", "properties": {"jobs": entries}}
    return resources


def test_yaml_program_a_diverged_run_never_wins(tmp_path: Path) -> None:
    from testkit.plugin_program import yaml_stack

    with executing_clouds(tmp_path) as clouds:
        st = yaml_stack(tmp_path, clouds.emu, _yaml_program(), {"statuses": "${waited.statuses}"},
                        config=clouds.plain, secrets=clouds.secrets)
        (st.workdir / "code").mkdir()
        (st.workdir / "code" / "train.py").write_text(TRAIN)
        text = output_of(st.up())
        head = "g: 2 points, 1 diverged; best g-b (accuracy 0.7, max)"
        assert head in text and f"solo: diverged ({DIVERGED_AT}" in text, text

        # The program's own export of the JobsAwait's statuses: no value for either diverged run, and where.
        statuses = st.outputs()["statuses"]
        assert statuses["g-b"]["objective"] == 0.7 and "diverged" not in statuses["g-b"], statuses["g-b"]
        for key in ("g-a", "solo"):
            s = statuses[key]
            assert "objective" not in s and s["diverged"].startswith(DIVERGED_AT), s
            assert s["objectiveNote"] == f"diverged: {s['diverged']}"
            assert s["metrics"]["accuracy"]["last"] == 0.95
        assert awaited_statuses(st)["solo"]["diverged"] == statuses["solo"]["diverged"]  # the state says the same

        rows = ok(cli(st, "results", "g"))
        assert rows[0] == head, rows
        row = next(r for r in rows if "g-a" in r)
        assert row.split()[:4] == ["-", "0.1", "Completed", "diverged"], rows
        got = tmp_path / "best"
        fetched = ok(cli(st, "outputs", "g", "--best", "--get", str(got)))
        assert "g best point g-b" in fetched[0], fetched
        assert (got / "model.txt").read_text() == "lr=0.2\n"
        lone = ok(cli(st, "results", "solo"))
        assert lone[0] == "solo: 1 run, 1 diverged; no run has a value of accuracy", lone
        assert lone[-1].split()[:3] == ["-", "Completed", "diverged"], lone
        assert lone[-1].endswith(f"solo  diverged: {statuses['solo']['diverged']}"), lone  # said once
        # its chart: the curve up to the divergence (dashed; tests/results/test_divergence.py looks at the figure)
        chart = tmp_path / "solo.png"
        assert ok(cli(st, "results", "solo", "--chart", str(chart)))[-1] == f"chart: {chart}" and is_png(chart)

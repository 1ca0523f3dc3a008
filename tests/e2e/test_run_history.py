"""A finished run is never lost to an edit, and every run stays on record (the real engine, the repository's
stack program, the local ModelArts over HTTP).

The TrainingJob's state keeps the phase seen at create (Creating); the replacement of a Completed run is
decided from what the service says now: the successor is created first and the finished run then leaves the
state and stays in the service (kept by default, docs/run-history.md). A refused create leaves the finished run in the service and in the state, without a
refresh. The `runs` export and `results KEY --history` list every run of the key."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from testkit.harness import REPO_ROOT, Stack
from tests.e2e.test_training_jobs import FINISH, PHASE_SECONDS, RUN_SECONDS, job, make_stack, stack_config
from testkit.faults import up_advancing

pytestmark = pytest.mark.engine
# The service refuses the create (the gateway's 404 on the POST: not ambiguous, never retried).
SEED = "seed-secret-73519"
REFUSE_CREATE = {"operation": "create", "kind": "status", "status": 404, "times": 50}


@pytest.fixture
def emu(tmp_path: Path) -> Iterator[Any]:
    from modelarts_emulator.testing import running_emulator

    with running_emulator(tmp_path / "emulator", run_seconds=RUN_SECONDS, phase_seconds=PHASE_SECONDS) as e:
        yield e


def training_job_state(st: Stack, key: str) -> dict[str, Any]:
    (res,) = [r for r in st.resources() if r["urn"].endswith(f"TrainingJob::{key}") and not r.get("delete")]
    return res["outputs"]


def cli(st: Stack, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**st.env, "PYTHONPATH": str(REPO_ROOT)}
    return subprocess.run([sys.executable, "-m", "modelarts_provider", *args, "--stack", st.name,
                           "--cwd", str(st.workdir)], env=env, text=True, capture_output=True, timeout=120)


def test_a_completed_run_survives_a_refused_replacement_and_stays_on_record(tmp_path: Path, emu: Any) -> None:
    jobs = {"mnist": job(waitFor="completed", parameters={"lr": 0.1})}
    st = make_stack(tmp_path, emu, jobs)
    st.run("config", "set", "--secret", "--path", "modelarts-jobs:jobs.mnist.parameters.seed", SEED)
    up_advancing(st, emu, FINISH, log=tmp_path / "up1.log")
    (first,) = emu.jobs()
    first_id = first["metadata"]["id"]
    assert first["status"]["phase"] == "Completed"
    assert training_job_state(st, "mnist")["phase"] != "Completed"  # the state's phase is the one seen at create

    # lr changes; the service refuses the successor's create: the finished run stays, in the service and state
    st.run("config", "set", "--path", "modelarts-jobs:jobs.mnist.parameters.lr", "0.2")
    emu.set_faults([REFUSE_CREATE])
    before = emu.counters()
    failed = st.up(check=False)
    assert failed.returncode != 0
    after = emu.counters()
    assert after["create"] > before["create"] and after["delete"] == before["delete"]
    assert after["terminate"] == before["terminate"]
    assert [(j["metadata"]["id"], j["status"]["phase"]) for j in emu.jobs()] == [(first_id, "Completed")]
    assert training_job_state(st, "mnist")["job_id"] == first_id  # no refresh
    assert st.outputs()["jobs"]["mnist"]["id"] == first_id

    # the create allowed: the successor accepted first; the finished run then leaves the state and stays in
    # the service (issue 41: kept by default)
    emu.clear_faults()
    done = up_advancing(st, emu, FINISH, log=tmp_path / "up3.log")
    (second,) = [j for j in emu.jobs() if j["metadata"]["id"] != first_id]
    second_id = second["metadata"]["id"]
    assert second["status"]["phase"] == "Completed"
    assert {j["metadata"]["id"]: j["status"]["phase"] for j in emu.jobs()} == {first_id: "Completed",
                                                                               second_id: "Completed"}
    out = done.stdout
    assert out.index(f"submitted {second_id}") < out.index(f"{first['metadata']['name']}: kept in the service"), out

    runs = st.outputs()["runs"]["mnist"]
    assert [(r["jobId"], r["phase"], r["parameters"].get("lr")) for r in runs] == [
        (first_id, "Completed", "0.1"), (second_id, "Completed", "0.2")]
    assert runs[0]["outputPath"] and runs[0]["startTime"] and runs[0]["name"] == first["metadata"]["name"]
    shown = cli(st, "results", "mnist", "--history")
    assert shown.returncode == 0, shown.stderr
    assert "mnist: 2 runs, newest last" in shown.stdout and first["metadata"]["name"] in shown.stdout
    # a parameter from a secret config value is recorded masked: never in plain text in the state or output
    assert [r["parameters"]["seed"] for r in runs] == ["******", "******"]
    assert SEED in str(first["algorithm"]["parameters"])  # sent to the service
    assert SEED not in json.dumps(st.export()) + shown.stdout + "".join(p.stdout + p.stderr for p in st.history)


def test_a_completed_run_keeping_its_explicit_name_stops_the_up_before_any_change(tmp_path: Path, emu: Any) -> None:
    jobs = {"named": job(name="named-run", waitFor="completed", parameters={"lr": 0.1})}
    st = make_stack(tmp_path, emu, jobs)
    up_advancing(st, emu, FINISH, log=tmp_path / "up1.log")
    (first,) = emu.jobs()
    jobs["named"]["parameters"] = {"lr": 0.2}
    st.write_config(stack_config(jobs))
    before = emu.counters()
    proc = st.up(check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert f"training job named-run ({first['metadata']['id']}) has completed" in out, out
    assert "deleteBeforeReplace: true" in out and "Traceback" not in out
    after = emu.counters()
    assert {k: after[k] - before[k] for k in ("create", "delete", "terminate")} == {"create": 0, "delete": 0,
                                                                                   "terminate": 0}
    assert after["get"] - before["get"] == 1  # one read of the job about to be replaced
    assert [j["metadata"]["id"] for j in emu.jobs()] == [first["metadata"]["id"]]


# --- the same scenario through the provider plugin (a Pulumi YAML program) ---------------------------------

ALGORITHM_ID = "8d1b2f4c-5a6e-4f70-9b81-c2d3e4f5a6b7"  # in the emulator catalog


def _yaml_resources(lr: str) -> dict[str, Any]:
    return {
        "mnist": {"type": "modelarts:index:TrainingJob", "properties": {
            "algorithm": {"id": ALGORITHM_ID, "parameters": [{"name": "lr", "value": lr}]},
            "flavorId": "modelarts.vm.cpu.2u", "pollIntervalSeconds": 0.2}},
        "waited": {"type": "modelarts:index:JobsAwait", "properties": {"jobs": {
            "mnist": {"jobId": "${mnist.jobId}", "jobName": "${mnist.jobName}", "waitFor": "completed",
                      "pollSeconds": 0.2}}}},
    }


YAML_OUTPUTS = {"runs": "${waited.runs}", "jobId": "${mnist.jobId}"}


def up_finishing(st: Stack, emu: Any, new_jobs: int, log: Path) -> subprocess.CompletedProcess[str]:
    """`pulumi up` whose wait ends once `new_jobs` more jobs were submitted: the emulator's clock then moves
    past every run (the plugin's progress lines are not in the engine's output to wait for)."""
    from testkit.faults import up_in_background, wait_until

    known = len(emu.jobs())
    bg = up_in_background(st, log=log)
    try:
        wait_until(lambda: len(emu.jobs()) >= known + new_jobs or bg.proc.poll() is not None, 120, what="the submit")
        emu.advance(FINISH)
        code = bg.wait(300)
    finally:
        if bg.proc.poll() is None:
            bg.signal_group(9)
            bg.wait(30)
    assert code == 0, bg.output
    return subprocess.CompletedProcess(bg.proc.args, code, stdout=bg.output, stderr="")


def test_plugin_a_completed_run_survives_a_refused_replacement_and_stays_on_record(tmp_path: Path, emu: Any) -> None:
    from testkit.plugin_program import write_program, yaml_stack

    st = yaml_stack(tmp_path, emu, _yaml_resources("0.1"), YAML_OUTPUTS)
    up_finishing(st, emu, 1, tmp_path / "up1.log")
    (first,) = emu.jobs()
    first_id = first["metadata"]["id"]
    assert first["status"]["phase"] == "Completed"
    assert training_job_state(st, "mnist")["phase"] != "Completed"

    write_program(st.workdir, _yaml_resources("0.2"), YAML_OUTPUTS)
    emu.set_faults([REFUSE_CREATE])
    before = emu.counters()
    assert st.up(check=False).returncode != 0
    after = emu.counters()
    assert after["create"] > before["create"] and after["delete"] == before["delete"]
    assert [(j["metadata"]["id"], j["status"]["phase"]) for j in emu.jobs()] == [(first_id, "Completed")]
    assert training_job_state(st, "mnist")["jobId"] == first_id  # no refresh (the plugin records camelCase)

    emu.clear_faults()
    deletes = emu.counters()["delete"]
    up_finishing(st, emu, 1, tmp_path / "up3.log")
    (second,) = [j for j in emu.jobs() if j["metadata"]["id"] != first_id]
    second_id = second["metadata"]["id"]
    # issue 41: the replaced finished run is kept in the service (not deleted), out of the state
    assert len(emu.jobs()) == 2 and emu.counters()["delete"] == deletes
    runs = st.outputs()["runs"]["mnist"]
    assert [(r["job_id"], r["phase"], r["parameters"].get("lr")) for r in runs] == [
        (first_id, "Completed", "0.1"), (second_id, "Completed", "0.2")]

"""The bound holds with no process of ours running (issue 55, item 1), through both front doors, under the real
engine against the local ModelArts: a job under a budget whose bound is its wait deadline carries the service's
own limit (spec.auto_stop, the deadline rounded up to whole hours); the preview says so; and once nothing of ours
runs (the `up` SIGKILLed mid-wait; a YAML program's `up` done), the local ModelArts stops the job at that limit,
measured on its own clock (moved on by the test, not waited for)."""

from __future__ import annotations

import re
import signal
from pathlib import Path
from typing import Any, Iterator

import pytest

from testkit.faults import FAST_EMULATOR, FLAVOR, job, job_stack, reap, reap_needed, up_in_background, update_config, \
    wait_until
from testkit.plugin_program import write_program, yaml_stack

pytestmark = [pytest.mark.engine, pytest.mark.timeout(400), pytest.mark.usefixtures("pulumi_engine")]

HOUR_MS = 3_600_000
LONG_RUN = {"emulator/run-seconds": "36000"}  # the job would run 10 h of the emulator's clock on its own
ALGORITHM_ID = "8d1b2f4c-5a6e-4f70-9b81-c2d3e4f5a6b7"  # in the emulator catalog
CPU = "modelarts.vm.cpu.2u"


@pytest.fixture
def emu(tmp_path: Path) -> Iterator[Any]:
    from modelarts_emulator.testing import running_emulator

    with running_emulator(tmp_path / "emulator", **FAST_EMULATOR) as e:
        yield e


def _only_job(emu: Any) -> dict[str, Any]:
    (found,) = emu.jobs()
    return found


def _stopped_at_its_limit(emu: Any) -> dict[str, Any]:
    """Still running after the wait deadline's worth of the emulator's clock, then Terminated by the service at
    1 h of running, with nothing of ours running."""
    assert _only_job(emu)["spec"]["auto_stop"] == {"time_unit": "HOURS", "duration": 1}
    emu.advance(600)  # past the wait deadline (300 s): nothing of ours is there to terminate it
    assert _only_job(emu)["status"]["phase"] == "Running"
    emu.advance(3000)  # 3,600 s of running, and some
    done = _only_job(emu)
    assert done["status"]["phase"] == "Terminated", done["status"]
    assert done["status"]["duration"] == HOUR_MS, done["status"]  # the service's own duration: its limit, exactly
    return done


def test_a_job_of_a_killed_up_is_stopped_by_the_service_at_its_bound(tmp_path: Path, emu: Any) -> None:
    st = job_stack(tmp_path, emu, jobs={"guarded": job(waitFor="completed", waitTimeoutSeconds=300,
                                                       annotations=LONG_RUN)})
    update_config(st, {"modelarts-jobs:prices": {FLAVOR: {"perNodeHour": 2}}, "modelarts-jobs:budget": {"max": 5}})
    preview = st.preview()
    out = preview.stdout + preview.stderr
    assert ("cost: guarded: 1 job x 1 node x 1 h max (enforced by the service: autoStop 1 h; the wait terminates it "
            "at 5 min) x 2.00 CNY/node-hour = up to 2.00 CNY") in out, out

    bg = up_in_background(st, log=tmp_path / "up.log")
    try:
        wait_until(lambda: "waiting for" in bg.output or bg.proc.poll() is not None, 120, what="the wait")
        assert "waiting for" in bg.output, bg.output
        tree = bg.tree()
        bg.signal_group(signal.SIGKILL)  # engine, program and the JobsAwait's wait: nothing of ours is left
        assert bg.wait(30) == -signal.SIGKILL
        providers = {pid: cmd for pid, cmd in tree.items() if b"pulumi.dynamic" in cmd}
        wait_until(lambda: not reap_needed(providers), 15, what="the orphaned provider to exit by itself")
        reap(tree)
    finally:
        bg.kill_if_running()
    _stopped_at_its_limit(emu)


def test_a_yaml_programs_job_under_a_budget_is_stopped_by_the_service_at_its_bound(tmp_path: Path, emu: Any) -> None:
    st = yaml_stack(tmp_path, emu, {"guarded": {"type": "modelarts:index:TrainingJob", "properties": {
        "algorithm": {"id": ALGORITHM_ID}, "flavorId": CPU, "waitFor": "completed", "waitTimeoutSeconds": 300,
        "annotations": LONG_RUN}}})
    st.write_config({"modelarts:prices": {CPU: {"perNodeHour": 0.5}}, "modelarts:budget": {"max": 1}})
    out = st.preview().stdout
    assert ("cost: guarded: 1 job x 1 node x 1 h max (enforced by the service: autoStop 1 h; the wait terminates it "
            "at 5 min) x 0.50 CNY/node-hour = up to 0.50 CNY") in out, out
    st.up()  # a TrainingJob returns once submitted: no process of ours is left to wait for it
    st.preview("--expect-no-changes")  # the derived limit is recorded: no diff, no re-run
    _stopped_at_its_limit(emu)


def test_a_job_recorded_without_a_limit_is_not_re_run_for_one_and_gets_one_when_an_edit_re_runs_it(
        tmp_path: Path, emu: Any) -> None:
    """A stack from before limits were derived: its job is not replaced when its bound would now give it one; the
    preview says the service does not enforce its deadline. An edit that re-runs it gives the new run the limit
    its wait gives it (the engine checks a replacement again with no old inputs: the TrainingJob's check)."""
    st = job_stack(tmp_path, emu, jobs={"kept": job(waitFor="created", annotations=LONG_RUN)})
    st.up()
    update_config(st, {"modelarts-jobs:jobs": {"kept": job(waitFor="completed", waitTimeoutSeconds=300,
                                                           annotations=LONG_RUN)},
                       "modelarts-jobs:prices": {FLAVOR: {"perNodeHour": 2}}})
    preview = st.preview("--diff")
    out = preview.stdout + preview.stderr
    assert "to replace" not in out and "+-" not in out and "autoStop:" not in out, out  # an update at most
    assert ("cost: kept: 1 job x 1 node x 0.09 h max (not enforced by the service: this job was submitted without "
            "autoStop") in out, out
    assert "auto_stop" not in _only_job(emu)["spec"]

    update_config(st, {"modelarts-jobs:jobs": {"kept": job(waitFor="completed", waitTimeoutSeconds=300,
                                                           annotations=LONG_RUN, parameters={"lr": 0.02})}})
    out = _said(st.preview("--diff"))
    assert "+-pulumi-python:dynamic:Resource: (replace)" in out or "to replace" in out, out
    assert _replacement_limit(out) == "1", out
    assert ("cost: kept: 1 job x 1 node x 1 h max (enforced by the service: autoStop 1 h; the wait terminates it at "
            "5 min)") in out, out


def test_a_yaml_programs_job_recorded_without_a_limit_gets_one_only_when_an_edit_re_runs_it(
        tmp_path: Path, emu: Any) -> None:
    def declared(**extra: Any) -> dict[str, Any]:
        return {"guarded": {"type": "modelarts:index:TrainingJob", "properties": {
            "algorithm": {"id": ALGORITHM_ID}, "flavorId": CPU, "annotations": LONG_RUN, **extra}}}

    st = yaml_stack(tmp_path, emu, declared(waitFor="created"))
    st.up()
    first = _only_job(emu)
    assert "auto_stop" not in first["spec"]
    write_program(st.workdir, declared(waitFor="completed", waitTimeoutSeconds=300))
    out = _said(st.preview("--diff"))
    assert "to replace" not in out and "autoStop" not in out, out  # the wait option: an update, no limit
    write_program(st.workdir, declared(waitFor="completed", waitTimeoutSeconds=300, nodeCount=2))
    assert "to replace" in _said(st.preview()), out
    # The plugin's diff shows the keys it found changed, before the engine checks the replacement again: what
    # the new run carries is read off the local ModelArts (a TrainingJob returns once its job is submitted).
    st.up()
    (rerun,) = [j for j in emu.jobs() if j["metadata"]["id"] != first["metadata"]["id"]]
    assert rerun["spec"]["auto_stop"] == {"time_unit": "HOURS", "duration": 1}, rerun["spec"]


def _said(proc: Any) -> str:
    return proc.stdout + proc.stderr


def _replacement_limit(out: str) -> str | None:
    """The autoStop duration the preview's diff shows added to a replaced job's inputs (either door's spelling)."""
    found = re.search(r"^\s*\+\s*(?:auto_stop|autoStop)\s*:\s*\{[^}]*?duration\s*:\s*(\d+)", out, re.M | re.S)
    return found.group(1) if found else None

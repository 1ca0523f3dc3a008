"""Jobs wait together (issue 9), under the real engine and the emulator over HTTP.

Creating a TrainingJob submits it; one JobsAwait waits for every job at once. Overlap is measured
from the emulator's recorded timestamps, never by timing the `up`. Jobs run far longer than any test
(RUN_SECONDS) until the test moves the emulator's clock past their end (FINISH): what a test sees never
depends on how fast the machine is.
"""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Any

import pytest

from modelarts_provider.stack.sweep import point_names
from testkit.faults import (assert_converged, job, job_stack, name_of, output_of, phase_of, reap, sweep,
                              up_advancing, up_in_background, update_config, wait_until)

GRID = {"lr": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]}
PHASE_SECONDS = 0.2
RUN_SECONDS = 600  # no job ends by itself during a test
FINISH = 2 * PHASE_SECONDS + RUN_SECONDS + 1  # a clock step that ends every job submitted before it


@pytest.fixture
def emu(tmp_path: Path, pulumi_engine: Path) -> Any:
    from modelarts_emulator.testing import running_emulator

    with running_emulator(tmp_path / "emulator", phase_seconds=PHASE_SECONDS,
                          run_seconds=RUN_SECONDS) as e:
        yield e


def _interval(j: dict[str, Any]) -> tuple[int, int]:
    status = j["status"]
    return status["start_time"], status["start_time"] + status["duration"]


def test_a_sweep_trains_in_parallel_and_exports_fresh_phases(tmp_path: Path, emu: Any) -> None:
    st = job_stack(tmp_path, emu, sweeps={"s": sweep(GRID, waitFor="completed")})
    # The jobs are let go once the wait for all six started: a provider that waited for each job
    # before submitting the next would never get there.
    up = up_advancing(st, emu, FINISH, log=tmp_path / "up.log", once="waiting for 6 training jobs")
    jobs = assert_converged(emu, st, {n for n, _ in point_names("s", GRID)})
    assert all(phase_of(j) == "Completed" for j in jobs)
    intervals = [_interval(j) for j in jobs]
    # Every job was running while every other was: the latest start precedes the earliest end.
    assert max(s for s, _ in intervals) < min(e for _, e in intervals), intervals
    # One awaiting resource, one wait for all six jobs, and the exported phases come from it.
    awaits = [r for r in st.resources() if r["type"].endswith(":JobsAwait")]
    assert len(awaits) == 1
    assert "waiting for 6 training jobs" in output_of(up)
    exported = st.outputs()["jobs"]
    assert {v["phase"] for v in exported.values()} == {"Completed"}, exported
    # Each phase change is its own line: never two job lines merged into one.
    for line in output_of(up).splitlines():
        assert line.count(": Running -> Completed") <= 1, line


def test_second_up_makes_no_call_and_waits_for_nothing(tmp_path: Path, emu: Any) -> None:
    st = job_stack(tmp_path, emu, jobs={"a": job(waitFor="completed", name="reup-a"),
                                        "b": job(waitFor="running", name="reup-b")})
    up_advancing(st, emu, FINISH, log=tmp_path / "up.log")
    before = emu.counters()["total"]
    st.preview("--expect-no-changes")
    assert emu.counters()["total"] == before, "preview made API calls"
    again = st.up()
    assert emu.counters()["total"] == before, f"an unchanged up made API calls:\n{output_of(again)}"
    assert "waiting for" not in output_of(again)


def test_a_replaced_job_is_waited_for_alone(tmp_path: Path, emu: Any) -> None:
    jobs = {"a": job(waitFor="completed", name="alone-a"), "b": job(waitFor="completed", name="alone-b")}
    st = job_stack(tmp_path, emu, jobs=jobs)
    up_advancing(st, emu, FINISH, log=tmp_path / "up1.log")
    # b keeps its explicit name: its Completed run must go first, which deleteBeforeReplace accepts
    update_config(st, {"modelarts-jobs:jobs": {**jobs, "b": job(waitFor="completed", name="alone-b",
                                                                    parameters={"lr": 0.02},
                                                                    deleteBeforeReplace=True)}})
    up = up_advancing(st, emu, FINISH, log=tmp_path / "up2.log", once="waiting for 1 training job")
    text = output_of(up)
    assert "waiting for 1 training job: alone-b (completed)" in text, text
    assert "alone-a:" not in text.split("waiting for 1 training job", 1)[1]
    exported = st.outputs()["jobs"]
    assert exported["a"]["phase"] == exported["b"]["phase"] == "Completed"


def test_one_failing_job_among_many_fails_the_up_naming_it(tmp_path: Path, emu: Any) -> None:
    fail = {"emulator/outcome": "fail", "emulator/exit-code": "5"}
    jobs = {f"ok{i}": job(waitFor="completed", name=f"many-ok{i}") for i in range(4)}
    jobs["bad"] = job(waitFor="completed", name="many-bad", annotations=fail)
    st = job_stack(tmp_path, emu, jobs=jobs)
    up = up_advancing(st, emu, FINISH, log=tmp_path / "up.log", once="waiting for 5 training jobs",
                      check=False)
    text = output_of(up)
    assert up.returncode != 0
    assert "1 of 5 awaited training jobs did not reach their target" in text, text
    assert "many-bad" in text and "is Failed" in text and "exit code 5" in text, text
    live = {name_of(j): phase_of(j) for j in emu.jobs()}
    assert live == {**{f"many-ok{i}": "Completed" for i in range(4)}, "many-bad": "Failed"}
    # Every job is tracked by the state: nothing runs or exists that the state does not know.
    assert_converged(emu, st, set(live))
    # The next up waits again and fails again: a failed job is never reported as done.
    assert st.up(check=False).returncode != 0


def test_a_job_past_its_deadline_is_terminated_and_named(tmp_path: Path, emu: Any) -> None:
    slow = {"emulator/outcome": "hang"}  # never completes, whatever the clock says
    st = job_stack(tmp_path, emu, jobs={"slow": job(waitFor="completed", name="deadline-slow", annotations=slow,
                                                    waitTimeoutSeconds=2),
                                        "quick": job(waitFor="completed", name="deadline-quick")})
    # "quick" is let go once "slow" was terminated: it is still being waited for then.
    up = up_advancing(st, emu, FINISH, log=tmp_path / "up.log", once="deadline-slow: timed out, terminated",
                      check=False)
    text = output_of(up)
    assert up.returncode != 0
    assert "deadline-slow" in text and "timed out after 2s waiting for completed" in text, text
    assert "it was terminated" in text, text
    live = {name_of(j): phase_of(j) for j in emu.jobs()}
    assert live["deadline-slow"] in ("Terminating", "Terminated"), live
    assert live["deadline-quick"] == "Completed", live


def _pids_running(tree: dict[int, bytes], marker: bytes) -> dict[int, bytes]:
    """The processes of `tree` whose command line holds `marker`."""
    return {pid: cmd for pid, cmd in tree.items() if marker in cmd}


def _alive(pid: int, cmd: bytes) -> bool:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read() == cmd
    except OSError:
        return False


def test_sigkill_mid_wait_then_up_converges_and_no_provider_or_program_outlives_it(tmp_path: Path, emu: Any) -> None:
    jobs = {f"k{i}": job(waitFor="completed", name=f"kill-{i}") for i in range(3)}  # held: the wait goes on
    st = job_stack(tmp_path, emu, jobs=jobs)
    bg = up_in_background(st, log=tmp_path / "up1.log")
    wait_until(lambda: "waiting for 3 training jobs" in bg.output, 90, what="the wait to start")
    tree = bg.tree()
    # The dynamic provider, and the stack program (the language host's exec script running it).
    providers = _pids_running(tree, b"pulumi.dynamic")
    programs = _pids_running(tree, b"pulumi-language-python-exec")
    assert providers, "no provider process found"
    assert programs, "no stack program process found"
    bg.signal_group(signal.SIGKILL)
    assert bg.wait(30) == -signal.SIGKILL
    try:
        # The provider and the stack program notice that their engine is gone and exit by themselves.
        wait_until(lambda: not any(_alive(p, c) for p, c in providers.items()), 60,
                   what="the orphaned provider to exit")
        wait_until(lambda: not any(_alive(p, c) for p, c in programs.items()), 60,
                   what="the orphaned stack program to exit")
    finally:
        reap({**providers, **programs})
    st.run("cancel", "--yes")
    up = up_advancing(st, emu, FINISH, log=tmp_path / "up2.log", once="waiting for 3 training jobs")
    assert_converged(emu, st, {f"kill-{i}" for i in range(3)})
    assert emu.counters()["create"] == 3, "a job was created twice"
    assert {phase_of(j) for j in emu.jobs()} == {"Completed"}
    assert "waiting for 3 training jobs" in output_of(up)


def test_exported_phases_are_fresh_after_refresh_run_program(tmp_path: Path, emu: Any) -> None:
    st = job_stack(tmp_path, emu, jobs={"a": job(name="fresh-a", waitFor="created"),
                                        "n": job(name="fresh-n", waitFor="none")})
    st.up()
    before = st.outputs()["jobs"]
    assert before["a"]["phase"] != "Completed" and before["n"]["phase"] != "Completed", before
    emu.advance(FINISH)
    assert {phase_of(j) for j in emu.jobs()} == {"Completed"}
    st.run("refresh", "--yes", "--skip-preview", "--run-program")
    after = st.outputs()["jobs"]
    assert after["a"]["phase"] == after["n"]["phase"] == "Completed", after
    # and the refresh left nothing to do
    st.preview("--expect-no-changes")

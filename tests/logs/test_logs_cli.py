"""`python -m modelarts_provider logs` against real stacks (Pulumi CLI + emulator over HTTP), and its parts."""

from __future__ import annotations

import io
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from modelarts_provider.client.models import TaskLogPreview
from modelarts_provider.cli.logs import LogFollower
from modelarts_provider.cli.stack_reader import JobRef, LogsError, find_job, successor
from modelarts_provider.wait_engine import FakeClock
from testkit.fake_pulumi import FakePulumi
from testkit.harness import REPO_ROOT, Stack
from tests.e2e.test_training_jobs import job, make_stack

from .conftest import SECRET_ENV_VALUE, started

pytestmark = pytest.mark.timeout(300)


def logs(st: Stack, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "modelarts_provider", "logs", "--stack", st.name, "--cwd", str(st.workdir),
           "--interval", "0.3", *args]
    return subprocess.run(cmd, cwd=REPO_ROOT, env=st.env, text=True, capture_output=True, timeout=timeout)


def phase_of(emu: Any, name: str) -> str:
    return next(j["status"]["phase"] for j in emu.jobs() if j["metadata"]["name"] == name)


def wait_for(emu: Any, name: str, phases: set[str], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while phase_of(emu, name) not in phases:
        assert time.monotonic() < deadline, f"{name} still {phase_of(emu, name)}"
        time.sleep(0.1)


def assert_no_secrets(emu: Any, *procs: subprocess.CompletedProcess[str]) -> None:
    blob = "".join(p.stdout + p.stderr for p in procs)
    for secret in (emu.secret_key, SECRET_ENV_VALUE):
        assert secret not in blob


@pytest.mark.engine
def test_running_then_finished_then_followed(tmp_path: Path, emu: Any) -> None:
    env = {"HW_SECRET_KEY": SECRET_ENV_VALUE, "NCCL_DEBUG": "INFO"}
    st = make_stack(tmp_path, emu, {
        "slow": job(name="slow-job", waitFor="none", environments=env, parameters={"epochs": 4},
                    annotations={"emulator/run-seconds": "600"}),  # Running until the clock moves
        "quick": job(name="quick-job", waitFor="none", parameters={"epochs": 2},
                     annotations={"emulator/run-seconds": "3", "emulator/outcome": "fail",
                                  "emulator/exit-code": "5"}),
    })
    st.up()
    started(emu)  # quick-job then runs its 3 s in real time, while it is followed
    wait_for(emu, "slow-job", {"Running"})

    running = logs(st, "slow")  # by job key, while it runs: the log so far
    assert running.returncode == 0, running.stderr
    assert "training job slow-job" in running.stdout and "env NCCL_DEBUG=INFO" in running.stdout
    assert "env HW_SECRET_KEY=******" in running.stdout and "exited with code" not in running.stdout
    assert running.stderr == ""

    followed = logs(st, "quick-job", "--follow")  # by job name; ends by itself when the job does
    assert followed.returncode == 0, followed.stderr
    out = followed.stdout.splitlines()
    assert out[-1].endswith("ERROR exit code 5: Training process of worker-0 exited with code 5.")
    assert len(out) == len(set(out))  # each line once, though the log was fetched many times
    assert "epoch 1/2" in followed.stdout
    assert followed.stderr.splitlines()[-1] == "quick (quick-job): job ended Failed"

    emu.advance(600)
    wait_for(emu, "slow-job", {"Completed"})
    done = logs(st, "slow", "--task", "worker-0")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(running.stdout)  # the same log, grown
    assert done.stdout.splitlines()[-1].endswith("task worker-0 exited with code 0")
    assert "epoch 4/4" in done.stdout

    missing = logs(st, "nope")
    assert missing.returncode == 1 and missing.stdout == ""
    assert missing.stderr.strip() == "logs: no job 'nope' in stack test (its jobs: quick, slow)"
    bad_task = logs(st, "slow", "--task", "worker-3")
    assert bad_task.returncode == 1 and bad_task.stderr.count("\n") == 1 and "ModelArts.2788" in bad_task.stderr
    assert_no_secrets(emu, running, followed, done, missing, bad_task)


@pytest.mark.engine
def test_follow_waits_through_pending_with_a_note(tmp_path: Path) -> None:
    from modelarts_emulator.testing import running_emulator

    # Creating and Pending each last until the clock moves: the follower sees both, however slow the
    # machine; the run (1 s) then ends by itself.
    with running_emulator(tmp_path / "slow-emu", phase_seconds=600, run_seconds=1) as emu:
        st = make_stack(tmp_path, emu, {"train": job(waitFor="none", parameters={"epochs": 3})})
        st.up()
        name = st.outputs()["jobs"]["train"]["name"]
        followed = _follow_stepping(st, emu, tmp_path / "follow.err", {
            "worker-0: job is Creating, waiting for the log...": 600,
            "worker-0: job is Pending, waiting for the log...": 600})
    assert followed.returncode == 0, followed.stderr
    notes = followed.stderr.splitlines()
    waiting = [n for n in notes if n.endswith(", waiting for the log...")]
    assert waiting == ["worker-0: job is Creating, waiting for the log...",
                       "worker-0: job is Pending, waiting for the log..."]  # one note per phase, not per poll
    assert notes[-1] == f"train ({name}): job ended Completed"
    lines = followed.stdout.splitlines()
    assert lines[-1].endswith("exited with code 0") and "epoch 3/3" in followed.stdout
    assert len(lines) == len(set(lines))  # every line once
    assert_no_secrets(emu, followed)


def _follow_stepping(st: Stack, emu: Any, err: Path, steps: dict[str, float]) -> subprocess.CompletedProcess[str]:
    """`logs JOB -f` in the background; each time its stderr shows a note of `steps`, the emulator's
    clock moves that many seconds forward (the next phase)."""
    cmd = [sys.executable, "-m", "modelarts_provider", "logs", "--stack", st.name, "--cwd", str(st.workdir),
           "--interval", "0.3", "train", "-f"]
    with open(err, "w") as err_file:
        proc = subprocess.Popen(cmd, cwd=REPO_ROOT, env=st.env, text=True, stdout=subprocess.PIPE, stderr=err_file)
        try:
            for note, seconds in steps.items():
                deadline = time.monotonic() + 120
                while note not in err.read_text() and proc.poll() is None:
                    assert time.monotonic() < deadline, f"no {note!r}:\n{err.read_text()}"
                    time.sleep(0.1)
                emu.advance(seconds)
            out, _ = proc.communicate(timeout=120)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err.read_text())


# --- parts ---------------------------------------------------------------------------------------------


def test_find_job_in_outputs_then_state() -> None:
    outputs = {"jobs": {"a": {"id": "id-a", "name": "job-a", "phase": "Running", "outputPath": "obs://b/"}}}
    export = {"deployment": {"resources": [
        {"urn": "urn:pulumi:s::p::pulumi-python:dynamic/modelarts:TrainingJob::b",
         "type": "pulumi-python:dynamic/modelarts:TrainingJob", "outputs": {"job_id": "id-b", "job_name": "job-b"}},
        {"urn": "urn:pulumi:s::p::pulumi-python:dynamic:Resource::old", "type": "pulumi-python:dynamic:Resource",
         "outputs": {"job_id": "id-old", "job_name": "job-old"}},  # an older state's type
        {"urn": "urn:pulumi:s::p::pulumi-python:dynamic/modelarts:JobsAwait::await",
         "type": "pulumi-python:dynamic/modelarts:JobsAwait", "outputs": {"phases": {}}},
        {"urn": "urn:pulumi:s::p::random:index/randomString:RandomString::x", "type": "random:index/randomString:RandomString",
         "outputs": {"job_id": "not-a-job"}},
    ]}}
    p: Any = FakePulumi(outputs, export, stack="s")
    assert find_job(p, "a") == JobRef("id-a", "a (job-a)", "a") == find_job(p, "job-a")
    assert find_job(p, "b") == JobRef("id-b", "b (job-b)", "b") == find_job(p, "job-b")
    assert find_job(p, "old") == JobRef("id-old", "old (job-old)", "old")
    with pytest.raises(LogsError, match=r"no job 'c' in stack s \(its jobs: a, b, old\)"):
        find_job(p, "c")
    assert find_job(FakePulumi({}, export, stack="s"), "b").id == "id-b"  # no exports at all (a failed first up)


def _state(job_id: str, name: str) -> Any:
    return {"deployment": {"resources": [
        {"urn": "urn:pulumi:s::p::pulumi-python:dynamic/modelarts:TrainingJob::a",
         "type": "pulumi-python:dynamic/modelarts:TrainingJob", "outputs": {"job_id": job_id, "job_name": name}}]}}


class ReplacingPulumi(FakePulumi):
    """A stack whose state points the key at the replacing job from the `export` call number `after` on."""

    def __init__(self, after: int) -> None:
        super().__init__({}, _state("id-old", "a-old"), stack="s")
        self.after, self.exports = after, 0

    def json(self, *args: str) -> Any:
        if args[1] == "export":
            self.exports += 1
            return _state("id-new", "a-new") if self.exports >= self.after else _state("id-old", "a-old")
        return super().json(*args)


def test_follow_finds_the_job_replacing_the_followed_one() -> None:
    # delete-first replacement: the key points at the new job only after the old one is gone
    old = JobRef("id-old", "a (a-old)", "a")
    clock = FakeClock()
    p: Any = ReplacingPulumi(after=3)
    assert successor(p, old, 120, 2.0, clock) == JobRef("id-new", "a (a-new)", "a")
    assert clock.sleeps == [2.0, 2.0] and p.exports == 3
    # a job simply deleted (destroy): nothing replaces it within the wait
    clock, gone = FakeClock(), ReplacingPulumi(after=10**6)
    assert successor(gone, old, 10, 2.0, clock) is None
    assert clock.t == 10 and gone.exports == 6  # a look at 0, 2, ... and the last at the deadline


def preview(text: str, full: int | None = None) -> TaskLogPreview:
    return TaskLogPreview(content=text, current_size=len(text.encode()),
                          full_size=len(text.encode()) if full is None else full)


def test_follower_prints_each_line_once() -> None:
    out, notes = io.StringIO(), []
    f = LogFollower(["worker-0"], ["s3cr3t-value"], out, notes.append)
    f.feed("worker-0", preview("a\nb"), final=False)  # "b" is not finished yet
    f.feed("worker-0", preview("a\nbc\nd\n"), final=False)
    f.feed("worker-0", preview("a\nbc\nd\nKEY=s3cr3t-value tail s3cr3t-value"), final=True)
    assert out.getvalue() == "a\nbc\nd\nKEY=****** tail ******\n" and notes == []

    out, notes = io.StringIO(), []
    f = LogFollower(["worker-0", "worker-1"], [], out, notes.append)
    f.feed("worker-1", preview("x\ny\n"), final=False)
    f.feed("worker-1", preview("z\n", full=10), final=False)  # the preview holds only the newest bytes
    assert out.getvalue() == "[worker-1] x\n[worker-1] y\n[worker-1] z\n"
    assert notes == ["worker-1: 4 bytes of log not shown (older than the preview)"]


def test_during_a_replacement_the_key_points_at_the_new_run_in_the_state() -> None:
    """Issue 41: `logs --follow` reads the state first, where a create-first replacement has recorded the new
    run beside the old one (marked for deletion); the outputs name the old run until the `up` ends."""
    from modelarts_provider.cli.stack_reader import state_job

    typ = "pulumi-python:dynamic/modelarts:TrainingJob"
    urn = f"urn:pulumi:s::p::{typ}::a"
    export = {"deployment": {"resources": [
        {"urn": urn, "type": typ, "outputs": {"job_id": "id-new", "job_name": "a-new"}},
        {"urn": urn, "type": typ, "delete": True, "outputs": {"job_id": "id-old", "job_name": "a-old"}}]}}
    export["deployment"]["resources"].reverse()  # whichever order the engine writes them in
    outputs = {"jobs": {"a": {"id": "id-old", "name": "a-old"}}}
    p: Any = FakePulumi(outputs, export, stack="s")
    assert state_job(p, "a") == JobRef("id-new", "a (a-new)", "a")
    assert find_job(p, "a").id == "id-old"  # the outputs: what a plain `logs` (no --follow) reads


def test_run_n_picks_the_nth_recorded_run() -> None:
    import argparse

    from modelarts_provider.cli.logs import _ref

    runs = {"runs": {"a": [{"jobId": "id-1", "name": "a-1"}, {"jobId": "id-2", "name": "a-2"}]}}
    p: Any = FakePulumi(runs, {"deployment": {}}, stack="s")
    args = argparse.Namespace(job="a", run=1, follow=False)
    assert _ref(args, p) == JobRef("id-1", "a run 1 (a-1)")
    with pytest.raises(LogsError, match=r"a has 2 recorded runs: --run takes 1 to 2"):
        _ref(argparse.Namespace(job="a", run=3, follow=False), p)


@pytest.mark.engine
def test_follow_during_a_replacement_follows_the_new_run(tmp_path: Path, emu: Any) -> None:
    """Issue 41: a Completed job is edited; while the `up` waits for its successor (held by the clock), the
    stack's outputs still name the old run, the state the new one: `logs --follow` follows the new run to its
    end, not the old one that has ended already."""
    from testkit.faults import up_advancing, up_in_background, wait_until
    from tests.e2e.test_training_jobs import stack_config

    from .conftest import FINISHED

    st = make_stack(tmp_path, emu, {"train": job(waitFor="completed", parameters={"epochs": 2, "lr": 0.1})})
    up_advancing(st, emu, FINISHED, log=tmp_path / "up1.log")
    old = st.outputs()["jobs"]["train"]["name"]
    st.write_config(stack_config({"train": job(waitFor="completed", parameters={"epochs": 2, "lr": 0.2})}))
    bg = up_in_background(st, log=tmp_path / "up2.log")
    try:
        wait_until(lambda: "waiting for" in bg.output or bg.proc.poll() is not None, 120, what="the wait")
        (new,) = [n for n in (j["metadata"]["name"] for j in emu.jobs()) if n != old]
        assert st.outputs()["jobs"]["train"]["name"] == old  # the outputs are written at the end of the up
        err = tmp_path / "follow.err"
        cmd = [sys.executable, "-m", "modelarts_provider", "logs", "--stack", st.name, "--cwd", str(st.workdir),
               "--interval", "0.3", "train", "-f"]
        with open(err, "w") as err_file:
            proc = subprocess.Popen(cmd, cwd=REPO_ROOT, env=st.env, text=True, stdout=subprocess.PIPE,
                                    stderr=err_file)
            wait_until(lambda: "waiting for the log" in err.read_text() or proc.poll() is not None, 120,
                       what="the follower to wait for the new run")
            emu.advance(FINISHED)
            out, _ = proc.communicate(timeout=120)
        assert bg.wait(180) == 0, bg.output
    finally:
        if bg.proc.poll() is None:
            bg.proc.kill()
    notes = err.read_text()
    assert proc.returncode == 0, notes
    assert notes.splitlines()[-1] == f"train ({new}): job ended Completed", notes
    assert f"training job {new} " in out and f"training job {old} " not in out, out
    assert "lr=0.2" in out and "epoch 2/2" in out

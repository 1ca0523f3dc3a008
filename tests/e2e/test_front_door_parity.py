"""One set of guarantees through both front doors: the Python program (dynamic resources) and a Pulumi YAML
program (the provider plugin), each under the real engine against the local ModelArts. Each scenario runs once
per door, with few engine commands; the rules themselves are unit tests (tests/provider/test_identity.py,
tests/plugin/test_plugin_provider.py).

- a killed `up` (SIGKILL after the first POST) and an edit: the next `up` leaves nothing of ours running
  untracked (the killed run's job of the same spec is taken over, the one of the old spec is ours by its token
  and deleted); a replacement then gets a new derived name; `destroy` leaves nothing running;
- two stacks of the same project and stack name on two backends: neither imports, stops nor deletes the other's
  job (the owner text is equal, the seed-derived tokens are not);
- secrets: a secret environment value never in plaintext (state, output, the failure report's log tail), and
  output paths built from a secret OBS URL secret in the state.
"""

from __future__ import annotations

import json
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from testkit.harness import Stack
from testkit.plugin_program import write_program, yaml_stack
from testkit.faults import (PROJECT, Background, job, job_stack, output_of, phase_of, reap, state_job_ids,
                              update_config, wait_until)

pytestmark = pytest.mark.engine

ALGORITHM_ID = "8d1b2f4c-5a6e-4f70-9b81-c2d3e4f5a6b7"  # in the emulator catalog
CPU = "modelarts.vm.cpu.2u"
ACTIVE = ("Creating", "Pending", "Running", "Terminating")
SLOW = [{"operation": "any", "kind": "latency", "latency_ms": 400, "times": 10000}]
OPENAI = "sk-live-Z8xC6vB4nM2qW0eR"  # under a name nothing would call secret: only its secretness tells
SECRET_MARK = "4dabf18193072939515e22adb298388d"  # how the state writes a secret value
DOORS = ("python", "yaml")


@pytest.fixture
def emu(tmp_path: Path, pulumi_engine: Path) -> Iterator[Any]:
    from modelarts_emulator.testing import running_emulator

    with running_emulator(tmp_path / "emulator", phase_seconds=0.2, run_seconds=600) as e:
        yield e


# --- one program, either door ------------------------------------------------------------------------


RETRIES = 2  # restarts after a failure: the argument both doors take, sent as the service's annotation
RETRY_ANNOTATION = "fault-tolerance/job-retry-num"


def _yaml_job(lr: float, **extra: Any) -> dict[str, Any]:
    return {"type": "modelarts:index:TrainingJob",
            "properties": {"algorithm": {"id": ALGORITHM_ID, "parameters": [{"name": "lr", "value": str(lr)}]},
                           "flavorId": CPU, "pollIntervalSeconds": 0.2, "deleteTimeoutSeconds": 120,
                           "retries": RETRIES, **extra}}


class Program:
    """Unnamed jobs (derived names) `key -> lr`, declared through one door; edited in place."""

    def __init__(self, door: str, base: Path, emu: Any, jobs: dict[str, float]) -> None:
        self.door = door
        if door == "python":
            self.stack = job_stack(base, emu, jobs={k: self._job(lr) for k, lr in jobs.items()})
        else:
            self.stack = yaml_stack(base, emu, {k: _yaml_job(lr) for k, lr in jobs.items()})

    @staticmethod
    def _job(lr: float) -> dict[str, Any]:
        return job(parameters={"lr": lr}, retries=RETRIES)

    def edit(self, jobs: dict[str, float]) -> None:
        if self.door == "python":
            update_config(self.stack, {f"{PROJECT}:jobs": {k: self._job(lr) for k, lr in jobs.items()}})
        else:
            write_program(self.stack.workdir, {k: _yaml_job(lr) for k, lr in jobs.items()})

    def job_ids(self) -> set[str]:
        if self.door == "python":
            return set(state_job_ids(self.stack).values())
        return {r["id"] for r in self.stack.resources() if r["type"] == "modelarts:index:TrainingJob"}


def active(emu: Any) -> dict[str, dict[str, Any]]:
    return {j["metadata"]["id"]: j for j in emu.jobs() if phase_of(j) in ACTIVE}


def _kill_after_first_create(st: Stack, emu: Any, log: Path) -> None:
    """`pulumi up`, slowed, SIGKILLed as a process group once the service received its first create; whatever
    of its tree is left (providers run in their own process groups) is ended after their own watchdogs had a
    chance, and the dead run's lock is removed as a user would (`pulumi cancel`)."""
    emu.set_faults(SLOW)
    bg = Background(st, "up", "--yes", "--skip-preview", log=log)
    try:
        wait_until(lambda: emu.counters()["create"] >= 1 or bg.proc.poll() is not None, 120,
                   what="the first create")
        tree = bg.tree()
        bg.signal_group(signal.SIGKILL)
        assert bg.wait(30) == -signal.SIGKILL, bg.output
        time.sleep(1.0)  # in flight: the POST the service was answering slowly
    finally:
        emu.clear_faults()
    reap(tree)
    st.run("cancel", "--yes")


# --- scenarios -------------------------------------------------------------------------------------


@pytest.mark.parametrize("door", DOORS)
def test_a_killed_up_then_an_edit_leaves_nothing_of_ours_untracked(tmp_path: Path, emu: Any, door: str) -> None:
    program = Program(door, tmp_path, emu, {"a": 0.1, "b": 0.2})
    _kill_after_first_create(program.stack, emu, tmp_path / "killed.log")
    killed = set(active(emu))
    assert killed, "the killed up created no job"
    program.edit({"a": 0.1, "b": 0.3})  # b's spec changes: a job the killed run made for b is an orphan now
    up = program.stack.up()
    live = active(emu)
    assert set(live) == program.job_ids() and len(live) == 2, (output_of(up), live.keys(), program.job_ids())
    assert sorted(p["value"] for j in live.values() for p in j["algorithm"]["parameters"] if p["name"] == "lr") \
        == ["0.1", "0.3"]
    assert emu.counters()["create"] <= 3, "a job of the same spec was created twice"
    # retries reach the service as its annotation through either door (the taken-over job's too)
    assert all(j["metadata"]["annotations"].get(RETRY_ANNOTATION) == str(RETRIES) for j in live.values())
    # A replacement: a's new spec gets a new derived name; the old job leaves with its record.
    names = {j["metadata"]["name"] for j in live.values()}
    program.edit({"a": 0.5, "b": 0.3})
    program.stack.up()
    replaced = active(emu)
    assert set(replaced) == program.job_ids() and len(replaced) == 2
    assert len({j["metadata"]["name"] for j in replaced.values()} - names) == 1
    program.stack.destroy()
    assert active(emu) == {}


@pytest.mark.parametrize("door", DOORS)
def test_two_stacks_of_one_name_on_two_backends_never_touch_each_others_job(tmp_path: Path, emu: Any,
                                                                           door: str) -> None:
    alice = Program(door, tmp_path / "alice", emu, {"a": 0.1})
    alice.stack.up()
    (alices,) = alice.job_ids()
    bob = Program(door, tmp_path / "bob", emu, {"a": 0.1})  # the same project, stack and resource names
    if door == "yaml":  # `pulumi import` exists for the plugin's resources only
        refused = bob.stack.run("import", "modelarts:index:TrainingJob", "a", alices, "--yes", check=False)
        assert refused.returncode != 0 and "is not this resource's to import" in output_of(refused), \
            output_of(refused)
    up = bob.stack.up()
    assert "taking over" not in output_of(up), output_of(up)
    (bobs,) = bob.job_ids()
    assert bobs != alices and set(active(emu)) == {alices, bobs}
    bob.stack.destroy()
    assert set(active(emu)) == {alices} and emu.counters()["terminate"] == 1  # Bob's own, nothing else


def _secret_program(door: str, base: Path, emu: Any) -> Stack:
    """A job that fails after printing its environment (the service's log shows `env NAME=value` lines), with
    a secret environment value and a secret output OBS URL."""
    failing = {"emulator/outcome": "fail", "emulator/run-seconds": "1", "emulator/exit-code": "3"}
    if door == "python":
        st = job_stack(base, emu, jobs={"a": job(waitFor="completed", annotations=failing,
                                                 environments={"PLAIN": "visible"})})
        st.run("config", "set", "--secret", "--path", f"{PROJECT}:jobs.a.environments.OPENAI", OPENAI)
        st.run("config", "set", "--secret", "--path", f"{PROJECT}:obs.main.bucket", "emulator-bucket")
        return st
    resources = {
        "a": _yaml_job(0.1, annotations=failing, algorithm={
            "id": ALGORITHM_ID, "environments": {"OPENAI": {"fn::secret": OPENAI}, "PLAIN": "visible"},
            "outputs": [{"name": "train_url", "obsUrl": {"fn::secret": "obs://emulator-bucket/out/"}}]}),
        "waited": {"type": "modelarts:index:JobsAwait", "properties": {"jobs": {
            "a": {"jobId": "${a.jobId}", "jobName": "${a.jobName}", "waitFor": "completed",
                  "pollSeconds": 0.2}}}},
    }
    return yaml_stack(base, emu, resources)


def _job_state(st: Stack) -> dict[str, Any]:
    (res,) = [r for r in st.export()["deployment"]["resources"] if r["type"].endswith(":TrainingJob")]
    return res


@pytest.mark.parametrize("door", DOORS)
def test_secrets_are_known_masked_and_stay_secret_with_what_is_built_from_them(tmp_path: Path, emu: Any,
                                                                              door: str) -> None:
    st = _secret_program(door, tmp_path, emu)
    up = st.up(check=False)
    out = output_of(up)
    assert up.returncode != 0 and "exit code 3" in out, out  # the job failed, as arranged
    assert "env OPENAI=******" in out and "env PLAIN=visible" in out, out  # the log tail, masked by value
    (live,) = emu.jobs()
    env = live["algorithm"].get("environments") or {}
    env = {k: v for m in env for k, v in m.items()} if isinstance(env, list) else dict(env)
    assert env["OPENAI"] == OPENAI  # the job did receive it
    path = _job_state(st)["outputs"]["output_path" if door == "python" else "outputPath"]
    assert isinstance(path, dict) and SECRET_MARK in path, path  # a secret, not the URL
    exported = st.export()
    everything = json.dumps(exported) + "".join(p.stdout + p.stderr for p in st.history)
    assert OPENAI not in everything
    if door == "yaml":  # the stack's owner seed: recorded with the provider, as a secret
        (provider,) = [r for r in exported["deployment"]["resources"] if r["type"] == "pulumi:providers:modelarts"]
        assert SECRET_MARK in provider["inputs"]["ownerSeed"], provider["inputs"]
    st.destroy()

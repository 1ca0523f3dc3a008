"""Issue 43 under the real engine: a run whose `up` was stopped during its wait (the first Ctrl-C: the JobsAwait never
finished, so no record has the run) and that the next `up` replaces (an edit) is in the run history, older than its
successor, though the engine deletes or drops it after the wait.

Both front doors: the stack program (its `runs` export) and a YAML program (the JobsAwait's `runs` output), once with
the JobsAwait on a provider of its own: another plugin process than the job's (issue 58: what the job's create tells the
wait travels in the service's data, the new job's annotation naming the runs it replaces).
(The history's rule case by case: tests/awaiting/test_history.py.)
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from testkit.faults import (PROJECT, job, job_stack, output_of, state_job_ids, up_advancing, up_in_background,
                            update_config, wait_until)
from testkit.harness import Stack
from testkit.plugin_program import write_program, yaml_stack

ALGORITHM_ID = "8d1b2f4c-5a6e-4f70-9b81-c2d3e4f5a6b7"  # in the emulator catalog


@pytest.fixture
def emu(tmp_path: Path, pulumi_engine: Path) -> Iterator[Any]:
    from modelarts_emulator.testing import running_emulator

    # Jobs run far longer than the test: a wait ends only when the test moves the emulated clock.
    with running_emulator(tmp_path / "emulator", phase_seconds=0.2, run_seconds=600) as e:
        yield e


def _python_config(st: Stack | None, tmp_path: Path, emu: Any, lr: float) -> Stack:
    jobs = {"m": job(waitFor="completed", parameters={"lr": lr})}
    if st is None:
        return job_stack(tmp_path, emu, jobs=jobs)
    update_config(st, {f"{PROJECT}:jobs": jobs})
    return st


def _yaml_resources(lr: str, emu: Any, split: bool) -> dict[str, Any]:
    resources: dict[str, Any] = {
        "m": {"type": "modelarts:index:TrainingJob", "properties": {
            "algorithm": {"id": ALGORITHM_ID, "parameters": [{"name": "lr", "value": lr}]},
            "flavorId": "modelarts.vm.cpu.2u", "pollIntervalSeconds": 0.2}},
        "waited": {"type": "modelarts:index:JobsAwait", "properties": {"jobs": {
            "m": {"jobId": "${m.jobId}", "jobName": "${m.jobName}", "waitFor": "completed", "pollSeconds": 0.2}}}}}
    if split:
        # The JobsAwait on a provider of its own: the engine serves it from another plugin process than the job's,
        # so nothing the job's create noted in its process can reach the wait (only the service's data can).
        resources["awaits"] = {"type": "pulumi:providers:modelarts", "properties": {
            "region": "cn-north-4", "projectId": emu.project_id, "endpoint": emu.url,
            "accessKey": emu.access_key, "secretKey": {"fn::secret": emu.secret_key}}}
        resources["waited"]["options"] = {"provider": "${awaits}"}
    return resources


def _yaml(split: bool) -> Any:
    def configure(st: Stack | None, tmp_path: Path, emu: Any, lr: float) -> Stack:
        if st is None:
            return yaml_stack(tmp_path, emu, _yaml_resources(str(lr), emu, split), {"runs": "${waited.runs}"})
        write_program(st.workdir, _yaml_resources(str(lr), emu, split), {"runs": "${waited.runs}"})
        return st
    return configure


DOORS = {"python": _python_config, "yaml": _yaml(False), "yaml-split-providers": _yaml(True)}


@pytest.mark.parametrize("door", sorted(DOORS))
def test_a_run_whose_up_was_stopped_during_its_wait_is_in_the_history_after_its_replacement(
        tmp_path: Path, emu: Any, door: str) -> None:
    configure = DOORS[door]
    st = configure(None, tmp_path, emu, 0.1)
    bg = up_in_background(st, log=tmp_path / "up1.log")
    try:
        wait_until(lambda: "waiting for" in bg.output or bg.proc.poll() is not None, 180, what="the wait")
        assert bg.proc.poll() is None, bg.output
        bg.signal(signal.SIGINT)
        assert bg.wait(120) != 0, bg.output
    finally:
        if bg.proc.poll() is None:
            bg.signal_group(signal.SIGKILL)
            bg.wait(30)
    assert "stopped waiting" in bg.output, bg.output
    (first,) = emu.jobs()
    assert "runs" not in st.outputs(), st.outputs()  # no wait finished: no record of it

    configure(st, tmp_path, emu, 0.2)  # an edit: the next up replaces the run
    done = up_advancing(st, emu, 3600, log=tmp_path / "up2.log")
    runs = st.outputs()["runs"]["m"]
    ids = [r.get("jobId", r.get("job_id")) for r in runs]
    second = next(j["metadata"]["id"] for j in emu.jobs() if j["metadata"]["id"] != first["metadata"]["id"])
    assert ids == [first["metadata"]["id"], second], (runs, output_of(done))
    assert (runs[0]["parameters"]["lr"], runs[1]["parameters"]["lr"]) == ("0.1", "0.2"), runs
    if door == "python":
        assert set(state_job_ids(st).values()) == {second}

"""Issue 43 under the real engine: the first Ctrl-C ends a `destroy` that waits for a job to stop at once, as it
ends an `up`'s job wait (tests/faults/test_slow_server.py). The local ModelArts keeps a terminated job Terminating
for 300 emulated seconds and the job polls every 30 s; after the SIGINT the destroy ends with one line naming the
job, which is left as it is (Terminating, in the service and in the state: the next destroy waits for it again).

Both front doors: the stack program (dynamic provider) and a YAML program (the provider plugin). The bound is one
only a wait that ignores the Cancel reaches (the stop alone takes 300 s); the measured figure is printed (`-s`).
(Each wait's own Cancel handling, case by case: tests/provider/test_cancel_waits.py.)
"""

from __future__ import annotations

import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from testkit.faults import (TRACEBACK_RE, Background, job, job_stack, phase_of, state_job_ids, wait_until)
from testkit.harness import Stack
from testkit.plugin_program import yaml_stack

STOP_S = 300  # Creating, Pending and Terminating each last this long (emulated)
HANG_BOUND_S = 90  # far below the stop's 300 s: only a wait that ignores the Cancel reaches it
ALGORITHM_ID = "8d1b2f4c-5a6e-4f70-9b81-c2d3e4f5a6b7"  # in the emulator catalog


@pytest.fixture
def emu(tmp_path: Path, pulumi_engine: Path) -> Iterator[Any]:
    from modelarts_emulator.testing import running_emulator

    with running_emulator(tmp_path / "emulator", phase_seconds=STOP_S, run_seconds=600) as e:
        yield e


def _python_stack(tmp_path: Path, emu: Any) -> Stack:
    return job_stack(tmp_path, emu, jobs={"slow": job(name="slow-stop", waitFor="none", pollIntervalSeconds=30,
                                                      deleteTimeoutSeconds=900)})


def _yaml_stack(tmp_path: Path, emu: Any) -> Stack:
    return yaml_stack(tmp_path, emu, {"slow": {"type": "modelarts:index:TrainingJob", "properties": {
        "name": "slow-stop", "algorithm": {"id": ALGORITHM_ID}, "flavorId": "modelarts.vm.cpu.2u",
        "pollIntervalSeconds": 30}}})


STACKS = {"python": _python_stack, "yaml": _yaml_stack}


@pytest.mark.parametrize("door", sorted(STACKS))
def test_ctrl_c_ends_a_destroy_waiting_for_a_job_to_stop(tmp_path: Path, emu: Any, door: str) -> None:
    st = STACKS[door](tmp_path, emu)
    st.up()
    (made,) = emu.jobs()
    bg = Background(st, "destroy", "--yes", "--skip-preview", log=tmp_path / "destroy.log")
    try:
        wait_until(lambda: phase_of(emu.jobs()[0]) == "Terminating" or bg.proc.poll() is not None, 180,
                   what="the destroy's terminate")
        assert bg.proc.poll() is None, bg.output
        sent = time.monotonic()
        bg.signal(signal.SIGINT)  # the CLI cancels and calls Cancel on every provider
        try:
            rc = bg.wait(HANG_BOUND_S)
        except Exception:
            raise AssertionError(f"the destroy was still running {HANG_BOUND_S} s after the Ctrl-C:\n{bg.output}") \
                from None
    finally:
        if bg.proc.poll() is None:
            bg.signal_group(signal.SIGKILL)
            bg.wait(30)
    out = bg.output
    print(f"[{door}] Ctrl-C during a job's stop: destroy ended {time.monotonic() - sent:.2f} s after the SIGINT")
    assert rc != 0, out
    assert "slow-stop" in out and "stopped waiting for it to stop (cancelled)" in out, out
    assert not TRACEBACK_RE.search(out), out
    # Left as it was: terminated once, not deleted, still recorded.
    assert [(j["metadata"]["id"], phase_of(j)) for j in emu.jobs()] == [(made["metadata"]["id"], "Terminating")]
    assert emu.counters()["terminate"] == 1 and emu.counters()["delete"] == 0
    if door == "python":
        assert set(state_job_ids(st)) == {"slow-stop"}
    else:
        assert [r for r in st.resources() if r["type"].endswith(":TrainingJob")], st.resources()

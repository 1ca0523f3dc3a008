"""Issue 43 finding 4 under the real engine: a proxy between the provider and the local ModelArts drips every
answer to a job's GET at 1 byte per 0.5 s (a job's answer: over 1,000 s), and the `up` waits for that job
(`waitFor: completed`, `waitTimeoutSeconds: 20`; the job runs 600 emulated seconds).

- Left alone, the `up` ends at the wait's deadline (plus the last look and the terminate), fails naming the job,
  and the job is terminated (cost safety, the rule of a wait past its deadline).
- After a Ctrl-C (SIGINT to the pulumi process) during the wait, the `up` ends at once; the job keeps running
  and stays in the state (the rule of a cancelled wait: the next `up` waits again).

Both front doors: the stack program (dynamic provider) and a YAML program (the provider plugin). Each test waits
for the `up` with a bound that only a wait that ignores its deadline or the Ctrl-C would reach (the drip alone
takes over 1,000 s), and prints the measured figures (`-s`) for the report; no duration is asserted beyond that.
"""

from __future__ import annotations

import re
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from testkit.drip_proxy import drip_proxy
from testkit.faults import (TRACEBACK_RE, Background, job, job_stack, phase_of, provider_config, state_job_ids,
                            up_in_background, wait_until)
from testkit.harness import Stack
from testkit.plugin_program import yaml_stack

JOB_GET = re.compile(r"^/v2/[^/]+/training-jobs/[^/]+$")
WAIT_S = 20
# Far below what the dripped answer takes (> 1,000 s), far above what a bounded wait takes: only a wait that
# ignores its deadline or the Ctrl-C hits it.
HANG_BOUND_S = WAIT_S + 90
ALGORITHM_ID = "8d1b2f4c-5a6e-4f70-9b81-c2d3e4f5a6b7"  # in the emulator catalog
CPU = "modelarts.vm.cpu.2u"


@pytest.fixture
def proxied(emu: Any) -> Iterator[tuple[Any, Any]]:
    with drip_proxy(emu.url, lambda method, path: method == "GET" and JOB_GET.match(path)) as proxy:
        yield emu, proxy


def _python_stack(tmp_path: Path, emu: Any, proxy: Any) -> Stack:
    plain, secrets = provider_config(emu)
    plain["modelarts:endpoint"] = proxy.url
    return job_stack(tmp_path, emu, jobs={"slow": job(name="slow-1", waitFor="completed", waitTimeoutSeconds=WAIT_S,
                                                      pollIntervalSeconds=1)},
                     plain=plain, secrets=secrets)


def _yaml_stack(tmp_path: Path, emu: Any, proxy: Any) -> Stack:
    resources = {
        "slow": {"type": "modelarts:index:TrainingJob",
                 "properties": {"name": "slow-1", "algorithm": {"id": ALGORITHM_ID}, "flavorId": CPU}},
        "waited": {"type": "modelarts:index:JobsAwait",
                   "properties": {"jobs": {"slow": {"jobId": "${slow.jobId}", "jobName": "${slow.jobName}",
                                                    "waitFor": "completed", "timeoutSeconds": WAIT_S,
                                                    "pollSeconds": 1}}}}}
    return yaml_stack(tmp_path, emu, resources, config={
        "modelarts:region": "cn-north-4", "modelarts:projectId": emu.project_id, "modelarts:endpoint": proxy.url,
        "modelarts:accessKey": emu.access_key})


STACKS = {"python": _python_stack, "yaml": _yaml_stack}


def _up_until_dripping(st: Stack, proxy: Any, log: Path) -> tuple[Background, float]:
    """An `up` in the background, once the wait's first poll is being dripped; (the up, when the wait began)."""
    bg = up_in_background(st, log=log)
    wait_until(lambda: proxy.dripping >= 1 or bg.proc.poll() is not None, 180, what="the wait's first poll")
    assert bg.proc.poll() is None, bg.output
    return bg, time.monotonic()


def _ended(bg: Background) -> tuple[int, float]:
    try:
        rc = bg.wait(HANG_BOUND_S)
    except Exception:
        bg.signal_group(signal.SIGKILL)
        bg.wait(30)
        raise AssertionError(f"the up was still running {HANG_BOUND_S} s on:\n{bg.output}") from None
    return rc, time.monotonic()


@pytest.mark.parametrize("door", sorted(STACKS))
def test_a_dripping_server_cannot_hold_the_wait_past_its_deadline(tmp_path: Path, proxied: Any, door: str) -> None:
    emu, proxy = proxied
    st = STACKS[door](tmp_path, emu, proxy)
    bg, began = _up_until_dripping(st, proxy, tmp_path / "up.log")
    rc, ended = _ended(bg)
    out = bg.output
    print(f"[{door}] dripped wait (waitTimeoutSeconds {WAIT_S}): up ended {ended - began:.1f} s after the "
          "wait's first poll")
    assert rc != 0, out
    assert "slow-1" in out and re.search(r"timed out|deadline|terminated", out), out
    assert not TRACEBACK_RE.search(out), out
    (live,) = emu.jobs()
    assert phase_of(live) in ("Terminating", "Terminated"), live  # past its deadline: terminated
    assert emu.counters()["terminate"] == 1


@pytest.mark.parametrize("door", sorted(STACKS))
def test_ctrl_c_ends_a_dripped_wait_at_once(tmp_path: Path, proxied: Any, door: str) -> None:
    emu, proxy = proxied
    st = STACKS[door](tmp_path, emu, proxy)
    bg, _ = _up_until_dripping(st, proxy, tmp_path / "up.log")
    sent = time.monotonic()
    bg.signal(signal.SIGINT)  # the CLI cancels and calls Cancel on every provider
    rc, ended = _ended(bg)
    out = bg.output
    print(f"[{door}] Ctrl-C during a dripped poll: up ended {ended - sent:.2f} s after the SIGINT")
    assert rc != 0, out
    assert "stopped waiting; 1 job keeps running: slow-1" in out, out
    assert not TRACEBACK_RE.search(out), out
    # A cancelled wait stops nothing: the job goes on to Running (it may still be Pending when the up ends, on a
    # loaded machine the emulated clock has not yet started it) and nothing was terminated.
    live = wait_until(lambda: next((j for j in emu.jobs() if phase_of(j) == "Running"), None), 60,
                      what=f"the job to run on after the Ctrl-C; it is {[phase_of(j) for j in emu.jobs()]}")
    assert len(emu.jobs()) == 1 and emu.counters()["terminate"] == 0, live
    if door == "python":
        assert set(state_job_ids(st)) == {"slow-1"}  # tracked: the next up waits again

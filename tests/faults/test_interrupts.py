"""Interruptions: the emulator restarted in the middle of an up, `pulumi up` interrupted by SIGINT and
by SIGKILL, and credentials that expire mid-run. After each, what a user would run next converges to
exactly the declared jobs (no duplicate, no orphan).

What a user must do after a SIGKILL'ed `pulumi up` (file backend), as this test runs it:
    pulumi cancel --yes     # removes the dead process's stack lock ("the stack is currently locked")
    pulumi up               # re-runs the pending creates; the provider takes over the jobs that the
                            # killed run had already started (found by name), creating no duplicate
"""

from __future__ import annotations

import signal
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from modelarts_provider.stack.sweep import point_names
from testkit.faults import (TRACEBACK_RE, assert_converged, converge, job, job_stack, killed_up, output_of, phase_of,
                              state_job_ids, sweep, up_advancing, up_in_background, wait_until)
from tests.faults.test_faults import no_duplicates

GRID = {"lr": [0.1, 0.2, 0.3]}
JOBS = {f"j{i}": job(name=f"intr-{i}") for i in range(3)}
SWEEPS = {"s": sweep(GRID)}
EXPECTED = {f"intr-{i}" for i in range(3)} | {n for n, _ in point_names("s", GRID)}
SLOW = [{"operation": "any", "kind": "latency", "latency_ms": 400, "times": 10000}]


def test_emulator_restarted_mid_up(tmp_path: Path, emu: Any) -> None:
    st = job_stack(tmp_path, emu, jobs=JOBS, sweeps=SWEEPS)
    emu.set_faults(SLOW)  # every call 400 ms: the restart lands while requests are in flight
    bg = up_in_background(st, log=tmp_path / "up1.log")
    wait_until(lambda: emu.counters()["create"] >= 2, 60, what="the first creates")
    emu.restart()  # same port and database; in-flight requests are cut; faults are gone after it
    rc = bg.wait(180)
    if rc != 0:
        assert not TRACEBACK_RE.search(bg.output), bg.output
        assert "error:" in bg.output
    no_duplicates(emu)
    converge(st, emu, EXPECTED)


def test_sigint_then_up_again(tmp_path: Path, emu: Any) -> None:
    # Ctrl-C in a terminal signals the whole foreground process group: engine, program, provider.
    st = job_stack(tmp_path, emu, jobs=JOBS, sweeps=SWEEPS)
    emu.set_faults(SLOW)
    bg = up_in_background(st, log=tmp_path / "up1.log")
    wait_until(lambda: emu.counters()["create"] >= 1, 60, what="the first create")
    bg.signal_group(signal.SIGINT)
    rc = bg.wait(180)
    if rc != 0:
        assert "canceled" in bg.output or "error:" in bg.output, bg.output
    assert not TRACEBACK_RE.search(bg.output), f"traceback after SIGINT:\n{bg.output}"
    no_duplicates(emu)
    converge(st, emu, EXPECTED)  # no manual repair needed after SIGINT: the engine finished its in-flight steps


def test_sigkill_then_cancel_and_up(tmp_path: Path, emu: Any) -> None:
    st = job_stack(tmp_path, emu, jobs=JOBS, sweeps=SWEEPS)
    with killed_up(st, emu, tmp_path / "up1.log", SLOW):  # its orphaned provider has exited by itself
        no_duplicates(emu)
        # A plain `pulumi up` is refused: the dead process still holds the stack lock.
        locked = st.up(check=False)
        assert locked.returncode != 0 and "pulumi cancel" in output_of(locked), output_of(locked)
        st.run("cancel", "--yes")
        converge(st, emu, EXPECTED)


# --- credentials that expire mid-run -------------------------------------------------------------


def _iam_stack(tmp_path: Path, emu: Any) -> Any:
    plain = {"modelarts:region": "cn-north-4", "modelarts:projectId": emu.project_id,
             "modelarts:endpoint": emu.url, "modelarts:iamEndpoint": emu.url,
             "modelarts:iamUser": emu.iam_user, "modelarts:iamDomain": emu.iam_domain}
    return job_stack(tmp_path, emu, jobs=JOBS, sweeps=SWEEPS, plain=plain,
                     secrets={"modelarts:iamPassword": emu.iam_password})


@pytest.fixture
def short_token_emu(tmp_path: Path, pulumi_engine: Path) -> Any:
    from modelarts_emulator.testing import running_emulator
    from testkit.faults import FAST_EMULATOR

    with running_emulator(tmp_path / "emulator", token_ttl_seconds=2, **FAST_EMULATOR) as e:
        yield e


def test_iam_token_expires_during_up(tmp_path: Path, short_token_emu: Any) -> None:
    # Tokens live 2 s; the up takes longer (1 s per call: a listing, two rounds of creates, the wait):
    # the client must renew as it goes.
    emu = short_token_emu
    st = _iam_stack(tmp_path, emu)
    emu.set_faults([{"operation": "any", "kind": "latency", "latency_ms": 1000, "times": 10000}])
    st.up()
    assert emu.counters()["iam_token"] >= 2, emu.counters()
    assert_converged(emu, st, EXPECTED)
    converge(st, emu, EXPECTED)


def test_iam_token_revoked_mid_up(tmp_path: Path, emu: Any) -> None:
    # The provider holds a valid-looking cached token that the service no longer accepts (revoked or
    # expired early): every call answers 401 until the client fetches a new token.
    st = _iam_stack(tmp_path, emu)
    emu.set_faults(SLOW)
    bg = up_in_background(st, log=tmp_path / "up1.log")
    wait_until(lambda: emu.counters()["create"] >= 1, 60, what="the first create")
    emu.stop()
    with sqlite3.connect(emu.db) as db:
        db.execute("DELETE FROM tokens")
    emu.start()
    rc = bg.wait(180)
    out = bg.output
    assert not TRACEBACK_RE.search(out), out
    assert rc == 0 or "error:" in out, out
    no_duplicates(emu)
    assert emu.counters()["iam_token"] >= 1, "no new token was fetched after the revocation"
    converge(st, emu, EXPECTED)


def test_temporary_credentials_expire_mid_up(tmp_path: Path, pulumi_engine: Path) -> None:
    # AK/SK + security token (STS): the token expires mid-run (the service now wants a new one). The
    # up fails with a clear 401 naming no secret; the user sets the new token and runs up again.
    from modelarts_emulator.testing import running_emulator
    from testkit.faults import FAST_EMULATOR, provider_config

    # The first up's jobs stay Creating until the clock moves: it is still waiting for them when the
    # token changes, however slow the machine (jobs created after the restart get the short phases).
    held = {**FAST_EMULATOR, "phase_seconds": 600}
    with running_emulator(tmp_path / "emulator", security_token="sts-token-one-0001", **held) as emu:
        plain, secrets = provider_config(emu)
        secrets["modelarts:securityToken"] = "sts-token-one-0001"
        st = job_stack(tmp_path, emu, jobs=JOBS, sweeps=SWEEPS, plain=plain, secrets=secrets)
        emu.set_faults(SLOW)
        bg = up_in_background(st, log=tmp_path / "up1.log")
        wait_until(lambda: emu.counters()["create"] >= 1, 60, what="the first create")
        emu.flags["security_token"] = emu.security_token = "sts-token-two-0002"
        emu.flags["phase_seconds"] = FAST_EMULATOR["phase_seconds"]
        emu.restart()
        rc = bg.wait(180)
        out = bg.output
        assert rc != 0, f"up succeeded with an expired security token:\n{out}"
        assert not TRACEBACK_RE.search(out), out
        assert "401" in out or "APIGW.0301" in out or "expired" in out, out
        for secret in ("sts-token-one-0001", "sts-token-two-0002", emu.secret_key):
            assert secret not in out, "a secret leaked into the output of the failed up"
        no_duplicates(emu)
        emu.advance(601)  # the first up's jobs leave Creating
        st.set_config("modelarts:securityToken", "sts-token-two-0002", secret=True)
        converge(st, emu, EXPECTED)


def test_ctrl_c_during_the_wait_stops_waiting_and_the_next_up_resumes(tmp_path: Path, emu: Any) -> None:
    # Issue 21: the jobs run for 600 emulated seconds and the clock is held, so a wait that ignored the
    # interrupt would never end (bg.wait would time out): the up ends only because the wait stopped.
    st = job_stack(tmp_path, emu, jobs={f"c{i}": job(name=f"ctrlc-{i}", waitFor="completed") for i in range(2)})
    bg = up_in_background(st, log=tmp_path / "up1.log")
    wait_until(lambda: "waiting for 2 training jobs" in bg.output, 120, what="the wait to start")
    bg.signal(signal.SIGINT)  # the CLI: it cancels, and calls Cancel on every provider
    assert bg.wait(120) != 0
    assert "stopped waiting; 2 jobs keep running: ctrlc-0, ctrlc-1" in bg.output, bg.output
    assert not TRACEBACK_RE.search(bg.output), bg.output
    assert emu.counters()["terminate"] == 0 and {phase_of(j) for j in emu.jobs()} <= {"Pending", "Running"}
    assert set(state_job_ids(st)) == {"ctrlc-0", "ctrlc-1"}  # tracked
    # The next up creates nothing and waits again, until the jobs complete.
    up = up_advancing(st, emu, 3600, log=tmp_path / "up2.log")
    assert emu.counters()["create"] == 2 and "waiting for 2 training jobs" in output_of(up)
    assert {phase_of(j) for j in emu.jobs()} == {"Completed"}


# --- the service answers without annotations (issue 42) ------------------------------------------


def test_sigkill_with_annotations_dropped_converges_and_destroy_removes_only_ours(tmp_path: Path,
                                                                                  pulumi_engine: Path) -> None:
    # Terraform's docs: metadata.annotations is missing from the service's responses. The owner mark is then read
    # from the jobs' tags; a point the killed run POSTed but had not tagged yet proves itself by its derived name.
    from modelarts_emulator.testing import running_emulator
    from testkit.faults import FAST_EMULATOR
    from tests.emulator.helpers import Api, minimal_job

    with running_emulator(tmp_path / "emulator", drop_annotations=True, **FAST_EMULATOR) as emu:
        st = job_stack(tmp_path, emu, sweeps=SWEEPS)
        points = {n for n, _ in point_names("s", GRID)}
        with killed_up(st, emu, tmp_path / "up1.log", SLOW):
            no_duplicates(emu)
            st.run("cancel", "--yes")
            converge(st, emu, points)
        ours = set(state_job_ids(st).values())
        tags = {job_id: Api(emu).call("GET", f"{Api(emu).base}/modelarts-training-job/{job_id}/tags").json()["tags"]
                for job_id in ours}
        assert all(any(t["key"] == "modelarts-pulumi.token" for t in ts) for ts in tags.values()), tags

        foreign = Api(emu).create(minimal_job("someone-elses")).json()["metadata"]["id"]  # no mark, not ours
        st.destroy()
        left = emu.jobs()
        assert [j["metadata"]["id"] for j in left] == [foreign] and phase_of(left[0]) in ("Creating", "Pending",
                                                                                        "Running")
        assert emu.counters()["delete"] == len(ours)

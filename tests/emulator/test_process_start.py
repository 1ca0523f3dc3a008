"""Forked local servers behave as subprocesses do: same output files, exit codes, stop and restart."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest
import requests

from local_cloud import process_start
from local_cloud.process_start import ForkedProcess, start_process
from modelarts_emulator.testing import RunningEmulator
from obs_emulator.testing import RunningObs


@pytest.fixture(params=["forked", "subprocess"])
def start_mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("MODELARTS_TEST_FORK_SERVER", "1" if request.param == "forked" else "0")
    return request.param


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(process_start.REPO_ROOT), "MARKER": "from-the-caller"}


def test_a_bad_command_line_exits_2_with_argparse_on_stderr(tmp_path: Path, start_mode: str) -> None:
    proc = start_process("modelarts_emulator", ["--no-such-flag"], cwd=tmp_path, env=_env(),
                         stdout=tmp_path / "out", stderr=tmp_path / "err")
    assert (start_mode == "forked") == isinstance(proc, ForkedProcess)
    assert proc.wait(30) == 2
    assert "unrecognized arguments: --no-such-flag" in (tmp_path / "err").read_text()
    assert (tmp_path / "out").read_text() == ""


def test_help_goes_to_stdout_with_exit_0(tmp_path: Path, start_mode: str) -> None:
    proc = start_process("obs_emulator", ["--help"], cwd=tmp_path, env=_env(),
                         stdout=tmp_path / "out", stderr=tmp_path / "err")
    assert proc.wait(30) == 0
    assert "--state-dir" in (tmp_path / "out").read_text()


def test_servers_start_serve_restart_on_the_same_port_and_stop(tmp_path: Path, start_mode: str) -> None:
    emu = RunningEmulator(tmp_path / "emu").start()
    obs = RunningObs(tmp_path / "obs").start()
    try:
        assert emu.counters()["total"] == 0
        assert requests.get(f"{obs.url}/_obs/counters", timeout=5).ok
        port = emu.port
        emu.restart()
        assert emu.port == port and emu.counters()["total"] == 0
        assert "listening on" in (tmp_path / "emu" / "emulator.log.out").read_text()
    finally:
        emu.stop()
        obs.stop()
    assert not emu.running and not obs.running
    with pytest.raises(requests.ConnectionError):
        requests.get(f"{emu.url}/_emulator/counters", timeout=5)


def test_a_killed_child_reports_the_signal(tmp_path: Path, start_mode: str) -> None:
    emu = RunningEmulator(tmp_path / "emu").start()
    proc = emu._proc
    assert proc is not None
    proc.kill()
    assert proc.wait(30) == -signal.SIGKILL
    emu.stop()  # stopping an ended server is a no-op


def test_a_reused_pid_is_not_taken_for_an_earlier_childs_exit(monkeypatch) -> None:
    """The fork server records each ended child's code by pid; the kernel reuses pids, so a new child under an
    ended child's pid must not read as already ended (it made a freshly started emulator 'exit with 0')."""
    from local_cloud import fork_server

    ended = {4242: 0, 7: 1}
    monkeypatch.setattr(fork_server.os, "fork", lambda: 4242)  # the parent's side of a fork that reused 4242
    assert fork_server._spawn({}, ended) == 4242
    assert 4242 not in ended and ended == {7: 1}

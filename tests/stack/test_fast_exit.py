"""The stack program's last `sys.exit` (the language host's executor's, once the loop is closed) ends the process at
once, after the exit handlers, with the same status; any other `sys.exit` is Python's own (stack/fast_exit.py)."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
from typing import Any

import pytest

from modelarts_provider.stack import fast_exit

EXECUTOR_FILE = f"/opt/pulumi/bin/{fast_exit.EXECUTOR}"


def _as_executor(code: str, namespace: dict[str, Any]) -> None:
    exec(compile(code, EXECUTOR_FILE, "exec"), namespace)  # a frame of the executor's file, as the engine runs it


RAN: list[str] = []


@pytest.fixture
def ended(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    monkeypatch.setattr(sys, "exit", sys.exit)  # restored after the test
    out: list[int] = []
    RAN.clear()
    # this test process's own exit handlers are never run here: a stand-in (a real process's below)
    fast_exit.install(end=out.append, run_handlers=lambda: RAN.append("handlers"), always=True)
    return out


def test_the_executors_last_exit_runs_the_exit_handlers_then_ends_with_its_status(ended: list[int]) -> None:
    with pytest.raises(SystemExit) as stopped:
        _as_executor("sys.exit(32)", {"sys": sys})
    assert ended == [32] and RAN == ["handlers"] and stopped.value.code == 32
    with pytest.raises(SystemExit):
        _as_executor("sys.exit(None)", {"sys": sys})
    assert ended == [32, 0]


def test_another_caller_or_a_running_loop_gets_pythons_own_exit(ended: list[int]) -> None:
    with pytest.raises(SystemExit) as stopped:
        sys.exit(3)  # this test's own frame: not the executor's
    assert stopped.value.code == 3 and ended == [] and RAN == []

    async def inside() -> None:  # the executor's sys.exit while the program runs (its loop is running)
        _as_executor("sys.exit(32)", {"sys": sys})

    loop = asyncio.new_event_loop()  # not asyncio.run: it would leave the thread without a current loop
    try:
        with pytest.raises(SystemExit) as stopped:
            loop.run_until_complete(inside())
    finally:
        loop.close()
    assert stopped.value.code == 32 and ended == []


def test_it_is_installed_only_where_the_language_host_runs_the_program_and_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "exit", sys.exit)
    python_exit = sys.exit
    fast_exit.install()  # a test's frames: not the executor's (the SDK's mocks run the program so)
    assert sys.exit is python_exit
    _as_executor("fast_exit.install()", {"fast_exit": fast_exit})  # the executor runs the program
    installed = sys.exit
    assert installed is not python_exit and getattr(installed, "fast_exit", False)
    _as_executor("fast_exit.install()", {"fast_exit": fast_exit})
    assert sys.exit is installed  # not wrapped twice


@pytest.mark.parametrize(("code", "status"), [(None, 0), (0, 0), (32, 32), ("a message", 1)])
def test_the_status_is_the_one_python_would_end_with(code: Any, status: int) -> None:
    assert fast_exit.exit_code(code) == status


def test_a_real_process_ends_with_the_status_and_its_handlers_output() -> None:
    program = textwrap.dedent(f"""
        import atexit, os, sys
        from modelarts_provider.stack import fast_exit
        fast_exit.install(always=True)
        atexit.register(lambda: print("handler ran", flush=True))
        import threading, time
        threading.Thread(target=lambda: (time.sleep(0.3), print("thread ended", end="", flush=True))).start()
        class TornDown:  # freed when the interpreter tears its modules down
            def __del__(self, write=os.write): write(1, b"torn down\\n")
        kept = TornDown()
        import gc; gc.unfreeze()  # the package froze what its import made (core/collector.py): teardown frees it again
        print("buffered", end="")
        exec(compile("sys.exit(7)", {EXECUTOR_FILE!r}, "exec"), {{"sys": sys}})
        print("never")
    """)
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60)
    assert done.returncode == 7, done.stderr
    # a thread not a daemon ended first, as in Python's exit; the handlers ran once, the buffer was flushed,
    # and no teardown followed
    assert done.stdout == "bufferedthread endedhandler ran\n", done.stdout
    python_own = subprocess.run([sys.executable, "-c", program.replace("fast_exit.install(always=True)", "")],
                                capture_output=True, text=True, timeout=60)
    assert (python_own.returncode, python_own.stdout) == (7, "bufferedthread endedhandler ran\ntorn down\n"), python_own

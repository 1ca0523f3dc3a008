"""The stack program's process ends as soon as its `up` is over, without tearing its interpreter down (issue 59).

Once the program's work is done, the language host's executor (`pulumi-language-python-exec`) closes its event loop,
flushes stdout and stderr and calls `sys.exit(code)`; the engine waits for the process to end before it finishes the
`up`. Python then runs its exit handlers and tears the interpreter down: every module cleared, every object freed, a
last collection. With a sweep's objects (96 jobs: their resources, Outputs and futures) that teardown took 0.25-0.35 s
against 0.03 s for one job, on the critical path of every `up` (docs/benchmarks.md, "Where a 96-job `up` goes").

So that one call, and only it, runs the exit handlers as Python would (tracing's flush among them), then ends the
process with the same code at once (`os._exit`). Nothing is left to tear down that anyone reads: the program's RPCs
are over, its streams flushed. Any other `sys.exit` (one inside the program, while its loop runs; another caller)
is Python's own.
"""

from __future__ import annotations

import asyncio
import atexit
import os
import sys
import threading
from collections.abc import Callable
from typing import Any, NoReturn

EXECUTOR = "pulumi-language-python-exec"  # the language host's script that runs the program


def _is_executor(frame: Any) -> bool:
    return frame is not None and os.path.basename(frame.f_code.co_filename) == EXECUTOR


def _from_executor(depth: int = 2) -> bool:
    """Whether the caller `depth` frames up is the executor's script itself."""
    try:
        return _is_executor(sys._getframe(depth))
    except ValueError:
        return False


def under_executor() -> bool:
    """Whether this process runs the program for the language host (some caller is the executor's script)."""
    frame = sys._getframe(1)
    while frame is not None:
        if _is_executor(frame):
            return True
        frame = frame.f_back  # type: ignore[assignment]
    return False


def _loop_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def _join_threads() -> None:
    shutdown = getattr(threading, "_shutdown", None)  # Python's own step (its thread-exit hooks, then the joins)
    if shutdown is not None:
        shutdown()
        return
    for thread in threading.enumerate():
        if thread is not threading.main_thread() and not thread.daemon:
            thread.join()


def exit_code(code: Any) -> int:
    """The status `sys.exit(code)` ends a process with (None: 0; an int: itself; anything else: printed, 1)."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def python_exit_steps() -> None:
    """What Python does at exit before its teardown: the threads that are not daemons joined (with the threading
    module's exit hooks), then the exit handlers (tracing's flush, the standard library's own)."""
    _join_threads()
    atexit._run_exitfuncs()


def install(end: Callable[[int], Any] = os._exit, run_handlers: Callable[[], Any] = python_exit_steps,
            always: bool = False) -> None:
    """Make the executor's last `sys.exit` end the process without the interpreter's teardown: only in a program
    the language host runs (not under the SDK's mocks, a test's), once. `end`, `run_handlers` and `always`: for tests
    (a test process's own exit handlers are not run)."""
    if getattr(sys.exit, "fast_exit", False) or not (always or under_executor()):
        return
    python_exit = sys.exit

    def fast_exit(code: Any = None) -> NoReturn:
        if not _from_executor() or _loop_running():
            python_exit(code)
        status = exit_code(code)
        run_handlers()  # python_exit_steps
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        end(status)
        raise SystemExit(status)  # only where `end` returned (a test's)

    fast_exit.fast_exit = True  # type: ignore[attr-defined]
    sys.exit = fast_exit

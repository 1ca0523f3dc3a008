"""A parent that has imported both local clouds once and forks a fresh server per start (tests only).

A test run starts a local ModelArts and a local OBS hundreds of times; each `python -m ...` start spends
most of its CPU importing (moto, werkzeug, pydantic models), the same work every time. This process
does that work once, then forks: each child is a new process with its own port, state, log and pid,
running exactly what `python -m <module> <args>` runs. Tests keep their own servers; only the start-up
imports are shared. `local_server.LocalServerProcess` uses it (``MODELARTS_TEST_FORK_SERVER=0``: plain
subprocesses).

Protocol: one JSON object per line on stdin, one reply per line on stdout.
  {"op": "spawn", "module", "args", "cwd", "env", "stdout", "stderr"} -> {"pid"}
  {"op": "poll", "pid"} -> {"returncode": int | null}   (reaps the child once it has ended)
End of input ends this process; children it started keep running until their owners stop them.
"""

from __future__ import annotations

import gc
import json
import os
import runpy
import signal
import sys
import threading
import traceback
from typing import Any, NoReturn

# What `python -m modelarts_emulator` / `python -m obs_emulator` import before their first request.
PRELOAD = (
    "modelarts_emulator.cli", "modelarts_emulator.server",
    "obs_emulator.cli", "obs_emulator.server",
    "moto.core", "moto.s3.models", "moto.utilities.utils", "moto.moto_server.werkzeug_app",
)


def _run_child(req: dict[str, Any]) -> NoReturn:
    """In the forked child: become `python -m module args` with the caller's cwd, env and files."""
    code = 1
    try:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        devnull = os.open(os.devnull, os.O_RDONLY)
        out = os.open(req["stdout"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        err = os.open(req["stderr"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        for fd, target in ((devnull, 0), (out, 1), (err, 2)):
            os.dup2(fd, target)
            os.close(fd)
        # unbuffered like PYTHONUNBUFFERED=1: the ready line must reach the file at once
        sys.stdin = open(0, "r", closefd=False)
        sys.stdout = open(1, "w", buffering=1, closefd=False)
        sys.stderr = open(2, "w", buffering=1, closefd=False)
        os.chdir(req["cwd"])
        os.environ.clear()
        os.environ.update(req["env"])
        sys.argv = [req["module"], *req["args"]]
        runpy.run_module(req["module"], run_name="__main__", alter_sys=True)
        code = 0
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        if not isinstance(e.code, (int, type(None))):
            print(e.code, file=sys.stderr)
    except BaseException:
        traceback.print_exc()
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def _spawn(req: dict[str, Any], ended: dict[int, int]) -> int:
    """Fork a child for `req`; its pid. The kernel reuses pids: an earlier child's recorded exit under this pid
    is not this child's (a long test run wraps pid_max, 32768 here; the stale code made a server that had just
    started look "exited with 0")."""
    pid = os.fork()
    if pid == 0:
        _run_child(req)
    ended.pop(pid, None)
    return pid


def _poll(pid: int, ended: dict[int, int]) -> int | None:
    if pid in ended:
        return ended[pid]
    try:
        done, status = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:  # not ours, or reaped already: report it as ended
        return ended.setdefault(pid, -1)
    if done == 0:
        return None
    ended[pid] = os.waitstatus_to_exitcode(status)
    return ended[pid]


def main() -> int:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the test run's Ctrl-C is for its owner, not for us
    for name in PRELOAD:
        __import__(name)
    # fork() copies only the calling thread: a preload that started threads would leave children broken
    if threading.active_count() != 1:
        print(json.dumps({"error": f"preload started {threading.active_count() - 1} threads"}), flush=True)
        return 1
    # What the preload built lives in every child unchanged: frozen, their collections never walk it (nor
    # write its pages, which children would otherwise each copy). The idiom gc.freeze's documentation gives.
    gc.freeze()
    print(json.dumps({"ready": os.getpid()}), flush=True)
    ended: dict[int, int] = {}
    for line in sys.stdin:
        req = json.loads(line)
        if req["op"] == "spawn":
            reply: dict[str, Any] = {"pid": _spawn(req, ended)}
        elif req["op"] == "poll":
            reply = {"returncode": _poll(int(req["pid"]), ended)}
        else:
            reply = {"error": f"unknown op {req['op']!r}"}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""How tests start a local server process: forked from the fork server, or as a plain subprocess.

``start_process`` is `python -m <module> <args>` with the given cwd, environment and output files. By
default it asks this process's fork server (``fork_server.py``, started on first use, one per test
process) to fork it: the same code and arguments without paying the imports again. Both kinds of child
look the same to the caller (``ServerProcess``: poll, terminate, kill, wait). ``MODELARTS_TEST_FORK_SERVER=0``
starts plain subprocesses, as does any failure to start the fork server (the fork server is an
optimisation, never a requirement).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Protocol

REPO_ROOT = Path(__file__).resolve().parent.parent


class ServerProcess(Protocol):
    @property
    def returncode(self) -> int | None: ...
    def poll(self) -> int | None: ...
    def terminate(self) -> None: ...
    def kill(self) -> None: ...
    def wait(self, timeout: float | None = None) -> int: ...


class _ForkServer:
    """The fork server of this process, and the one pipe to it (calls are serialised by a lock)."""

    def __init__(self) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
        self._proc = subprocess.Popen([sys.executable, "-m", "local_cloud.fork_server"],
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                      cwd=str(REPO_ROOT), env=env)
        self._lock = threading.Lock()
        hello = self._read()
        if "ready" not in hello:
            self._proc.kill()
            raise RuntimeError(f"fork server did not start: {hello}")

    def _read(self) -> dict[str, Any]:
        assert self._proc.stdout is not None
        line = self._proc.stdout.readline()
        if not line:
            raise RuntimeError(f"fork server exited with {self._proc.wait()}")
        return json.loads(line)

    def call(self, **req: Any) -> dict[str, Any]:
        with self._lock:
            assert self._proc.stdin is not None
            self._proc.stdin.write(json.dumps(req) + "\n")
            self._proc.stdin.flush()
            reply = self._read()
        if "error" in reply:
            raise RuntimeError(f"fork server: {reply['error']}")
        return reply


class ForkedProcess:
    """A child of the fork server, driven like a ``subprocess.Popen``."""

    def __init__(self, server: _ForkServer, pid: int) -> None:
        self._server = server
        self.pid = pid
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            self.returncode = self._server.call(op="poll", pid=self.pid)["returncode"]
        return self.returncode

    def _signal(self, sig: int) -> None:
        if self.poll() is None:
            try:
                os.kill(self.pid, sig)
            except ProcessLookupError:
                pass

    def terminate(self) -> None:
        self._signal(signal.SIGTERM)

    def kill(self) -> None:
        self._signal(signal.SIGKILL)

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while (code := self.poll()) is None:
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired([str(self.pid)], timeout or 0)
            time.sleep(0.01)
        return code


_server: _ForkServer | None = None
_server_failed = False
_server_lock = threading.Lock()


def _fork_server() -> _ForkServer | None:
    global _server, _server_failed
    if os.environ.get("MODELARTS_TEST_FORK_SERVER", "1") == "0":
        return None
    with _server_lock:
        if _server is None and not _server_failed:
            try:
                _server = _ForkServer()
            except (OSError, RuntimeError, ValueError) as e:
                _server_failed = True
                print(f"fork server unavailable, starting subprocesses: {e}", file=sys.stderr)
        return _server


def start_process(module: str, args: list[str], *, cwd: Path, env: dict[str, str], stdout: Path,
                  stderr: Path) -> ServerProcess:
    """`python -m module args` in cwd with env; stdout truncated into `stdout`, stderr appended to `stderr`."""
    stdout.write_bytes(b"")  # exists (empty) before the call returns: the caller reads it at once
    server = _fork_server()
    if server is not None:
        pid = server.call(op="spawn", module=module, args=args, cwd=str(cwd), env=env,
                          stdout=str(stdout), stderr=str(stderr))["pid"]
        return ForkedProcess(server, pid)
    with open(stdout, "wb") as out, open(stderr, "ab") as err:
        return subprocess.Popen([sys.executable, "-m", module, *args], stdin=subprocess.DEVNULL,
                                stdout=out, stderr=err, cwd=str(cwd), env=env)

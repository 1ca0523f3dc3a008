"""What the two local clouds (this emulator and obs_emulator) share about being a local server.

Server side: the threaded HTTP server base, the command line's --host/--port and its serve loop, and
the connection reset used by faults. Test side: ``LocalServerProcess``, the server run as a
subprocess (``testing.RunningEmulator``, ``obs_emulator.testing.RunningObs``). Standard library and
requests only, so the local OBS can import it without loading the emulator.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import socket
import struct
import subprocess
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar, Self

import requests

from .process_start import REPO_ROOT, ServerProcess, start_process

READY_RE = re.compile(r"listening on (http://\S+)")


# --- server side ---------------------------------------------------------------------------------

class LocalHTTPServer(ThreadingHTTPServer):
    daemon_threads = True  # connection threads never block shutdown
    request_queue_size = 256  # bursts of parallel requests must not be refused by the backlog
    allow_reuse_address = True

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host}:{port}"


class AppHandler(BaseHTTPRequestHandler):
    """A local cloud's HTTP/1.1 handler whose server holds an `app` (with `config.quiet`): the request read as
    the app's dispatch takes it, and request lines logged unless quiet."""

    protocol_version = "HTTP/1.1"  # keep-alive: clients reuse connections
    sys_version = ""

    def request_parts(self) -> tuple[str, str, dict[str, str], bytes]:
        """(path, query, headers, body) of the request being handled (the body by its Content-Length)."""
        raw_path, _, raw_query = self.path.partition("?")
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length > 0 else b""
        return raw_path, raw_query, dict(self.headers.items()), body

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        if not self.server.app.config.quiet:  # type: ignore[attr-defined]
            super().log_message(format, *args)


def reset_connection(handler: BaseHTTPRequestHandler) -> None:
    """Close with an RST (SO_LINGER 0) and no response: the client sees a connection reset."""
    handler.close_connection = True
    try:
        handler.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        handler.connection.close()
    except OSError:
        pass


def listen_parser(prog: str, description: str, host: str, port: int) -> argparse.ArgumentParser:
    """A parser with the --host/--port every local server takes."""
    p = argparse.ArgumentParser(prog=prog, description=description,
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--host", default=host, help="address to listen on")
    p.add_argument("--port", type=int, default=port,
                   help="port to listen on (0 picks a free port; the ready line shows it)")
    return p


def add_credential_flags(p: argparse.ArgumentParser, access_key: str, secret_key: str, token_header: str) -> None:
    """The one key pair (and optional temporary token) a local cloud accepts, named as the real service does."""
    p.add_argument("--access-key", default=access_key, help="accepted AK")
    p.add_argument("--secret-key", default=secret_key, help="SK of the accepted AK")
    p.add_argument("--security-token", default=None,
                   help=f"accepted {token_header} (temporary credentials); none by default")


def ensure_state_dir(folder: Path) -> None:
    """Create a local cloud's state folder; a `.state` folder (the folder itself or its parent) gets its own
    .gitignore so that state is never committed."""
    folder.mkdir(parents=True, exist_ok=True)
    top = folder if folder.name == ".state" else folder.parent
    if top.name == ".state" and not (top / ".gitignore").exists():
        (top / ".gitignore").write_text("*\n")


def serve(server: LocalHTTPServer, ready_line: str) -> int:
    """Print the ready line (LocalServerProcess waits for it), serve until SIGTERM/SIGINT, close."""

    def stop(signum: int, frame: object) -> None:  # serve_forever must be stopped from another thread
        threading.Thread(target=server.shutdown, daemon=True).start()

    # before the ready line: a test may stop the server as soon as it has read it
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    print(ready_line, flush=True)
    try:
        server.serve_forever(poll_interval=0.2)
    finally:
        server.server_close()
    return 0


# --- test side -----------------------------------------------------------------------------------

class LocalStartError(RuntimeError):
    pass


@dataclass(frozen=True)
class ServerKind:
    """One local cloud as the process that starts it knows it."""

    module: str  # python -m <module>
    label: str  # the server's name in error messages
    control_prefix: str  # path prefix of the unauthenticated controls, e.g. "/_obs"
    log_name: str
    access_key: str  # the credentials it accepts unless its flags name others
    secret_key: str
    start_timeout: float = 20.0


class LocalServerProcess:
    """``python -m <module>`` on 127.0.0.1 and a free port (kept across restarts), with its controls.

    Keyword flags map to command-line flags (``run_seconds=1`` -> ``--run-seconds 1``; ``True`` ->
    bare flag). A subclass declares its `kind` and adds the flags of its state (``_state_argv``).
    """

    kind: ClassVar[ServerKind]
    start_error: ClassVar[type[LocalStartError]] = LocalStartError

    def __init__(self, workdir: Path | str, **flags: Any) -> None:
        self.workdir = Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.flags = dict(flags)
        # the credentials the server accepts (its flags, else its defaults): what a test's client signs with
        self.access_key: str = self.flags.get("access_key", self.kind.access_key)
        self.secret_key: str = self.flags.get("secret_key", self.kind.secret_key)
        self.security_token: str | None = self.flags.get("security_token")
        self.flags.pop("port", None)  # chosen by the OS on first start, then kept
        self.flags.pop("host", None)
        self.log_path = self.workdir / self.kind.log_name
        self.port = 0
        self.url = ""
        self._proc: ServerProcess | None = None
        self._http = requests.Session()  # controls only (no auth)

    def _state_argv(self) -> list[str]:
        raise NotImplementedError

    def _args(self) -> list[str]:
        """The command line after `python -m <module>`."""
        argv = ["--host", "127.0.0.1", "--port", str(self.port), *self._state_argv()]
        for key, value in self.flags.items():
            if value is None or value is False:
                continue
            flag = "--" + key.replace("_", "-")
            if isinstance(value, (list, tuple)):  # a repeatable flag: once per value
                for item in value:
                    argv += [flag, str(item)]
                continue
            argv.append(flag)
            if value is not True:
                argv.append(str(value))
        return argv

    def start(self, timeout: float | None = None) -> Self:
        if self._proc is not None:
            raise RuntimeError(f"{self.kind.label} already running")
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
        env["PYTHONUNBUFFERED"] = "1"
        # stdout (the ready line) goes to a file beside the log: both kinds of start read it the same way
        out_path = self.workdir / (self.kind.log_name + ".out")
        self._proc = start_process(self.kind.module, self._args(), cwd=self.workdir, env=env,
                                   stdout=out_path, stderr=self.log_path)
        deadline = time.monotonic() + (self.kind.start_timeout if timeout is None else timeout)
        while True:
            m = READY_RE.search(out_path.read_text(errors="replace"))
            if m:
                self.url = m.group(1)
                self.port = int(self.url.rsplit(":", 1)[1])
                break
            if self._proc.poll() is not None:
                raise self.start_error(f"{self.kind.label} exited with {self._proc.returncode}:\n"
                                       + self._log_tail())
            if time.monotonic() > deadline:
                self.stop()
                raise self.start_error(f"{self.kind.label} did not become ready:\n" + self._log_tail())
            time.sleep(0.01)
        self._http.get(f"{self.url}{self.kind.control_prefix}/counters", timeout=5).raise_for_status()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout)
        self._http.close()
        self._http = requests.Session()

    def restart(self) -> Self:
        """Stop and start again on the same port with the same state."""
        self.stop()
        return self.start()

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def _log_tail(self, n: int = 4000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-n:]
        except OSError:
            return ""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- controls --------------------------------------------------------------------------------

    def _control(self, method: str, name: str, json: Any = None) -> Any:
        r = self._http.request(method, f"{self.url}{self.kind.control_prefix}/{name}", json=json, timeout=10)
        r.raise_for_status()
        return r.json()

    def counters(self) -> dict[str, int]:
        return self._control("GET", "counters")

    def reset(self) -> None:
        self._control("POST", "reset")

    def set_faults(self, rules: list[Any]) -> None:
        """Replace the fault rules; items are dicts (or pydantic FaultRule objects)."""
        payload = [r.model_dump() if hasattr(r, "model_dump") else dict(r) for r in rules]
        self._control("POST", "faults", {"rules": payload})

    def clear_faults(self) -> None:
        self._control("DELETE", "faults")

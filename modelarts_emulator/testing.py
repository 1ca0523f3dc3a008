"""Run the emulator as a subprocess for tests and benchmarks.

    from modelarts_emulator.testing import running_emulator

    with running_emulator(tmp_path, run_seconds=1, phase_seconds=0.2) as emu:
        emu.url, emu.project_id, emu.access_key, emu.secret_key
        emu.counters()            # {"create": n, ..., "total": n}
        emu.set_faults([{"operation": "create", "kind": "status", "status": 429, "times": 2}])
        emu.clear_faults(); emu.reset(); emu.jobs()
        emu.settings(allow_duplicate_names=True)  # runtime switches; reset() restores the flags
        emu.restart()             # same port and database: jobs and tokens survive
        emu.session()             # requests.Session signing with the local AK/SK

Keyword flags map to command-line flags (``run_seconds=1`` -> ``--run-seconds 1``; ``True`` -> bare
flag, e.g. ``allow_duplicate_names=True`` -> ``--allow-duplicate-names``). The emulator listens on a
free port (``--port 0``); ``restart()`` reuses that port.
"""

from __future__ import annotations

import contextlib
import os
import queue
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Iterator

import requests

from . import config as c

REPO_ROOT = Path(__file__).resolve().parent.parent
READY_RE = re.compile(r"listening on (http://\S+)")


class EmulatorStartError(RuntimeError):
    pass


class RunningEmulator:
    def __init__(self, workdir: Path | str, **flags: Any) -> None:
        self.workdir = Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.flags = dict(flags)
        self.db = Path(self.flags.pop("db", self.workdir / "emulator.db"))
        self.flags.pop("port", None)  # chosen by the OS on first start, then kept
        self.flags.pop("host", None)
        self.project_id: str = self.flags.get("project_id", c.DEFAULT_PROJECT_ID)
        self.access_key: str = self.flags.get("access_key", c.DEFAULT_ACCESS_KEY)
        self.secret_key: str = self.flags.get("secret_key", c.DEFAULT_SECRET_KEY)
        self.security_token: str | None = self.flags.get("security_token")
        self.iam_user: str = self.flags.get("iam_user", c.DEFAULT_IAM_USER)
        self.iam_password: str = self.flags.get("iam_password", c.DEFAULT_IAM_PASSWORD)
        self.iam_domain: str = self.flags.get("iam_domain", c.DEFAULT_IAM_DOMAIN)
        self.log_path = self.workdir / "emulator.log"
        self.port = 0
        self.url = ""
        self._proc: subprocess.Popen | None = None
        self._http = requests.Session()  # controls only (no auth)

    # --- process ----------------------------------------------------------------------------------

    def _argv(self) -> list[str]:
        argv = [sys.executable, "-m", "modelarts_emulator", "--host", "127.0.0.1",
                "--port", str(self.port), "--db", str(self.db)]
        for key, value in self.flags.items():
            if value is None or value is False:
                continue
            argv.append("--" + key.replace("_", "-"))
            if value is not True:
                argv.append(str(value))
        return argv

    def start(self, timeout: float = 20.0) -> "RunningEmulator":
        if self._proc is not None:
            raise RuntimeError("emulator already running")
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
        env["PYTHONUNBUFFERED"] = "1"
        log = open(self.log_path, "ab")
        try:
            self._proc = subprocess.Popen(self._argv(), stdout=subprocess.PIPE, stderr=log,
                                          cwd=str(self.workdir), env=env)
        finally:
            log.close()
        lines: queue.Queue[str] = queue.Queue()
        out = self._proc.stdout
        assert out is not None

        def pump() -> None:  # keep draining stdout so the child never blocks on a full pipe
            for raw in iter(out.readline, b""):
                lines.put(raw.decode(errors="replace"))

        threading.Thread(target=pump, daemon=True).start()
        deadline = time.monotonic() + timeout
        while True:
            if self._proc.poll() is not None:
                raise EmulatorStartError(f"emulator exited with {self._proc.returncode}:\n"
                                         + self._log_tail())
            try:
                line = lines.get(timeout=0.05)
            except queue.Empty:
                if time.monotonic() > deadline:
                    self.stop()
                    raise EmulatorStartError("emulator did not become ready:\n" + self._log_tail())
                continue
            m = READY_RE.search(line)
            if m:
                self.url = m.group(1)
                self.port = int(self.url.rsplit(":", 1)[1])
                break
        self._http.get(self.url + "/_emulator/counters", timeout=5).raise_for_status()
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
        if proc.stdout:
            proc.stdout.close()
        self._http.close()
        self._http = requests.Session()

    def restart(self) -> "RunningEmulator":
        """Stop and start again on the same port with the same database."""
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

    def __enter__(self) -> "RunningEmulator":
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- controls -----------------------------------------------------------------------------------

    def _control(self, method: str, name: str, json: Any = None) -> Any:
        r = self._http.request(method, f"{self.url}/_emulator/{name}", json=json, timeout=10)
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

    def jobs(self) -> list[dict[str, Any]]:
        """Every stored job (all phases), as the API renders them."""
        return self._control("GET", "jobs")["items"]

    def settings(self, **changes: Any) -> dict[str, Any]:
        """Change runtime switches (``allow_duplicate_names``, ``search_offset``,
        ``search_all_workspaces``); no argument: read them."""
        if not changes:
            return self._control("GET", "settings")
        return self._control("POST", "settings", changes)

    # --- convenience for tests -------------------------------------------------------------------------

    @property
    def api_base(self) -> str:
        """``{url}/v2/{project_id}``: prefix of the training-job API paths."""
        return f"{self.url}/v2/{self.project_id}"

    def session(self) -> requests.Session:
        """A requests session signing every request with the emulator's AK/SK (SDK-HMAC-SHA256)."""
        from modelarts_provider.client.signer import SdkHmacAuth

        s = requests.Session()
        s.auth = SdkHmacAuth(self.access_key, self.secret_key, self.security_token,
                             project_id=self.project_id)
        s.headers["Content-Type"] = "application/json"
        return s


@contextlib.contextmanager
def running_emulator(tmp_path: Path | str, **flags: Any) -> Iterator[RunningEmulator]:
    emu = RunningEmulator(tmp_path, **flags)
    emu.start()
    try:
        yield emu
    finally:
        emu.stop()

"""Run the local OBS as a subprocess for tests and benchmarks.

    from obs_emulator.testing import running_obs

    with running_obs(tmp_path) as obs:
        obs.url, obs.access_key, obs.secret_key, obs.region
        obs.client().create_bucket(Bucket="b")   # a path-style boto3 client with the local AK/SK
        obs.counters()                            # {"total": n, "put_object": n, ...}
        obs.set_faults([{"operation": "put_object", "kind": "status", "status": 503, "after": 3, "times": 50}])
        obs.clear_faults(); obs.reset()           # reset: counters and faults (data stays)
        obs.restart()                             # same port and state dir: buckets and objects survive

Keyword flags map to command-line flags (``security_token="t"`` -> ``--security-token t``; ``True``
-> bare flag). The server listens on a free port (``--port 0``); ``restart()`` reuses it. The state
directory defaults to ``<workdir>/state``.
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


class ObsStartError(RuntimeError):
    pass


class RunningObs:
    def __init__(self, workdir: Path | str, **flags: Any) -> None:
        self.workdir = Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.flags = dict(flags)
        self.state_dir = Path(self.flags.pop("state_dir", self.workdir / "state"))
        self.flags.pop("port", None)  # chosen by the OS on first start, then kept
        self.flags.pop("host", None)
        self.access_key: str = self.flags.get("access_key", c.DEFAULT_ACCESS_KEY)
        self.secret_key: str = self.flags.get("secret_key", c.DEFAULT_SECRET_KEY)
        self.security_token: str | None = self.flags.get("security_token")
        self.region: str = self.flags.get("region", c.DEFAULT_REGION)
        self.log_path = self.workdir / "obs.log"
        self.port = 0
        self.url = ""
        self._proc: subprocess.Popen[bytes] | None = None
        self._http = requests.Session()  # controls only (no auth)

    def _argv(self) -> list[str]:
        argv = [sys.executable, "-m", "obs_emulator", "--host", "127.0.0.1", "--port", str(self.port),
                "--state-dir", str(self.state_dir)]
        for key, value in self.flags.items():
            if value is None or value is False:
                continue
            argv.append("--" + key.replace("_", "-"))
            if value is not True:
                argv.append(str(value))
        return argv

    def start(self, timeout: float = 30.0) -> "RunningObs":
        if self._proc is not None:
            raise RuntimeError("local OBS already running")
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
        env["PYTHONUNBUFFERED"] = "1"
        with open(self.log_path, "ab") as log:
            self._proc = subprocess.Popen(self._argv(), stdout=subprocess.PIPE, stderr=log,
                                          cwd=str(self.workdir), env=env)
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
                raise ObsStartError(f"local OBS exited with {self._proc.returncode}:\n{self._log_tail()}")
            try:
                line = lines.get(timeout=0.05)
            except queue.Empty:
                if time.monotonic() > deadline:
                    self.stop()
                    raise ObsStartError("local OBS did not become ready:\n" + self._log_tail()) from None
                continue
            m = READY_RE.search(line)
            if m:
                self.url = m.group(1)
                self.port = int(self.url.rsplit(":", 1)[1])
                break
        self._http.get(self.url + "/_obs/counters", timeout=5).raise_for_status()
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

    def restart(self) -> "RunningObs":
        """Stop and start again on the same port with the same state directory."""
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

    def __enter__(self) -> "RunningObs":
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- controls ----------------------------------------------------------------------------------

    def _control(self, method: str, name: str, json: Any = None) -> Any:
        r = self._http.request(method, f"{self.url}/_obs/{name}", json=json, timeout=10)
        r.raise_for_status()
        return r.json()

    def counters(self) -> dict[str, int]:
        return self._control("GET", "counters")

    def reset(self) -> None:
        self._control("POST", "reset")

    def set_faults(self, rules: list[Any]) -> None:
        """Replace the fault rules; items are dicts (or obs_emulator.faults.FaultRule objects)."""
        payload = [r.model_dump() if hasattr(r, "model_dump") else dict(r) for r in rules]
        self._control("POST", "faults", {"rules": payload})

    def clear_faults(self) -> None:
        self._control("DELETE", "faults")

    def faults_left(self) -> int:
        return int(self._control("GET", "faults")["armed"])

    # --- convenience for tests ---------------------------------------------------------------------

    def client(self, **overrides: Any) -> Any:
        """A boto3 S3 client for this server: path-style, SigV4, the local AK/SK (no retries)."""
        import boto3
        from botocore.config import Config

        kw: dict[str, Any] = dict(
            endpoint_url=self.url, region_name=self.region, aws_access_key_id=self.access_key,
            aws_secret_access_key=self.secret_key, aws_session_token=self.security_token,
            config=Config(s3={"addressing_style": "path"}, signature_version="s3v4",
                          retries={"mode": "standard", "total_max_attempts": 1},
                          request_checksum_calculation="when_required",
                          response_checksum_validation="when_required"))
        kw.update(overrides)
        return boto3.client("s3", **kw)


@contextlib.contextmanager
def running_obs(tmp_path: Path | str, **flags: Any) -> Iterator[RunningObs]:
    obs = RunningObs(tmp_path, **flags)
    obs.start()
    try:
        yield obs
    finally:
        obs.stop()

"""Run the emulator as a subprocess for tests and benchmarks.

    from modelarts_emulator.testing import running_emulator

    with running_emulator(tmp_path, run_seconds=1, phase_seconds=0.2) as emu:
        emu.url, emu.project_id, emu.access_key, emu.secret_key
        emu.counters()            # {"create": n, ..., "total": n}
        emu.set_faults([{"operation": "create", "kind": "status", "status": 429, "times": 2}])
        emu.clear_faults(); emu.reset(); emu.jobs()
        emu.settings(allow_duplicate_names=True)  # runtime switches; reset() restores the flags
        emu.advance(3600)         # move the emulated clock 1 h forward: jobs finish without waiting
        emu.pin_gateway_clock("20261126T220150Z")  # the gateway's X-Sdk-Date check at a recorded time
        emu.restart()             # same port and database: jobs, tokens and the clock survive
        emu.session()             # requests.Session signing with the local AK/SK

Keyword flags map to command-line flags (``run_seconds=1`` -> ``--run-seconds 1``; ``True`` -> bare
flag, e.g. ``allow_duplicate_names=True`` -> ``--allow-duplicate-names``). The emulator listens on a
free port (``--port 0``); ``restart()`` reuses that port.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any, Iterator

import requests

from . import config as c
from local_cloud.server import LocalServerProcess, LocalStartError, ServerKind

__all__ = ["EmulatorStartError", "RunningEmulator", "running_emulator"]


class EmulatorStartError(LocalStartError):
    pass


class RunningEmulator(LocalServerProcess):
    kind = ServerKind(module="modelarts_emulator", label="emulator", control_prefix="/_emulator",
                      log_name="emulator.log", access_key=c.DEFAULT_ACCESS_KEY, secret_key=c.DEFAULT_SECRET_KEY)
    start_error = EmulatorStartError

    def __init__(self, workdir: Path | str, **flags: Any) -> None:
        super().__init__(workdir, **flags)
        self.db = Path(self.flags.pop("db", self.workdir / "emulator.db"))
        self.project_id: str = self.flags.get("project_id", c.DEFAULT_PROJECT_ID)
        self.iam_user: str = self.flags.get("iam_user", c.DEFAULT_IAM_USER)
        self.iam_password: str = self.flags.get("iam_password", c.DEFAULT_IAM_PASSWORD)
        self.iam_domain: str = self.flags.get("iam_domain", c.DEFAULT_IAM_DOMAIN)

    def _state_argv(self) -> list[str]:
        return ["--db", str(self.db)]

    # --- controls beyond the shared ones -----------------------------------------------------------

    def jobs(self) -> list[dict[str, Any]]:
        """Every stored job (all phases), as the API renders them."""
        return self._control("GET", "jobs")["items"]

    def settings(self, **changes: Any) -> dict[str, Any]:
        """Change runtime switches (``allow_duplicate_names``, ``search_offset``,
        ``search_all_workspaces``); no argument: read them."""
        if not changes:
            return self._control("GET", "settings")
        return self._control("POST", "settings", changes)

    def advance(self, seconds: float) -> dict[str, Any]:
        """Move the emulated clock forward: phases, logs and auto stop all see the later time, so a
        test holds a job in a phase (a long run time) and lets it go when it wants.
        ``{"offset_seconds", "now_ms"}``."""
        return self._control("POST", "clock", {"advance_seconds": seconds})

    def pin_gateway_clock(self, sdk_date: str | None) -> dict[str, Any]:
        """Pin the gateway's clock (the X-Sdk-Date check) at ``sdk_date`` (``YYYYMMDDTHHMMSSZ``, e.g. a
        recorded request's), or back to the wall clock with None; jobs keep their own clock."""
        return self._control("POST", "clock", {"gateway_at": sdk_date})

    def clock(self) -> dict[str, Any]:
        """``{"offset_seconds", "now_ms"}``: how far the emulated clock is ahead, and its time."""
        return self._control("GET", "clock")

    def pools(self) -> dict[str, Any]:
        """``{"items": [every pool and network, deleted ones too, with "gone"], "events": [{"at_ms", "kind",
        "name", "action"}]}``: creates, scales and deletes of pools, networks and jobs, in order."""
        return self._control("GET", "pools")

    def pool_fault(self, kind: str, name: str | None = None, message: str = "") -> None:
        """``abnormal``: matching pools (by user name; None: all) turn Abnormal; ``scale_fail``: their next
        scale-ups end with abnormal nodes."""
        self._control("POST", "pool-faults", {"kind": kind, "name": name, "message": message})

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
    with RunningEmulator(tmp_path, **flags).start() as emu:
        yield emu

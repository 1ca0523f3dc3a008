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
from pathlib import Path
from typing import Any, Iterator

from local_cloud.server import LocalServerProcess, LocalStartError, ServerKind

from . import config as c

__all__ = ["ObsStartError", "RunningObs", "running_obs"]


class ObsStartError(LocalStartError):
    pass


class RunningObs(LocalServerProcess):
    kind = ServerKind(module="obs_emulator", label="local OBS", control_prefix="/_obs", log_name="obs.log",
                      access_key=c.DEFAULT_ACCESS_KEY, secret_key=c.DEFAULT_SECRET_KEY, start_timeout=30.0)
    start_error = ObsStartError

    def __init__(self, workdir: Path | str, **flags: Any) -> None:
        super().__init__(workdir, **flags)
        self.state_dir = Path(self.flags.pop("state_dir", self.workdir / "state"))
        self.region: str = self.flags.get("region", c.DEFAULT_REGION)

    def _state_argv(self) -> list[str]:
        return ["--state-dir", str(self.state_dir)]

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
    with RunningObs(tmp_path, **flags).start() as obs:
        yield obs

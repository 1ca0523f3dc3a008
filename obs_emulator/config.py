"""Local OBS settings (from the command line) and its defaults.

The credentials are the ModelArts emulator's (docs/ARCHITECTURE.md), so one `modelarts:` config
serves both local services.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8781
DEFAULT_STATE_DIR = Path(".state") / "obs"
DEFAULT_ACCESS_KEY = "EMULATORLOCALAK00001"
DEFAULT_SECRET_KEY = "emulator-local-secret-key-not-a-real-sk1"
DEFAULT_REGION = "cn-north-4"
CONTROL_PREFIX = "/_obs/"  # never a bucket: '_' is not allowed in bucket names
DB_NAME = "obs.db"


class ObsEmulatorConfig(BaseModel):
    model_config = ConfigDict(frozen=True)

    host: str = DEFAULT_HOST
    port: int = Field(default=DEFAULT_PORT, ge=0, le=65535)
    state_dir: Path | None = DEFAULT_STATE_DIR  # None: in memory only (nothing survives a restart)
    access_key: str = DEFAULT_ACCESS_KEY
    secret_key: str = DEFAULT_SECRET_KEY
    security_token: str | None = None  # accepted x-amz-security-token (temporary credentials)
    region: str = DEFAULT_REGION  # where a bucket created without LocationConstraint lives
    latency_ms: float = Field(default=0.0, ge=0)  # added to every S3 request (a network round trip)
    max_clock_skew_seconds: float = 15 * 60  # RequestTimeTooSkewed beyond it, as S3 and OBS
    quiet: bool = True  # no per-request access log

    @property
    def db_path(self) -> Path | None:
        return None if self.state_dir is None else self.state_dir / DB_NAME

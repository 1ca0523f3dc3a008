"""Local billing service settings (from the command line) and its defaults.

The credentials are the ModelArts emulator's (docs/ARCHITECTURE.md): one `modelarts:` config signs for all
three local services.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8782
DEFAULT_ACCESS_KEY = "EMULATORLOCALAK00001"
DEFAULT_SECRET_KEY = "emulator-local-secret-key-not-a-real-sk1"
CONTROL_PREFIX = "/_billing"
DEFAULT_PRICES = Path(__file__).with_name("prices.json")


class BillingConfig(BaseModel):
    model_config = ConfigDict(frozen=True)

    host: str = DEFAULT_HOST
    port: int = Field(default=DEFAULT_PORT, ge=0, le=65535)
    access_key: str = DEFAULT_ACCESS_KEY
    secret_key: str = DEFAULT_SECRET_KEY
    security_token: str | None = None
    prices: Path = DEFAULT_PRICES  # the price list (prices.json's shape)
    max_clock_skew_seconds: float = 15 * 60  # X-Sdk-Date window, as the real gateway
    quiet: bool = True

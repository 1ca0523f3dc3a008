"""modelarts:retryTimeoutSeconds bounds how long one API call keeps retrying (the client's retry budget)."""

from __future__ import annotations

from modelarts_provider.core.provider_config import resolve_settings

BASE = {"region": "cn-north-4", "projectId": "p", "accessKey": "AK", "secretKey": "SK"}


def test_the_setting_reaches_the_client_and_defaults_to_a_minute() -> None:
    assert resolve_settings(BASE.get, {}).to_client_settings().retry_total_s == 60.0
    short = {**BASE, "retryTimeoutSeconds": "2.5"}
    assert resolve_settings(short.get, {}).to_client_settings().retry_total_s == 2.5

"""The client imports nothing of core (tests/architecture), yet its errors pass the product's one masking step:
core hands it in where it makes the client's settings, which is where every product client comes from."""

from __future__ import annotations

from modelarts_provider.client.errors import ModelArtsError
from modelarts_provider.core.masking import MASK
from modelarts_provider.core.provider_config import resolve_settings


def test_a_client_made_from_the_provider_settings_masks_its_errors() -> None:
    config = {"region": "cn-north-4", "projectId": "p", "accessKey": "AK", "secretKey": "the-secret-key-1"}
    settings = resolve_settings(config.get, {}).to_client_settings()
    err = ModelArtsError("the job failed: HF_TOKEN=hf_abcdefghijklmnop1234", error_solution="retry",
                         secrets=[settings.credentials.secret_key.get_secret_value()])
    assert "hf_abcdefghijklmnop1234" not in str(err) and f"HF_TOKEN={MASK}" in str(err)

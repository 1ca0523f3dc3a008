"""Providers wired to a given client, for tests that drive a provider's methods directly (no engine)."""

from __future__ import annotations

from modelarts_provider.client import ModelArtsClient
from modelarts_provider.core.provider_config import resolve_settings
from modelarts_provider.training_job.provider import TrainingJobProvider


def job_provider_on(client: ModelArtsClient) -> TrainingJobProvider:
    """A TrainingJobProvider on its own client (so its own catalog cache), configured for the client's place."""
    p = TrainingJobProvider()
    s = client.settings
    p._settings = resolve_settings({"region": s.region, "projectId": s.project_id, "endpoint": s.endpoint,
                                    "accessKey": "AK", "secretKey": "SK"}.get, {})
    p._api = lambda: client  # type: ignore[method-assign]
    return p

"""One pooled ModelArts client per settings per process, shared by every resource type (a cache: right in any
process, only slower when cold)."""

from __future__ import annotations

import threading
from typing import Any

from .provider_config import ProviderSettings

_CLIENTS: dict[ProviderSettings, Any] = {}
_CLIENTS_LOCK = threading.Lock()


def client_for(settings: ProviderSettings) -> Any:
    """One pooled client per settings per process, shared by every resource type."""
    with _CLIENTS_LOCK:
        client = _CLIENTS.get(settings)
        if client is None:
            from ..client import ModelArtsClient

            client = _CLIENTS[settings] = ModelArtsClient(settings.to_client_settings())
        return client

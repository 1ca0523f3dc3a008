"""What the OBS-backed dynamic providers (CodeUpload, Bucket) share: settings read in configure(),
one pooled ObsClient per settings per provider process, a pickle that carries the class alone.

Credentials come from the `modelarts:` stack config (decrypted by the engine for configure()) or the
environment, in the provider process: never from the program, so never in the pickled provider,
the state or an output. Here in core/, not in obs/: it is the provider side (Pulumi, the settings provider
base), built on the OBS client, which stays a plain client beside the ModelArts one and imports nothing of core.
"""

from __future__ import annotations

import threading
from pulumi.dynamic import CheckFailure

from ..obs.client import ObsClient
from ..obs.errors import ObsConfigError
from ..obs.settings import ObsSettings, resolve_obs_settings
from .provider_base import SettingsProvider
from .provider_config import NAMESPACE

__all__ = ["ObsProviderBase", "ObsProviderError"]

_CLIENTS: dict[ObsSettings, ObsClient] = {}
_CLIENTS_LOCK = threading.Lock()


class ObsProviderError(Exception):
    """A provider call that cannot proceed: one line, names the resource's bucket/prefix, no secrets."""


class ObsProviderBase(SettingsProvider[ObsSettings]):
    _resolve = staticmethod(resolve_obs_settings)
    _bad_config = ObsConfigError
    _unusable = ObsProviderError
    _missing = "OBS settings missing"

    def config_failures(self) -> list[CheckFailure]:
        """check()'s report of unusable settings (at preview, before any API call)."""
        if self._config_error is None:
            return []
        return [CheckFailure(NAMESPACE, f"provider configuration: {self._config_error}")]

    def _obs(self) -> ObsClient:
        settings = self._require_settings()
        with _CLIENTS_LOCK:
            client = _CLIENTS.get(settings)
            if client is None:
                client = _CLIENTS[settings] = ObsClient(settings)
            return client

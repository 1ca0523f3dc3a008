"""What the OBS-backed dynamic providers (CodeUpload, Bucket) share: settings read in configure(),
one pooled ObsClient per settings per provider process, a pickle that carries the class alone.

Credentials come from the `modelarts:` stack config (decrypted by the engine for configure()) or the
environment, in the provider process: never from the program, so never in the pickled provider,
the state or an output. This module imports Pulumi; the rest of modelarts_provider.obs does not.
"""

from __future__ import annotations

import os
import threading
from typing import Any

from pulumi.dynamic import CheckFailure, ConfigureRequest, ResourceProvider
from pulumi.output import Unknown

from ..provider_base import start_orphan_watchdog
from ..provider_config import NAMESPACE
from .client import ObsClient
from .errors import ObsConfigError
from .settings import ObsSettings, resolve_obs_settings

__all__ = ["ObsProviderBase", "ObsProviderError", "is_unknown"]

# pulumi.runtime.rpc.UNKNOWN: a value not known yet at preview (e.g. another resource's output)
_UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"
_CLIENTS: dict[ObsSettings, ObsClient] = {}
_CLIENTS_LOCK = threading.Lock()


def is_unknown(value: Any) -> bool:
    return isinstance(value, Unknown) or value == _UNKNOWN


class ObsProviderError(Exception):
    """A provider call that cannot proceed: one line, names the resource's bucket/prefix, no secrets."""


class ObsProviderBase(ResourceProvider):
    serialize_as_secret_always = False  # the pickle holds no secret (see __reduce__)
    _settings: ObsSettings | None = None
    _config_error: str | None = None

    def __reduce__(self) -> tuple[type, tuple[()]]:
        return (type(self), ())

    def configure(self, req: ConfigureRequest) -> None:
        start_orphan_watchdog()
        try:
            self._settings = resolve_obs_settings(lambda k: req.config.get(f"{NAMESPACE}:{k}"), os.environ)
            self._config_error = None
        except ObsConfigError as err:
            self._settings, self._config_error = None, str(err)

    def config_failures(self) -> list[CheckFailure]:
        """check()'s report of unusable settings (at preview, before any API call)."""
        if self._config_error is None:
            return []
        return [CheckFailure(NAMESPACE, f"provider configuration: {self._config_error}")]

    def _require_settings(self) -> ObsSettings:
        if self._settings is None:
            if self._config_error is None:  # configure() not called (direct use): environment only
                try:
                    self._settings = resolve_obs_settings(lambda _k: None, os.environ)
                except ObsConfigError as err:
                    self._config_error = str(err)
            if self._settings is None:
                raise ObsProviderError(self._config_error or "OBS settings missing")
        return self._settings

    def _obs(self) -> ObsClient:
        settings = self._require_settings()
        with _CLIENTS_LOCK:
            client = _CLIENTS.get(settings)
            if client is None:
                client = _CLIENTS[settings] = ObsClient(settings)
            return client

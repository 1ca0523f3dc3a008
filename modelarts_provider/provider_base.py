"""What every dynamic provider of this package shares: settings from `configure()`, one client per
provider process, and line-safe progress output.

A provider object is pickled into the state (by reference to its class) and must never carry state:
`__reduce__` pickles the class alone, whatever was set on the instance (Automation API and inline
programs run providers in the program process, where a configured instance would otherwise pickle
its settings, credentials included).
"""

from __future__ import annotations

import os
import sys
import threading
from typing import Any

from pulumi.dynamic import ConfigureRequest, ResourceProvider

from .provider_config import NAMESPACE, ProviderConfigError, ProviderSettings, resolve_settings

_OUTPUT_LOCK = threading.Lock()
_CLIENTS: dict[ProviderSettings, Any] = {}
_CLIENTS_LOCK = threading.Lock()


class ProviderError(Exception):
    """A provider call that cannot proceed; the message is one line, names the job, no secrets."""


def say(message: str) -> None:
    """One line to the provider's stderr, which the engine relays into `pulumi up`.

    One write per line under a lock: provider calls run on 4 threads, and two `print`s could
    otherwise interleave into one merged line.
    """
    with _OUTPUT_LOCK:
        sys.stderr.write(message.rstrip("\n") + "\n")
        sys.stderr.flush()


def client_for(settings: ProviderSettings) -> Any:
    """One pooled client per settings per process, shared by every resource type."""
    with _CLIENTS_LOCK:
        client = _CLIENTS.get(settings)
        if client is None:
            from .client import ModelArtsClient

            client = _CLIENTS[settings] = ModelArtsClient(settings.to_client_settings())
        return client


class ModelArtsProvider(ResourceProvider):
    # The serialized provider holds no secret (see module docstring); keep it plain in the state.
    serialize_as_secret_always = False

    # Class-level defaults: an instance pickles with nothing of its own.
    _settings: ProviderSettings | None = None
    _config_error: str | None = None

    def __reduce__(self) -> tuple[type, tuple[()]]:
        return (type(self), ())

    def configure(self, req: ConfigureRequest) -> None:
        try:
            self._settings = resolve_settings(lambda k: req.config.get(f"{NAMESPACE}:{k}"), os.environ)
            self._config_error = None
        except ProviderConfigError as err:
            self._settings, self._config_error = None, str(err)

    def _require_settings(self) -> ProviderSettings:
        if self._settings is None:
            if self._config_error is None:  # configure() not called (e.g. direct use): read env only
                try:
                    self._settings = resolve_settings(lambda _k: None, os.environ)
                except ProviderConfigError as err:
                    self._config_error = str(err)
            if self._settings is None:
                raise ProviderError(self._config_error or "provider settings missing")
        return self._settings

    def _api(self) -> Any:
        return client_for(self._require_settings())

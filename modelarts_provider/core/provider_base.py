"""What every dynamic provider of this package shares: settings from `configure()` (the process's engine watched, its
server set up: core/engine_watch.py, core/provider_server.py), its client (core/clients.py), each call masking its
own secrets, and a check's failures worded for the engine.

A provider object is pickled into the state (by reference to its class) and must never carry state:
`__reduce__` pickles the class alone, whatever was set on the instance (Automation API and inline
programs run providers in the program process, where a configured instance would otherwise pickle
its settings, credentials included).
"""

from __future__ import annotations

import functools
import os
from typing import Any, Callable, ClassVar, Generic, Mapping, TypeVar

from pulumi.dynamic import CheckFailure, CheckResult, ConfigureRequest, ResourceProvider

from .clients import client_for
from .collector import imports_done
from .engine_watch import start_orphan_watchdog
from .failures import for_engine
from .unknowns import one_spelling
from .masking import NONE, Secrets, binding
from .ownership import keyed, with_key_secret
from .provider_error import ProviderError
from .provider_server import PROVIDER_KEY, serve_engine_calls
from .renames import RENAMED_FROM_KEY, RENAMES, RenameRefused
from .resource_inputs import Checked
from .provider_config import NAMESPACE, ProviderConfigError, ProviderSettings, resolve_settings

S = TypeVar("S")

_CALLS = ("check", "diff", "create", "read", "update", "delete")


def _binding_secrets(method: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(method)
    def bound(self: Any, *args: Any) -> Any:
        with binding(self.secrets_of(*(a for a in args if isinstance(a, dict)))):
            return method(self, *args)

    bound._binds_secrets = True  # type: ignore[attr-defined]
    return bound


class SettingsProvider(ResourceProvider, Generic[S]):
    """Settings of type S from `configure()` (the `modelarts:` config, else the environment).

    A subclass names its resolver and errors. Bad settings do not fail configure(): the message is
    kept and raised by the first call that needs the settings (and may be reported by check()).
    """

    # The serialized provider holds no secret (see module docstring); keep it plain in the state.
    serialize_as_secret_always = False

    # Class-level defaults: an instance pickles with nothing of its own.
    _settings: S | None = None
    _config_error: str | None = None
    _config: Any = None  # the configure request's config (`.get("modelarts:<key>")`)

    _resolve: ClassVar[Callable[[Callable[[str], Any], Mapping[str, str]], Any]]  # a staticmethod
    _bad_config: ClassVar[type[Exception]]  # what _resolve raises on unusable settings
    _unusable: ClassVar[type[Exception]]  # what _require_settings raises
    _missing: ClassVar[str]

    def __reduce__(self) -> tuple[type, tuple[()]]:
        return (type(self), ())

    def secrets_of(self, *_props: dict[str, Any]) -> Secrets:
        """The secrets among a call's inputs (a resource that takes secrets says which, from the inputs
        themselves): bound for the call, so its lines and errors mask them (masking.binding). None by default."""
        return NONE

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Every provider call masks what it prints with the secrets of its own inputs (`secrets_of`, bound for
        the call: masking.binding), on both front doors. Every provider's check(), called by the SDK's
        dynamic-provider server (the news carry the pickled provider), answers failures the engine prints
        well (failures.for_engine). The plugin does the same at its edge, in its own naming; a direct call
        (a library user, a test) gets the failures as found."""
        super().__init_subclass__(**kwargs)
        imports_done()  # a provider class is defined once its module's imports are in (core/collector.py)
        diff = cls.__dict__.get("diff")
        if diff is not None and not getattr(diff, "_one_spelling", False):
            @functools.wraps(diff)
            def diffed(self: Any, id_: str, olds: dict[str, Any], news: dict[str, Any]) -> Any:
                return diff(self, id_, one_spelling(olds), one_spelling(news))

            diffed._one_spelling = True  # type: ignore[attr-defined]
            cls.diff = diffed  # type: ignore[method-assign]
        for name in _CALLS:
            method = cls.__dict__.get(name)
            if method is not None and not getattr(method, "_binds_secrets", False):
                setattr(cls, name, _binding_secrets(method))
        check = cls.__dict__.get("check")
        if check is not None and not getattr(check, "_for_engine", False):
            @functools.wraps(check)
            def checked(self: Any, olds: dict[str, Any], news: dict[str, Any]) -> CheckResult:
                result = check(self, one_spelling(olds), one_spelling(news))  # unknowns: one spelling
                if isinstance(news, dict) and PROVIDER_KEY in news:
                    top_level = set(news)
                    result.failures = [CheckFailure(*for_engine(f.property, f.reason, top_level))
                                       for f in result.failures or []]
                return result

            checked._for_engine = True  # type: ignore[attr-defined]
            cls.check = checked  # type: ignore[method-assign]

    def configure(self, req: ConfigureRequest) -> None:
        start_orphan_watchdog()
        serve_engine_calls()
        self._config = req.config  # kept for another service's settings (a bucket lists the jobs)
        try:
            self._settings = self._resolve(lambda k: req.config.get(f"{NAMESPACE}:{k}"), os.environ)
            self._config_error = None
        except self._bad_config as err:
            self._settings, self._config_error = None, str(err)
        try:  # refused: no former name is believed, and every check says why (core/renames.py)
            RENAMES.configure(req.config.get(f"{NAMESPACE}:{RENAMED_FROM_KEY}"))
        except RenameRefused as err:
            self._config_error = self._config_error or str(err)

    def _modelarts(self) -> Any:
        """The ModelArts client of this provider's `modelarts:` config (else the environment), for a provider of
        another service; ProviderConfigError when it names no usable ModelArts settings."""
        config = self._config
        return client_for(resolve_settings(lambda k: config.get(f"{NAMESPACE}:{k}") if config is not None else None,
                                           os.environ))

    def _require_settings(self) -> S:
        if self._settings is None:
            if self._config_error is None:  # configure() not called (e.g. direct use): read env only
                try:
                    self._settings = self._resolve(lambda _k: None, os.environ)
                except self._bad_config as err:
                    self._config_error = str(err)
            if self._settings is None:
                raise self._unusable(self._config_error or self._missing)
        return self._settings


class ModelArtsProvider(SettingsProvider[ProviderSettings]):
    _resolve = staticmethod(resolve_settings)
    _bad_config = ProviderConfigError
    _unusable = ProviderError
    _missing = "provider settings missing"

    def _api(self) -> Any:
        return client_for(self._require_settings())

    def _checked(self, olds: dict[str, Any], news: dict[str, Any],
                 check: Callable[[dict[str, Any]], Checked[Any]]) -> CheckResult:
        """check()'s answer for a resource whose inputs are kept as given: the inputs (the owner mark's key, made
        from the stack's seed, a secret of its own: core/ownership.py; the seed never kept), one failure per bad
        field, and unusable provider settings as one more (they fail the preview here rather than the first API
        call)."""
        news = keyed(news, olds)
        out = [CheckFailure(f.property, f.reason) for f in check(news).failures]
        if self._config_error is not None:
            out.append(CheckFailure("modelarts", f"provider configuration: {self._config_error}"))
        return CheckResult(with_key_secret(keyed(news, None)), out)



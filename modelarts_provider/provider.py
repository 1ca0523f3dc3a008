"""TrainingJobProvider: the dynamic provider behind TrainingJob.

Pickled into the state by reference (this module must stay importable) and holding nothing at
pickling time: settings and the client are built in the provider process, in configure() and on
first use. check/diff make no API call.
"""

from __future__ import annotations

import os
import sys
import threading
from typing import Any

from pulumi.dynamic import (CheckFailure, CheckResult, ConfigureRequest, CreateResult, DiffResult,
                            ReadResult, ResourceProvider, UpdateResult)

from . import jobs
from .args import TrainingJobArgs
from .checking import OUTPUT_KEYS, check_inputs
from .diffing import decide
from .outputs import status_outputs
from .provider_config import NAMESPACE, ProviderConfigError, ProviderSettings, resolve_settings


def _say(message: str) -> None:
    # Provider stdout/stderr is relayed by the engine; flush so phases show as they happen.
    print(message, file=sys.stderr, flush=True)


def _inputs_of(props: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in props.items() if k not in OUTPUT_KEYS and not k.startswith("__")}


class TrainingJobProvider(ResourceProvider):
    # The serialized provider holds no secret (see module docstring); keep it plain in the state.
    serialize_as_secret_always = False

    # Class-level defaults: an instance pickles with an empty __dict__.
    _settings: ProviderSettings | None = None
    _config_error: str | None = None
    _client: Any = None
    _lock: threading.Lock | None = None

    def configure(self, req: ConfigureRequest) -> None:
        self._lock = threading.Lock()
        try:
            self._settings = resolve_settings(lambda k: req.config.get(f"{NAMESPACE}:{k}"), os.environ)
            self._config_error = None
        except ProviderConfigError as err:
            self._settings, self._config_error = None, str(err)

    # --- client ----------------------------------------------------------------------------------

    def _api(self) -> Any:
        if self._client is not None:
            return self._client
        if self._lock is None:
            self._lock = threading.Lock()
        with self._lock:
            if self._client is None:
                settings = self._require_settings()
                from .client import ModelArtsClient

                self._client = ModelArtsClient(settings.to_client_settings())
        return self._client

    def _require_settings(self) -> ProviderSettings:
        if self._settings is None:
            if self._config_error is None:  # configure() not called (e.g. direct use): read env only
                try:
                    self._settings = resolve_settings(lambda _k: None, os.environ)
                except ProviderConfigError as err:
                    self._config_error = str(err)
            if self._settings is None:
                raise jobs.TrainingJobError(self._config_error or "provider settings missing")
        return self._settings

    def _status(self, job: Any) -> dict[str, Any]:
        s = self._require_settings()
        return status_outputs(job, cloud=s.cloud, region=s.region)

    # --- lifecycle -------------------------------------------------------------------------------

    def check(self, _olds: dict[str, Any], news: dict[str, Any]) -> CheckResult:
        inputs, failures = check_inputs(news)
        out = [CheckFailure(f.property, f.reason) for f in failures]
        if self._config_error is not None:
            out.append(CheckFailure("modelarts", f"provider configuration: {self._config_error}"))
        return CheckResult(inputs, out)

    def diff(self, id_: str, olds: dict[str, Any], news: dict[str, Any]) -> DiffResult:
        d = decide(id_, olds, news)
        return DiffResult(changes=d.changes, replaces=d.replaces or None,
                          delete_before_replace=d.delete_before_replace if d.replaces else None)

    def create(self, props: dict[str, Any]) -> CreateResult:
        args = TrainingJobArgs.model_validate(_inputs_of(props))
        job = jobs.create(self._api(), args, _say)
        return CreateResult(job.id, {**args.model_dump(mode="json"), **self._status(job)})

    def read(self, id_: str, props: dict[str, Any]) -> ReadResult:
        job = self._api().get_job(id_)
        if job is None:
            _say(f"job {id_}: gone, dropping it from the state")
            return ReadResult("", {})
        inputs = _inputs_of(props)
        # Description is the one field that can drift in place; show it so the next up restores it.
        if job.description is not None and "description" in inputs:
            inputs["description"] = job.description
        return ReadResult(id_, {**inputs, **self._status(job)})

    def update(self, id_: str, olds: dict[str, Any], news: dict[str, Any]) -> UpdateResult:
        args = TrainingJobArgs.model_validate(_inputs_of(news))
        status = {k: olds.get(k) for k in OUTPUT_KEYS}
        if (olds.get("description") or "") != args.description:
            job = self._api().update_description(id_, args.description)
            _say(f"{job.name}: description updated")
            status = self._status(job)
        return UpdateResult({**args.model_dump(mode="json"), **status})

    def delete(self, id_: str, props: dict[str, Any]) -> None:
        timeout = props.get("delete_timeout_seconds") or 900
        poll = props.get("poll_interval_seconds") or 5.0
        jobs.stop_and_delete(self._api(), id_, float(timeout), float(poll), _say)

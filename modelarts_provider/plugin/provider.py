"""The provider plugin's front door: the engine's async provider protocol (pulumi.provider.experimental)
translated into calls of the same dynamic-provider objects a Python program uses.

One object per resource type per plugin process, configured from the `modelarts:` namespace like the dynamic
providers. Their calls are blocking (HTTP, waits), so each runs on a thread of a pool far larger than the
dynamic-provider server's 4 threads: the engine's own parallelism is the only cap. Nothing is pickled: the state
holds the resource's inputs and outputs only.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from pulumi.dynamic import ConfigureRequest as DynamicConfigureRequest
from pulumi.dynamic.config import Config as DynamicConfig
from pulumi.provider.experimental import provider as p

from ..core.provider_base import SettingsProvider, request_cancel
from ..core.provider_config import NAMESPACE
from .doors import DOORS, PACKAGE, Context, Door
from .names import Names
from .schema import schema, snake_schema
from .values import plain_map, property_map

T = TypeVar("T")
THREADS = 256  # blocking provider calls in flight at once (a JobsAwait holds one for its whole wait)
VERSION = "0.1.0"


def _config_of(request: p.ConfigureRequest) -> dict[str, Any]:
    """`modelarts:<key>` -> value, from the typed args (and the older `modelarts:config:<key>` variables)."""
    out: dict[str, Any] = {}
    for full, value in request.variables.items():
        ns, _, key = full.partition(":config:")
        if ns == NAMESPACE and key:
            out[f"{NAMESPACE}:{key}"] = value
    for key, value in plain_map(request.args).items():
        if value is not None:
            out[f"{NAMESPACE}:{key}"] = str(value).lower() if isinstance(value, bool) else \
                (str(int(value)) if isinstance(value, float) and value.is_integer() else str(value))
    return out


def _restore(outs: dict[str, Any], given: dict[str, Any], sent: dict[str, Any]) -> dict[str, Any]:
    """The state records the inputs as declared, not as a customTimeout rewrote them for the call."""
    return {**outs, **{k: given[k] for k in given if k in outs and sent.get(k) != given[k]}}


def _type_name(urn: str) -> str:
    """TrainingJob of urn:pulumi:<stack>::<project>::modelarts:index:TrainingJob::<name> (or of a type token)."""
    return (urn.split("::")[-2] if "::" in urn else urn).rsplit(":", 1)[-1]


class ModelArtsPlugin(p.Provider):
    def __init__(self) -> None:
        self._providers: dict[str, SettingsProvider[Any]] = {name: door.provider() for name, door in DOORS.items()}
        self._pool = ThreadPoolExecutor(max_workers=THREADS, thread_name_prefix="modelarts")
        # The schema's camelCase names <-> the providers' snake_case ones, at this edge only (names.py).
        self._names = Names(snake_schema(VERSION))

    def _in(self, urn: str, values: Any) -> dict[str, Any]:
        return self._names.to_snake(_type_name(urn), plain_map(values))

    def _out(self, urn: str, values: dict[str, Any]) -> Any:
        return property_map(self._names.to_camel(_type_name(urn), values))

    async def _run(self, fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._pool, fn, *args)

    def _door(self, urn: str) -> tuple[Door, Any]:
        type_token = urn.split("::")[-2] if "::" in urn else urn
        pkg, _, name = type_token.rpartition(":")
        if not pkg.startswith(f"{PACKAGE}:") or name not in DOORS:
            raise ValueError(f"unknown resource type {type_token}: this provider serves "
                             + ", ".join(f"{PACKAGE}:index:{n}" for n in DOORS))
        return DOORS[name], self._providers[name]

    async def get_schema(self, request: p.GetSchemaRequest) -> p.GetSchemaResponse:
        return p.GetSchemaResponse(schema=json.dumps(schema(VERSION)))

    async def configure(self, request: p.ConfigureRequest) -> p.ConfigureResponse:
        config = DynamicConfigureRequest(DynamicConfig(_config_of(request), NAMESPACE))
        for provider in self._providers.values():
            provider.configure(config)
        # No secrets in: the engine sends them plain and marks the outputs of secret inputs secret again.
        # No preview calls: create/update run only for real (check/diff already make no API call).
        return p.ConfigureResponse(accept_secrets=False, supports_preview=False, accept_resources=False,
                                   accept_outputs=False)

    async def check(self, request: p.CheckRequest) -> p.CheckResponse:
        door, provider = self._door(request.urn)
        olds, news = self._in(request.urn, request.old_inputs), self._in(request.urn, request.new_inputs)
        news = door.prepare(Context(request.urn, request.random_seed), olds, news)
        result = await self._run(provider.check, olds, news)
        return p.CheckResponse(inputs=self._out(request.urn, result.inputs),
                               failures=[p.CheckFailure(self._names.path(f.property), f.reason)
                                         for f in result.failures or []])

    async def diff(self, request: p.DiffRequest) -> p.DiffResponse:
        _door, provider = self._door(request.urn)
        olds, news = self._in(request.urn, request.old_state), self._in(request.urn, request.new_inputs)
        result = await self._run(provider.diff, request.resource_id, olds, news)
        replaces = [self._names.key(k) for k in result.replaces or []]
        kind = _type_name(request.urn)
        olds, news = self._names.to_camel(kind, olds), self._names.to_camel(kind, news)
        detailed: dict[str, p.PropertyDiff] = {}
        if result.changes:
            for key in sorted(set(news) | set(replaces)):
                if key in replaces:
                    detailed[key] = p.PropertyDiff(p.PropertyDiffKind.UPDATE_REPLACE, True)
                elif olds.get(key) != news.get(key):
                    detailed[key] = p.PropertyDiff(p.PropertyDiffKind.UPDATE, True)
        return p.DiffResponse(changes=bool(result.changes), replaces=replaces,
                              delete_before_replace=bool(result.delete_before_replace),
                              diffs=sorted(detailed), detailed_diff=detailed)

    async def create(self, request: p.CreateRequest) -> p.CreateResponse:
        door, provider = self._door(request.urn)
        given = self._in(request.urn, request.properties)
        sent = door.timeouts("create", given, request.timeout) if request.timeout else given
        result = await self._run(provider.create, sent)
        return p.CreateResponse(resource_id=result.id,
                                properties=self._out(request.urn, _restore(result.outs or {}, given, sent)))

    async def read(self, request: p.ReadRequest) -> p.ReadResponse:
        door, provider = self._door(request.urn)
        props = self._in(request.urn, request.properties)
        if not props:  # `pulumi import`: nothing recorded yet, the live object says what to declare
            inputs, outs = await self._run(door.importer, provider, request.resource_id, Context(request.urn))
            return p.ReadResponse(resource_id=request.resource_id, properties=self._out(request.urn, outs),
                                  inputs=self._out(request.urn, inputs))
        result = await self._run(provider.read, request.resource_id, props)
        if not result.id:  # gone: the engine drops it from the state
            return p.ReadResponse(resource_id="", properties={}, inputs={})
        return p.ReadResponse(resource_id=result.id, properties=self._out(request.urn, result.outs or {}),
                              inputs=request.inputs)

    async def update(self, request: p.UpdateRequest) -> p.UpdateResponse:
        door, provider = self._door(request.urn)
        olds, given = self._in(request.urn, request.olds), self._in(request.urn, request.news)
        sent = door.timeouts("update", given, request.timeout) if request.timeout else given
        result = await self._run(provider.update, request.resource_id, olds, sent)
        return p.UpdateResponse(properties=self._out(request.urn, _restore(result.outs or {}, given, sent)))

    async def delete(self, request: p.DeleteRequest) -> None:
        door, provider = self._door(request.urn)
        props = self._in(request.urn, request.properties)
        sent = door.timeouts("delete", props, request.timeout) if request.timeout else props
        await self._run(provider.delete, request.resource_id, sent)

    async def cancel(self) -> None:
        request_cancel()

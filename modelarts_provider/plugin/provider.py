"""The provider plugin's front door: the engine's async provider protocol (pulumi.provider.experimental)
translated into calls of the same dynamic-provider objects a Python program uses.

One object per resource type per plugin process, configured from the `modelarts:` namespace like the dynamic
providers. Their calls are blocking (HTTP, waits), so each runs on a thread of a pool far larger than the
dynamic-provider server's 4 threads: the engine's own parallelism is the only cap; what a call prints goes to
the engine's log, attached to its resource (diagnostics.py). Nothing is pickled: the state holds the resource's
inputs and outputs only.

Secrets are accepted: the secret values the engine sends with a call are what that call masks (bound for the call,
masking.binding; never kept for another resource), a job's secret inputs are recorded as its `secret_paths` (what
the stack program sets on the dynamic path), and what goes back is secret where the inputs were, plus the outputs
built from secret inputs (the door's `secret_outputs`).
"""

from __future__ import annotations

import asyncio
import contextvars
import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from pulumi.dynamic import ConfigureRequest as DynamicConfigureRequest
from pulumi.dynamic.config import Config as DynamicConfig
from pulumi.provider.experimental import provider as p
from pulumi.provider.experimental.property_value import PropertyValue

from ..awaiting.provider import JobsAwaitProvider
from ..core.call_urn import CURRENT_URN
from ..core.failures import for_engine
from ..core.job_secrets import secret_inputs
from ..core.identity import is_seed, new_seed
from ..core.masking import Secrets, binding
from ..core.recorded_failure import RecordedFailure
from ..core.provider_server import CALLS_IN_FLIGHT  # blocking calls in flight at once
from ..core.provider_base import SettingsProvider
from ..core.output_lines import say
from ..core.provider_config import NAMESPACE
from ..core.unknowns import is_unknown
from ..cost.plugin_cost import BudgetError, Tally, job_items, parse_budget, parse_prices, pool_items, price_for
from ..resource_pool.provider import ResourcePoolProvider
from ..training_job.catalog_check import needs_check
from ..training_job.normalize import try_canonical
from ..training_job.outputs import strip_outputs
from ..training_job.provider import TrainingJobProvider
from ..wait_engine import request_cancel
from .doors import DOORS, PACKAGE, Context, Door
from .names import Names
from .schema import schema, snake_schema
from .values import lift_secrets, plain_map, property_map, secret_paths, secret_values

T = TypeVar("T")
VERSION = "0.1.0"
# The stack's owner seed (modelarts_provider.core.identity) among the provider's own inputs: minted by
# check_config when the recorded provider has none, so the engine records it (secret) before any resource using it.
SEED_KEY = "ownerSeed"
# The provider's budget and prices table (cost/plugin_cost.py): read by the plugin itself, not client settings.
BUDGET_KEY, PRICES_KEY = "budget", "prices"
COST_KEYS = frozenset({BUDGET_KEY, PRICES_KEY})


def _config_of(request: p.ConfigureRequest) -> dict[str, Any]:
    """`modelarts:<key>` -> value, from the typed args (and the older `modelarts:config:<key>` variables)."""
    out: dict[str, Any] = {}
    for full, value in request.variables.items():
        ns, _, key = full.partition(":config:")
        if ns == NAMESPACE and key and key not in COST_KEYS:
            out[f"{NAMESPACE}:{key}"] = value
    for key, value in plain_map(request.args).items():
        if value is not None and key != SEED_KEY and key not in COST_KEYS:
            out[f"{NAMESPACE}:{key}"] = str(value).lower() if isinstance(value, bool) else \
                (str(int(value)) if isinstance(value, float) and value.is_integer() else str(value))
    return out


def _restore(outs: dict[str, Any], given: dict[str, Any], sent: dict[str, Any]) -> dict[str, Any]:
    """The state records the inputs as declared, not as a customTimeout rewrote them for the call."""
    return {**outs, **{k: given[k] for k in given if k in outs and sent.get(k) != given[k]}}


def _type_name(urn: str) -> str:
    """TrainingJob of urn:pulumi:<stack>::<project>::modelarts:index:TrainingJob::<name> (or of a type token)."""
    return (urn.split("::")[-2] if "::" in urn else urn).rsplit(":", 1)[-1]


def _anchored(outs: dict[str, Any], paths: list[str]) -> list[str]:
    """Each secret path, or its deepest part that the outputs still have (check may reshape a value, e.g.
    parameters as a map -> a list): what is secret in the inputs stays secret, perhaps with its neighbours."""
    out = []
    for path in paths:
        value: Any = outs
        kept: list[str] = []
        for part in path.split("."):
            if isinstance(value, dict) and part in value:
                value = value[part]
            elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
                value = value[int(part)]
            else:
                break
            kept.append(part)
        if kept:
            out.append(".".join(kept))
    return out


def _marked(door: Door, *maps: Any) -> Secrets:
    """The secret values the engine sent with a call (its markers), but those of the inputs the provider hands to
    masking per item itself (the door's `item_secrets`: a JobsAwait's `secrets`, each job's own)."""
    return Secrets.of(value for values in maps
                      for value in secret_values({k: v for k, v in (values or {}).items()
                                                  if k not in door.item_secrets}))


def _submitted(olds: dict[str, Any], inputs: dict[str, Any]) -> bool:
    """The job will be submitted (new, or its spec changed): compared in canonical form, as the catalog check."""
    canonical = try_canonical(strip_outputs(inputs))
    return needs_check(olds, canonical if canonical is not None else inputs)


def _cost_config(request: p.ConfigureRequest, key: str) -> Any:
    """`modelarts:budget` or `modelarts:prices` as the engine sends it: a typed arg, else the older config
    variable (JSON text)."""
    given = request.args.get(key)
    if given is not None:
        return plain_map({key: given})[key]
    return request.variables.get(f"{NAMESPACE}:config:{key}")


def _pool_changes(olds: dict[str, Any], inputs: dict[str, Any]) -> bool:
    """A pool about to be created or rescaled (what this update makes it bill)."""
    return not olds or olds.get("resources") != inputs.get("resources")


def _say_cost(tally: Tally, provider: Any, door: str, urn: str, inputs: dict[str, Any]) -> str | None:
    """What a job about to be submitted or a pool about to be created can bill, and the total of the resources
    checked so far (cost/plugin_cost.py), under its resource. The budget's one line when it is exceeded (the
    check fails); a price that cannot be had is said and never fails a check without a budget."""
    name = urn.rsplit("::", 1)[-1]
    settings = getattr(provider, "_settings", None)
    try:
        if door == "ResourcePool":
            flavors = {r["flavor"] for r in inputs.get("resources") or []
                       if isinstance(r, dict) and isinstance(r.get("flavor"), str) and not is_unknown(r["flavor"])}
            book = price_for(settings, set(), flavors, tally)
            found = pool_items(name, inputs, book, tally.budget.pool_hours if tally.budget else None)
        else:
            flavor = inputs.get("flavor_id")
            wanted = {flavor} if isinstance(flavor, str) and not is_unknown(flavor) and not inputs.get("pool_id") \
                else set()
            book = price_for(settings, wanted, set(), tally)
            found = job_items(name, inputs, book)
        if book is None:
            return None  # prices not asked for
        if not found:  # the flavor or node count is another resource's output, not known yet
            fields = "resources" if door == "ResourcePool" else "flavorId and nodeCount"
            return (f"modelarts:budget: {name}'s {fields} must be known at preview to be held to the budget: give "
                    "them as values, not another resource's outputs") if tally.budget else None
        lines, refused = tally.say(name, found, book)
    except Exception as err:  # noqa: BLE001 - a price is information, not a precondition, without a budget
        if tally.budget is not None:
            return f"modelarts:budget: {name} cannot be priced ({type(err).__name__})"
        say(f"cost: {name}: no price ({type(err).__name__})")
        return None
    for line in lines:
        say(line)
    return refused


def _bound(secrets: Secrets, fn: Callable[..., T], *args: Any) -> T:
    with binding(secrets):
        return fn(*args)


class ModelArtsPlugin(p.Provider):
    def __init__(self) -> None:
        self._providers: dict[str, SettingsProvider[Any]] = {name: door.provider() for name, door in DOORS.items()}
        self._pool = ThreadPoolExecutor(max_workers=CALLS_IN_FLIGHT, thread_name_prefix="modelarts")
        # The schema's camelCase names <-> the providers' snake_case ones, at this edge only (names.py).
        self._names = Names(snake_schema(VERSION))
        self._seed = ""
        self._cost = Tally()  # this run's cost items and the provider's budget (one process per provider)
        # Each TrainingJob's secret inputs {path: value} by its job id, as that job's own calls showed them: a YAML
        # program's JobsAwait names its jobs by id only, and hands no `secrets` unless its author writes them; the
        # wait then masks each job with that job's secrets (and only there), as the Python door's `await_jobs`
        # hands them. Never recorded (stripped from what the JobsAwait returns), never a mask of its own.
        self._job_secrets: dict[str, dict[str, Any]] = {}

    def _note_job(self, door: Door, job_id: str, props: dict[str, Any]) -> None:
        if door.provider is TrainingJobProvider and job_id:
            found = secret_inputs(props)
            if found:
                self._job_secrets[job_id] = found

    def _handed(self, door: Door, props: dict[str, Any]) -> dict[str, Any]:
        """A JobsAwait's inputs with each awaited job's secrets its program did not hand (see _job_secrets)."""
        jobs = props.get("jobs")
        if door.provider is not JobsAwaitProvider or not isinstance(jobs, dict):
            return props
        given = props.get("secrets") if isinstance(props.get("secrets"), dict) else {}
        known = {key: self._job_secrets[j["job_id"]] for key, j in jobs.items() if key not in given
                 and isinstance(j, dict) and isinstance(j.get("job_id"), str) and j["job_id"] in self._job_secrets}
        return {**props, "secrets": {**given, **known}} if known else props

    @staticmethod
    def _unhanded(outs: dict[str, Any], given: dict[str, Any]) -> dict[str, Any]:
        """What the engine records: the `secrets` as the program gave them, not as _handed added to them."""
        if "secrets" not in outs:
            return outs
        if "secrets" in given:
            return {**outs, "secrets": given["secrets"]}
        return {k: v for k, v in outs.items() if k != "secrets"}

    def _in(self, urn: str, values: Any) -> dict[str, Any]:
        return self._names.to_snake(_type_name(urn), plain_map(values))

    def _out(self, urn: str, values: dict[str, Any], secret: Any = None) -> Any:
        """The providers' values -> the engine's: camelCase, secret at the paths of `secret` (the request's
        property values whose secrets stay secret) and at the outputs the door builds from them."""
        values, leaves = lift_secrets(values)  # values secret on their own (a secret search value's trials)
        camel = self._names.to_camel(_type_name(urn), values)
        paths = secret_paths(secret) if secret is not None else []
        derived = DOORS[_type_name(urn)].secret_outputs([self._snake_path(p) for p in paths]) if paths else []
        return property_map(camel, _anchored(camel, paths) + [self._names.key(k) for k in derived]
                            + [".".join(self._names.key(part) for part in leaf.split(".")) for leaf in leaves])

    def _snake_path(self, path: str) -> str:
        """A camelCase property path (from the engine's values) in the providers' naming."""
        return ".".join(self._names.snake_key(part) for part in path.split("."))

    async def _run(self, urn: str, secrets: Secrets, fn: Callable[..., T], *args: Any) -> T:
        """fn(*args) on a thread of the pool; what it prints is attached to the resource `urn` (diagnostics.py)
        and masks the call's secrets (its inputs' secret markers) besides what the provider binds itself."""
        context = contextvars.copy_context()
        context.run(CURRENT_URN.set, urn)
        return await asyncio.get_running_loop().run_in_executor(self._pool, context.run, _bound, secrets, fn, *args)

    def _door(self, urn: str) -> tuple[Door, Any]:
        type_token = urn.split("::")[-2] if "::" in urn else urn
        pkg, _, name = type_token.rpartition(":")
        if not pkg.startswith(f"{PACKAGE}:") or name not in DOORS:
            raise ValueError(f"unknown resource type {type_token}: this provider serves "
                             + ", ".join(f"{PACKAGE}:index:{n}" for n in DOORS))
        return DOORS[name], self._providers[name]

    async def get_schema(self, request: p.GetSchemaRequest) -> p.GetSchemaResponse:
        return p.GetSchemaResponse(schema=json.dumps(schema(VERSION)))

    async def check_config(self, request: p.CheckRequest) -> p.CheckResponse:
        """The provider's inputs as given, plus the stack's owner seed: the recorded one, else a new one. Never
        shown as a change (the engine compares it with the recorded one, the same)."""
        inputs = dict(request.new_inputs)
        recorded = request.old_inputs.get(SEED_KEY)
        seed = recorded.value if recorded is not None and is_seed(recorded.value) else new_seed()
        inputs[SEED_KEY] = PropertyValue(seed, is_secret=True)
        return p.CheckResponse(inputs=inputs)

    async def configure(self, request: p.ConfigureRequest) -> p.ConfigureResponse:
        seed = request.args.get(SEED_KEY)
        self._seed = seed.value if seed is not None and is_seed(seed.value) else ""
        try:
            self._cost.budget = parse_budget(_cost_config(request, BUDGET_KEY))
            self._cost.prices = parse_prices(_cost_config(request, PRICES_KEY))
        except BudgetError as err:
            raise ValueError(str(err)) from None
        config = DynamicConfigureRequest(DynamicConfig(_config_of(request), NAMESPACE))
        for provider in self._providers.values():
            provider.configure(config)
        # Secrets in, marked: the providers learn and mask them, and the outputs built from them are secret.
        # No preview calls: create/update run only for real (check/diff already make no API call).
        return p.ConfigureResponse(accept_secrets=True, supports_preview=False, accept_resources=False,
                                   accept_outputs=False)

    async def check(self, request: p.CheckRequest) -> p.CheckResponse:
        door, provider = self._door(request.urn)
        secrets = _marked(door, request.old_inputs, request.new_inputs)
        olds, news = self._in(request.urn, request.old_inputs), self._in(request.urn, request.new_inputs)
        news = door.prepare(Context(request.urn, self._seed), olds, news)
        secret = [self._snake_path(path) for path in secret_paths(request.new_inputs)]
        if secret and door.provider is TrainingJobProvider:  # what the stack program sets on the dynamic path
            news["secret_paths"] = sorted(set(news.get("secret_paths") or []) | set(secret))
        result = await self._run(request.urn, secrets, provider.check, olds, news)
        failures = [self._failure(f.property, f.reason, set(request.new_inputs)) for f in result.failures or []]
        if not failures and (
                (door.provider is TrainingJobProvider and _submitted(olds, result.inputs))
                or (door.provider is ResourcePoolProvider and _pool_changes(olds, result.inputs))):
            refused = await self._run(request.urn, secrets, _say_cost, self._cost, provider, _type_name(request.urn),
                                      request.urn, result.inputs)
            if refused:
                failures.append(p.CheckFailure("", refused))
        return p.CheckResponse(inputs=self._out(request.urn, result.inputs, request.new_inputs), failures=failures)

    def _failure(self, prop: str, reason: str, top_level: set[str]) -> p.CheckFailure:
        """A provider's check failure in the schema's naming, as the engine prints it well (failures.for_engine)."""
        return p.CheckFailure(*for_engine(self._names.path(prop) if prop else "", reason, top_level))

    async def diff(self, request: p.DiffRequest) -> p.DiffResponse:
        _door, provider = self._door(request.urn)
        secrets = _marked(_door, request.old_state, request.new_inputs)
        olds, news = self._in(request.urn, request.old_state), self._in(request.urn, request.new_inputs)
        self._note_job(_door, request.resource_id, olds)
        result = await self._run(request.urn, secrets, provider.diff, request.resource_id, olds, news)
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
        secrets = _marked(door, request.properties)
        given = self._in(request.urn, request.properties)
        sent = door.timeouts("create", given, request.timeout) if request.timeout else given
        try:
            result = await self._run(request.urn, secrets, provider.create, self._handed(door, sent))
        except RecordedFailure as err:  # failed, its outputs recorded all the same (core/recorded_failure.py)
            raise err.with_converted(self._out(
                request.urn, self._unhanded(_restore(door.outputs(err.outs), given, sent), given),
                request.properties)) from None
        self._note_job(door, result.id, sent)
        return p.CreateResponse(resource_id=result.id, properties=self._out(
            request.urn, self._unhanded(_restore(door.outputs(result.outs or {}), given, sent), given),
            request.properties))

    async def read(self, request: p.ReadRequest) -> p.ReadResponse:
        door, provider = self._door(request.urn)
        secrets = _marked(door, request.properties, request.inputs)
        props = self._in(request.urn, request.properties)
        if not props:  # `pulumi import`: nothing recorded yet, the live object says what to declare
            inputs, outs = await self._run(request.urn, secrets, door.importer, provider, request.resource_id,
                                           Context(request.urn, self._seed))
            return p.ReadResponse(resource_id=request.resource_id, properties=self._out(request.urn, outs),
                                  inputs=self._out(request.urn, inputs))
        self._note_job(door, request.resource_id, props)
        result = await self._run(request.urn, secrets, provider.read, request.resource_id, self._handed(door, props))
        if not result.id:  # gone: the engine drops it from the state
            return p.ReadResponse(resource_id="", properties={}, inputs={})
        return p.ReadResponse(resource_id=result.id, inputs=request.inputs, properties=self._out(
            request.urn, self._unhanded(door.outputs(result.outs or {}), props),
            {**request.inputs, **request.properties}))

    async def update(self, request: p.UpdateRequest) -> p.UpdateResponse:
        door, provider = self._door(request.urn)
        secrets = _marked(door, request.olds, request.news)
        olds, given = self._in(request.urn, request.olds), self._in(request.urn, request.news)
        sent = door.timeouts("update", given, request.timeout) if request.timeout else given
        self._note_job(door, request.resource_id, sent)
        try:
            result = await self._run(request.urn, secrets, provider.update, request.resource_id, olds,
                                     self._handed(door, sent))
        except RecordedFailure as err:
            raise err.with_converted(self._out(
                request.urn, self._unhanded(_restore(door.outputs(err.outs), given, sent), given),
                request.news)) from None
        return p.UpdateResponse(properties=self._out(
            request.urn, self._unhanded(_restore(door.outputs(result.outs or {}), given, sent), given),
            request.news))

    async def delete(self, request: p.DeleteRequest) -> None:
        door, provider = self._door(request.urn)
        secrets = _marked(door, request.properties)
        props = self._in(request.urn, request.properties)
        sent = door.timeouts("delete", props, request.timeout) if request.timeout else props
        await self._run(request.urn, secrets, provider.delete, request.resource_id, sent)

    async def cancel(self) -> None:
        request_cancel()

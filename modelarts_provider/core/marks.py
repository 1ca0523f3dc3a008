"""The owner mark a program-side resource carries (a network, a pool; a job's is derived from the stack seed).

Pulumi-side helpers of ownership (core/ownership.py): the mark is a RandomId created as this resource's companion,
so it is in the state before the object's POST and stays the same across edits and moves.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping
from typing import Any, TypedDict

import pulumi
import pulumi_random as random
from pulumi.dynamic import Resource, ResourceProvider
from pydantic import BaseModel

from .identity import SEED_INPUT


def companion_opts(opts: pulumi.ResourceOptions, suffix: str) -> pulumi.ResourceOptions:
    """Options of a resource that belongs to this one (`<name><suffix>`): same parent, and the aliases
    of this one's earlier names, so a moved job keeps its name suffix and owner token."""
    aliases = [pulumi.Alias(name=f"{a.name}{suffix}") for a in (opts.aliases or [])
               if isinstance(a, pulumi.Alias) and isinstance(a.name, str)]
    return pulumi.ResourceOptions(parent=opts.parent, provider=None, aliases=aliases or None)


SEED_RESOURCE = "modelarts-owner-seed"
SEED_LENGTH = 48
_SEED: tuple[object, pulumi.Output[str]] | None = None


def stack_seed() -> pulumi.Output[str]:
    """The stack's owner seed (modelarts_provider.core.identity): one secret RandomPassword per stack, created before
    any resource that uses it (an input of each job, pool and network), from which check derives each job's owner
    token and derived name, and every resource's mark key. One per program run: an Automation API process may run
    the program more than once."""
    global _SEED
    root = pulumi.runtime.settings.get_root_resource()
    if _SEED is None or _SEED[0] is not root:
        password = random.RandomPassword(SEED_RESOURCE, length=SEED_LENGTH, special=False)
        _SEED = (root, password.result)  # secret: RandomPassword's result always is
    return _SEED[1]


def stack_label() -> str:
    return f"{pulumi.get_organization()}/{pulumi.get_project()}/{pulumi.get_stack()}"


def owner_mark(resource_name: str, opts: pulumi.ResourceOptions) -> dict[str, Any]:
    """The owner mark of a network or a pool (modelarts_provider.core.ownership): its token is a RandomId created
    before the object, so it is in the state before the POST, and stays the same across edits."""
    token = random.RandomId(f"{resource_name}-owner", byte_length=8, opts=companion_opts(opts, "-owner"))
    return {"stack": stack_label(), "resource": resource_name, "token": token.hex}


def owned_props(resource_name: str, args: Mapping[str, Any], opts: pulumi.ResourceOptions,
                output_keys: Any) -> dict[str, Any]:
    """The props of a resource that carries an owner mark (a network, a pool): the args, this resource's mark
    unless given, and its outputs declared (None) so the engine knows them at preview."""
    props: dict[str, Any] = dict(args)
    if props.get("owner") is None:
        props["owner"] = owner_mark(resource_name, opts)
    props[SEED_INPUT] = stack_seed()  # check makes it the owner mark's key (core/ownership.py), never recorded
    for key in output_keys:
        props.setdefault(key, None)
    return props


class OwnedResource(Resource):
    """A dynamic resource whose object carries an owner mark (a network, a pool): a subclass names its provider
    and output keys; its props are the args, its mark unless given, and its outputs declared for preview."""

    PROVIDER: ResourceProvider
    OUTPUT_KEYS: Any = ()

    def __init__(self, resource_name: str, args: Mapping[str, Any],
                 opts: pulumi.ResourceOptions | None = None) -> None:
        opts = opts or pulumi.ResourceOptions()
        props = owned_props(resource_name, args, opts, self.OUTPUT_KEYS)
        super().__init__(self.PROVIDER, resource_name, props, opts)


def inputs_of(name: str, model: type[BaseModel], skip: frozenset[str] = frozenset(),
              typed: Mapping[str, Any] | None = None) -> Any:
    """A resource's typed inputs (a TypedDict, every key optional) derived from its model, the one declaration of
    its fields (core/fields.py): each field as its declaration takes it, any value a pulumi.Input; `typed` spells out a
    field's type for the program (a nested TypedDict), `skip` leaves out what the resource sets itself."""
    fields = {name: pulumi.Input[(typed or {}).get(name, info.annotation)]  # type: ignore[name-defined]
              for name, info in model.model_fields.items() if name not in skip}
    return TypedDict(name, fields, total=False)  # type: ignore[operator]


def outputs_of(model: type[BaseModel]) -> dict[str, Any]:
    """A resource class's output attributes (its annotations), derived from the one model of its outputs. The SDK
    reads them to translate the outputs it resolves: a nested model is a plain dict there (only an SDK output type
    would be built), so each is spelt as one."""
    return {name: pulumi.Output[_as_resolved(info.annotation)]  # type: ignore[name-defined]
            for name, info in model.model_fields.items()}


def _as_resolved(tp: Any) -> Any:
    """`tp` with every pydantic model in it as dict[str, Any] (list[Task] -> list[dict[str, Any]])."""
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        return dict[str, Any]
    args = typing.get_args(tp)
    if not args:
        return tp
    plain = tuple(_as_resolved(a) for a in args)
    origin = typing.get_origin(tp)
    if origin is typing.Union or origin is types.UnionType:
        return typing.Union[plain]  # type: ignore[return-value]
    return origin[plain if len(plain) > 1 else plain[0]]  # type: ignore[index]

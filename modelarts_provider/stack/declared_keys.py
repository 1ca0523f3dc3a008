"""A stack config entry's keys that set a resource's argument as it is, made from the argument's own declaration.

A resource field declared with a config key (core/fields.py: `Declared.config`), say a pool's

    description: Annotated[..., Declared(change=Change.IN_PLACE, config="description")]

is a key of the config entry that declares that resource (`pools.<key>.create.description`) with the argument's
type, rules, default and description, so the entry cannot allow what the argument refuses, or the reverse, and a
field added to the resource with a config key is a key of the stack config without a second declaration. The
entry's own fields are the keys that shape their value (a pool's flavor and nodes become its `resources`, its
network key the Network's name). The job entry has its own, richer table (stack/job_fields.py: secrets, OBS paths).
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, Field, create_model
from pydantic.alias_generators import to_snake
from pydantic.fields import FieldInfo

from ..core.fields import ConfigField, configured


def _direct(args: type[BaseModel]) -> dict[str, ConfigField]:
    """entry attribute -> the argument it sets (top-level arguments only)."""
    return {to_snake(c.key): c for c in configured(args) if "." not in c.path}


def field_like(info: FieldInfo, *extra_metadata: Any) -> tuple[Any, Any]:
    """A create_model field with the type, rules (and `extra_metadata`), default and description of `info`."""
    default = Field(default_factory=info.default_factory, description=info.description) \
        if info.default_factory is not None else Field(info.default, description=info.description)
    return Annotated[(info.annotation, *info.metadata, *extra_metadata)], default  # type: ignore[return-value]


def with_arg_keys(entry: type[BaseModel], args: type[BaseModel]) -> type[BaseModel]:
    """`entry` with a field for each argument of `args` declared with a config key that `entry` lacks."""
    extra = {attr: field_like(c.info) for attr, c in _direct(args).items() if attr not in entry.model_fields}
    if not extra:
        return entry
    return create_model(entry.__name__, __base__=entry, __module__=entry.__module__, **extra)


def arg_values(entry: BaseModel, args: type[BaseModel]) -> dict[str, Any]:
    """The arguments (by name) the entry's derived keys set: those the config wrote; the rest keep the argument's
    default, as the resource records it."""
    return {c.path: getattr(entry, attr) for attr, c in _direct(args).items() if attr in entry.model_fields_set}

"""A resource's field, declared once: the facts every layer needs beside the field's type.

    flavor_id: Annotated[str | None, Declared(api="spec.resource.flavor_id"),
                         Field(description="Resource flavor ...")] = None

The pydantic field holds the type, the rules, the default and the description (the plugin schema's text); the
`Declared` beside it says where the value goes and what a change of it does:

- `api`: where it sits in the create request, dotted (`metadata.workspace_id`; a key holding dots bracketed:
  `metadata.labels[os.modelarts/name]`), which is also where the
  service's details give it back: the wire payload (to_wire) and the read-back (from_live) copy it along that
  path; `None`: never in the create body (a provider option, or sent by another API such as the tag API);
- `change`: what a change of it does: replace the resource, update it in place, touch nothing remote
  (a provider option: recorded by an update without API call) or nothing at all (messages only: never a diff);
- `secret`: its values are secret material (masked wherever printed);
- `config`: the key a modelarts-jobs job entry sets it by, as it is (the stack config's mapping), if any; a
  part of a field holding a model (`algorithm.command`) names its key beside its own type instead, with
  `ConfigKey("command")` (the part has no `Declared`: where it goes is its parent's);
- `wire` / `read`: the value's shape on the wire where it is not the canonical value itself (a list of
  volumes wrapped as `{nfs: ...}`), and back; `read` returns None for what a declaration leaves unset;
- `patch` / `drift` (a field changed in place): its form in the update request where not its create form (a pool's
  nodes without maxCount), and the input a live object stands for where not its live value read back (a pool's
  counts onto the declared flavors): the merge patch (patch_body) and the drift a read shows (drifted) come from
  the declarations;
- `unset`: what the field is on the service when it is left out, of a declaration or of a live object's
  details (a takeover compares that, training_job/compare.py): the field's own default (Unset.FIELD_DEFAULT:
  node_count 1, volumes []), a value of the service's (workspace_id: the default workspace "0"), or
  Unset.UNKNOWN where the details may leave out what the object holds (annotations: compared only when given).

Everything else is derived from these (which fields replace, which the stack config maps, the schema's
descriptions, the payload, the read-back, the takeover comparison); tests/provider/test_field_declarations.py checks every field has its declaration.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from enum import Enum
from functools import cache
from typing import Any, get_args

from pydantic import BaseModel
from pydantic.fields import FieldInfo


class Unset(Enum):
    FIELD_DEFAULT = "the field's default"  # a field left out is its pydantic default (None: nothing stated)
    UNKNOWN = "unknown"  # a field left out says nothing: not compared


class Change(Enum):
    REPLACE = "replace"  # the service cannot change it: a new resource
    IN_PLACE = "in place"  # updated by an API call, the resource stays
    PROVIDER = "provider only"  # steers the provider: an update records it, no API call
    IGNORED = "ignored"  # never part of a diff (messages only)


@dataclass(frozen=True)
class Declared:
    api: str | None = None
    change: Change = Change.REPLACE
    secret: bool = False
    config: str | None = None
    wire: Callable[[Any], Any] | None = None
    read: Callable[[Any], Any] | None = None
    unset: Any = Unset.FIELD_DEFAULT
    # Change.IN_PLACE only: the value's form in the update request, when not its create form (`wire`); and the
    # input a live object stands for, from the recorded input and the live value at `api` (drift shown by read),
    # when not the live value read back.
    patch: Callable[[Any], Any] | None = None
    drift: Callable[[Any, Any], Any] | None = None

    @property
    def update_form(self) -> Callable[[Any], Any] | None:
        """The value's form in an in-place update request: `patch`, else its create form `wire`."""
        return self.patch or self.wire

    @property
    def sent(self) -> bool:
        """Whether the service receives it in the create request."""
        return self.api is not None

    def read_back(self, value: Any) -> Any:
        """The declared form of the value the wire gives at `api` (None: left out)."""
        return self.read(value) if self.read is not None else value


@dataclass(frozen=True)
class ConfigKey:
    """The key a job entry sets a part of a declared field by, as it is (`algorithm.command` by `command`):
    `Declared.config` for a field inside the model a declared field holds (stack/job_fields.with_declared)."""

    key: str


@dataclass(frozen=True)
class DeclaredField:
    name: str
    info: FieldInfo
    declared: Declared

    def or_unset(self, value: Any) -> Any:
        """`value`, or what the field is on the service when it is left out (None): `Declared.unset`."""
        if value is not None:
            return value
        if self.declared.unset is not Unset.FIELD_DEFAULT:
            return self.declared.unset
        return None if self.info.is_required() else self.info.get_default(call_default_factory=True)


@cache
def declarations(model: type[BaseModel]) -> tuple[DeclaredField, ...]:
    """Every field of `model` with its declaration, in declaration order. A field without exactly one
    `Declared` is a programming error, raised at once (every layer needs it)."""
    out = []
    for name, info in model.model_fields.items():
        found = [m for m in info.metadata if isinstance(m, Declared)]
        if len(found) != 1:
            raise TypeError(f"{model.__name__}.{name}: needs exactly one Declared(...) (core/fields.py)")
        out.append(DeclaredField(name, info, found[0]))
    return tuple(out)


def fields_changing(model: type[BaseModel], *changes: Change) -> frozenset[str]:
    """The names of the fields whose change is one of `changes`."""
    return frozenset(f.name for f in declarations(model) if f.declared.change in changes)


def names_changing(model: type[BaseModel], change: Change) -> tuple[str, ...]:
    """The fields whose change is `change`, in declaration order (the order a diff names them in)."""
    return tuple(f.name for f in declarations(model) if f.declared.change is change)


@dataclass(frozen=True)
class ConfigField:
    """A field, or a part of one, that a stack config key sets as it is."""

    path: str  # dotted: a field (node_count) or a part of the model a field holds (algorithm.command)
    key: str  # the config key
    info: FieldInfo  # its type, rules, default and description
    declared: Declared  # its own declaration, or for a part its parent's (where it goes, whether it is sent)


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    """The models a field's type holds (AlgorithmArg in `AlgorithmArg | None`)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for arg in get_args(annotation) for m in _models_in(arg)]


@cache
def configured(model: type[BaseModel]) -> tuple[ConfigField, ...]:
    """Every field of `model` declared with a config key, and every part of a field's model marked with a
    `ConfigKey`, in declaration order (a part where its parent is)."""
    out = []
    for f in declarations(model):
        if f.declared.config is not None:
            out.append(ConfigField(f.name, f.declared.config, f.info, f.declared))
        for inner in _models_in(f.info.annotation):
            for name, info in inner.model_fields.items():
                out += [ConfigField(f"{f.name}.{name}", m.key, info, f.declared)
                        for m in info.metadata if isinstance(m, ConfigKey)]
    return tuple(out)


def config_names(model: type[BaseModel]) -> dict[str, str]:
    """args path (dotted) -> the stack config key that sets it as it is."""
    return {c.path: c.key for c in configured(model)}


def _empty(value: Any) -> bool:
    return value is None or (isinstance(value, (list, dict)) and not value)


_PART = re.compile(r"\[([^\]]+)\]|([^.\[\]]+)")


def parts(dotted: str) -> list[str]:
    """'a.b.c' -> [a, b, c]; a bracketed part is one key whatever it holds, dots included:
    'metadata.labels[os.modelarts/name]' -> [metadata, labels, os.modelarts/name] (a label's or annotation's key)."""
    return [bracketed or plain for bracketed, plain in _PART.findall(dotted)]


def put(body: dict[str, Any], dotted: str, value: Any) -> None:
    """body[a][b][c] = value for 'a.b.c' (or 'a.b[c]'), creating the objects on the way."""
    *parents, last = parts(dotted)
    for part in parents:
        body = body.setdefault(part, {})
    body[last] = value


def get(body: Mapping[str, Any], dotted: str) -> Any:
    value: Any = body
    for part in parts(dotted):
        value = value.get(part) if isinstance(value, Mapping) else None
    return value


def to_wire(args: BaseModel, body: dict[str, Any] | None = None) -> dict[str, Any]:
    """The declared fields of `args` along their API paths; None and empty lists/maps are left out."""
    body = {} if body is None else body
    for f in declarations(type(args)):
        value = getattr(args, f.name)
        if f.declared.api is None or _empty(value):
            continue
        put(body, f.declared.api, f.declared.wire(value) if f.declared.wire else
            (value.model_dump(exclude_none=True) if isinstance(value, BaseModel) else
             dict(value) if isinstance(value, dict) else value))  # a copy: a later path may add to it
    return body


def from_wire(model: type[BaseModel], live: Mapping[str, Any]) -> dict[str, Any]:
    """The declaration (field name -> value) a live object's details give back, along the API paths: what a
    declaration would leave unset (None, empty, the field's default) is left out."""
    out: dict[str, Any] = {}
    for f in declarations(model):
        if f.declared.api is None:
            continue
        value = f.declared.read_back(get(live, f.declared.api))
        if _empty(value) or value == "" or (not f.info.is_required() and value == f.info.get_default(
                call_default_factory=True)):
            continue
        out[f.name] = value
    return out


def differing(args: BaseModel, live: Mapping[str, Any],
              skip: frozenset[str] = frozenset()) -> list[tuple[str, Any, Any]]:
    """(field, live value, declared value) of every field the create sends (but `skip`) whose value at its API path
    in the live object's details is not the one the declaration sends; a field the declaration leaves out is not
    compared. What a takeover of an earlier pool or network compares, so a field added to the declarations is
    compared without a line of its own."""
    sent = to_wire(args)
    out = []
    for f in declarations(type(args)):
        if f.name in skip or f.declared.api is None:
            continue
        want, have = get(sent, f.declared.api), get(live, f.declared.api)
        if want is not None and want != have:
            out.append((f.name, have, want))
    return out


# --- in-place updates (Change.IN_PLACE): what changed, the merge patch, the drift a read shows ---------------------

def _sent_form(value: Any, form: Callable[[Any], Any] | None) -> Any:
    if _empty(value):
        return None
    if form is not None:
        return form(value)
    return value.model_dump(exclude_none=True) if isinstance(value, BaseModel) else value


def changed_in_place(old: BaseModel, new: BaseModel) -> list[DeclaredField]:
    """The fields changed in place (Change.IN_PLACE, sent) whose value differs between two declarations, compared
    in the form the update sends: equivalent declarations (a default, an order that form fixes) are no change."""
    return [f for f in declarations(type(new)) if f.declared.change is Change.IN_PLACE and f.declared.sent
            and _sent_form(getattr(old, f.name), f.declared.update_form)
            != _sent_form(getattr(new, f.name), f.declared.update_form)]


def patch_body(new: BaseModel, changed: Iterable[DeclaredField]) -> dict[str, Any]:
    """A merge patch (RFC 7396) of the `changed` fields: each along its API path in its update form (`patch`, else
    its create form); a field now left out is null there, which removes it."""
    body: dict[str, Any] = {}
    for f in changed:
        put(body, str(f.declared.api), _sent_form(getattr(new, f.name), f.declared.update_form))
    return body


def drifted(model: type[BaseModel], inputs: dict[str, Any], live: Mapping[str, Any]) -> dict[str, Any]:
    """`inputs` (recorded, JSON) with each field changed in place replaced by what the live object holds at its API
    path (`drift`, else the live value read back; empty is None), where that differs: a change made outside the
    stack shows as drift, and the next `up` restores the declaration in place."""
    out = dict(inputs)
    for f in declarations(model):
        if f.declared.change is not Change.IN_PLACE or not f.declared.sent:
            continue
        have = get(live, f.declared.api or "")
        value = f.declared.drift(inputs.get(f.name), have) if f.declared.drift is not None else \
            f.declared.read_back(have)
        value = _or_none(value)
        if value != _or_none(inputs.get(f.name)):
            out[f.name] = value
    return out


def _or_none(value: Any) -> Any:
    """None for what states nothing (None, "", an empty list or map): a drift compares what is stated."""
    return None if _empty(value) or value == "" else value

"""Property names at the plugin's edge: the schema's camelCase (`flavorId`, `waitFor`) <-> the snake_case the
dynamic providers take (`flavor_id`, `wait_for`).

Pulumi schemas name properties in camelCase and each SDK generator turns them into its language's convention;
the providers behind both front doors keep Python's names. The conversion is led by the schema, never by the
look of a key: only the properties of an object type are renamed, while the keys of a map (annotations,
environment variables, a JobsAwait's job keys, output channel names) pass unchanged, and a value typed Any is
left as given. A key the schema does not know (state written by the provider for itself) passes unchanged both
ways, so nothing the provider records is lost.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

_SNAKE_PART = re.compile(r"_([a-z0-9])")


def camel(name: str) -> str:
    """flavor_id -> flavorId; a name without underscores is returned as it is."""
    return _SNAKE_PART.sub(lambda m: m.group(1).upper(), name)


Spec = dict[str, Any]  # a Pulumi type spec ({"type": ...}, {"$ref": ...}) as in the snake_case schema


@dataclass(frozen=True)
class _Walker:
    """Renames the property keys of values shaped by a snake_case schema (types: token -> object type spec)."""

    types: Mapping[str, Spec]

    def _object_props(self, spec: Spec) -> Mapping[str, Spec] | None:
        ref = spec.get("$ref", "")
        if ref.startswith("#/types/"):
            found = self.types.get(ref[len("#/types/"):], {})
            return found.get("properties") or {}
        return None

    def value(self, spec: Spec, value: Any, to_camel: bool) -> Any:
        props = self._object_props(spec)
        if props is not None:
            return self.props(props, value, to_camel)
        if spec.get("type") == "array" and isinstance(value, list):
            return [self.value(spec.get("items") or {}, v, to_camel) for v in value]
        if spec.get("type") == "object" and isinstance(value, Mapping):
            inner = spec.get("additionalProperties") or {}
            return {k: self.value(inner, v, to_camel) for k, v in value.items()}  # map keys are data
        return value

    def props(self, props: Mapping[str, Spec], value: Any, to_camel: bool) -> Any:
        if not isinstance(value, Mapping):
            return value  # an unknown or a wrong type: the provider's check names it
        renamed = {camel(k): k for k in props} if not to_camel else {k: camel(k) for k in props}
        out: dict[str, Any] = {}
        for key, item in value.items():
            new = renamed.get(key, key)
            snake = key if to_camel else new
            out[new] = self.value(props[snake], item, to_camel) if snake in props else item
        return out


class Names:
    """The name mapping of one package schema (built snake_case: schema.py's `snake_schema`)."""

    def __init__(self, snake: Mapping[str, Any]) -> None:
        self._walker = _Walker(snake.get("types", {}))
        self._resources: dict[str, Mapping[str, Spec]] = {
            tok.rsplit(":", 1)[-1]: {**res.get("properties", {}), **res.get("inputProperties", {})}
            for tok, res in snake.get("resources", {}).items()}
        self._known = {k for props in self._resources.values() for k in props} | {
            k for t in snake.get("types", {}).values() for k in t.get("properties", {})}
        self._snake = {camel(k): k for k in self._known if camel(k) != k}

    def to_snake(self, type_name: str, props: Mapping[str, Any]) -> dict[str, Any]:
        """A resource's properties as the engine sends them (camelCase) -> as the providers take them."""
        return dict(self._walker.props(self._resources.get(type_name, {}), props, to_camel=False))

    def to_camel(self, type_name: str, props: Mapping[str, Any]) -> dict[str, Any]:
        """The providers' properties (inputs, outputs) -> as the engine records and shows them."""
        return dict(self._walker.props(self._resources.get(type_name, {}), props, to_camel=True))

    def key(self, name: str) -> str:
        """A top-level property name (a diff's changed key) in the schema's naming."""
        return camel(name) if name in self._known else name

    def snake_key(self, name: str) -> str:
        """A property name in the schema's naming (`obsUrl`) -> the providers' (`obs_url`); any other key (a map's
        key, a list index) as it is."""
        return self._snake.get(name, name)

    def path(self, path: str) -> str:
        """A property path of a check failure (`algorithm.code_dir`, `...algo_configs[0].name`) in the schema's
        naming; a list index stays as it is."""
        return ".".join(self.key(name) + index for name, index in
                        (_INDEXED.fullmatch(part).groups() for part in path.split(".")))  # type: ignore[union-attr]


_INDEXED = re.compile(r"(.*?)((?:\[\d+\])*)")  # a path part and its list indices, e.g. algo_configs[0]
_SNAKE_WORD = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b")
# Descriptions that name the API's own fields (schema.py's API_PATHS fallback): the API's names stay as they are.
_API_WORDING = "create-training-job request"


def _described(spec: Mapping[str, Any], known: set[str]) -> dict[str, Any]:
    """`spec` with the property names its description mentions (`pool_id`) in the schema's naming (`poolId`)."""
    text = spec.get("description")
    if not isinstance(text, str) or _API_WORDING in text:
        return dict(spec)
    return {**spec, "description": _SNAKE_WORD.sub(lambda m: camel(m.group(0)) if m.group(0) in known
                                                   else m.group(0), text)}


def camel_schema(snake: Mapping[str, Any]) -> dict[str, Any]:
    """The public schema: every property name of every resource and object type in camelCase, and so in the
    descriptions that mention them (map keys, type tokens and config keys are untouched; config keys are
    camelCase already)."""
    tables = [t.get(f, {}) for t in [*snake.get("resources", {}).values(), *snake.get("types", {}).values()]
              for f in ("properties", "inputProperties")]
    known = {k for table in tables for k in table}

    def props(table: Mapping[str, Any]) -> dict[str, Any]:
        return {camel(k): _described(v, known) for k, v in table.items()}

    def resource(res: Mapping[str, Any]) -> dict[str, Any]:
        out = _described(res, known)
        for field in ("properties", "inputProperties"):
            if field in res:
                out[field] = props(res[field])
        for field in ("required", "requiredInputs"):
            if field in res:
                out[field] = [camel(k) for k in res[field]]
        return out

    spec = dict(snake)
    spec["resources"] = {tok: resource(res) for tok, res in snake.get("resources", {}).items()}
    spec["types"] = {tok: resource(t) for tok, t in snake.get("types", {}).items()}
    return spec

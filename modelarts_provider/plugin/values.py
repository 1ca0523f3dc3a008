"""Property values of the provider protocol <-> the plain Python values the dynamic providers take.

The dynamic providers were written against what `pulumi.dynamic` hands them: dicts, lists, strings,
floats, bools, None, and the wire placeholder for a value not known yet. This plugin hands them the same,
so their check/diff/lifecycle code runs unchanged behind either front door. Secrets: the plugin accepts them
(configure), so it knows which values are secret: `secret_paths` names them (dotted paths, list indices as
numbers, the dynamic path's `secret_paths` format), `secret_values` gives them to the call's masking, and
`property_map(..., secret=paths)` marks them secret again on the way out (with any output derived from them).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from pulumi.provider.experimental.property_value import Computed, PropertyValue

from ..core.secret_leaves import is_secret
from ..core.unknowns import UNKNOWN, is_unknown


def to_plain(value: PropertyValue) -> Any:
    inner = value.value
    if isinstance(inner, Computed):
        return UNKNOWN
    if isinstance(inner, (list, tuple)):
        return [to_plain(v) for v in inner]
    if isinstance(inner, Mapping):
        return {k: to_plain(v) for k, v in inner.items()}
    return inner  # None, bool, float, str (assets and resource references are not in any schema here)


def plain_map(values: Mapping[str, PropertyValue] | None) -> dict[str, Any]:
    return {k: to_plain(v) for k, v in (values or {}).items()}


def from_plain(value: Any) -> PropertyValue:
    if is_unknown(value):
        # The wire's own unknown (the sentinel string the engine reads as computed): the SDK's PropertyValue
        # cannot marshal its Computed value (3.259: "Unsupported value type").
        return PropertyValue(UNKNOWN)
    if value is None:
        return PropertyValue.null()
    if isinstance(value, bool) or isinstance(value, str):
        return PropertyValue(value)
    if isinstance(value, (int, float)):
        return PropertyValue(float(value))
    if is_secret(value):  # a value secret on its own among plain ones (core/secret_leaves.py)
        return from_plain(value["value"]).with_secret(True)
    if isinstance(value, Mapping):
        return PropertyValue({str(k): from_plain(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return PropertyValue([from_plain(v) for v in value])
    raise TypeError(f"not a property value: {type(value).__name__}")


def _secret_walk(value: PropertyValue, path: str) -> Iterator[tuple[str, PropertyValue]]:
    if value.is_secret:
        yield path, value
        return
    inner = value.value
    if isinstance(inner, (list, tuple)):
        for i, v in enumerate(inner):
            yield from _secret_walk(v, f"{path}.{i}")
    elif isinstance(inner, Mapping):
        for k, v in inner.items():
            yield from _secret_walk(v, f"{path}.{k}")


def secret_paths(values: Mapping[str, PropertyValue] | None) -> list[str]:
    """The dotted paths of the secret values (a secret map or list: its own path)."""
    return sorted(path for k, v in (values or {}).items() for path, _ in _secret_walk(v, k))


def secret_values(values: Mapping[str, PropertyValue] | None) -> list[Any]:
    """The plain scalars inside every secret value (what the call masks: masking.binding)."""
    from ..core.masking import leaves

    return [leaf for k, v in (values or {}).items() for _, secret in _secret_walk(v, k)
            for leaf in leaves(to_plain(secret))]


def lift_secrets(values: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """A provider's outputs with each value secret on its own (core/secret_leaves.py) made plain, and the dotted
    paths where they were: the schema's renaming then sees plain values, and property_map marks them again."""
    paths: list[str] = []

    def walk(value: Any, path: str) -> Any:
        if is_secret(value):
            paths.append(path)
            return value["value"]
        if isinstance(value, Mapping):
            return {k: walk(v, f"{path}.{k}") for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v, f"{path}.{i}") for i, v in enumerate(value)]
        return value

    return {k: walk(v, k) for k, v in values.items()}, paths


def _marked(value: Any, path: str, secret: frozenset[str]) -> PropertyValue:
    if path in secret:
        return from_plain(value).with_secret(True)
    if isinstance(value, Mapping) and not is_unknown(value) and not is_secret(value):
        return PropertyValue({str(k): _marked(v, f"{path}.{k}", secret) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return PropertyValue([_marked(v, f"{path}.{i}", secret) for i, v in enumerate(value)])
    return from_plain(value)


def property_map(values: Mapping[str, Any], secret: Iterable[str] = ()) -> dict[str, PropertyValue]:
    """Plain values -> property values, secret at the dotted paths `secret` (and everything under them)."""
    paths = frozenset(secret)
    if not paths:
        return {k: from_plain(v) for k, v in values.items()}
    return {k: _marked(v, k, paths) for k, v in values.items()}

"""Property values of the provider protocol <-> the plain Python values the dynamic providers take.

The dynamic providers were written against what `pulumi.dynamic` hands them: dicts, lists, strings,
floats, bools, None, and the wire placeholder for a value not known yet. This plugin hands them the same,
so their check/diff/lifecycle code runs unchanged behind either front door. Secrets: the plugin tells the
engine it does not accept them (configure), so values arrive plain and the engine marks every output whose
input was secret as secret again (the same as for the dynamic providers).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pulumi.provider.experimental.property_value import Computed, PropertyValue

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
    if isinstance(value, Mapping):
        return PropertyValue({str(k): from_plain(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return PropertyValue([from_plain(v) for v in value])
    raise TypeError(f"not a property value: {type(value).__name__}")


def property_map(values: Mapping[str, Any]) -> dict[str, PropertyValue]:
    return {k: from_plain(v) for k, v in values.items()}

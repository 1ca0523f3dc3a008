"""Values not known yet during preview (outputs of resources still to be created or changed)."""

from __future__ import annotations

from typing import Any

from pulumi.output import Unknown

# pulumi.runtime.rpc.UNKNOWN: the wire placeholder for not-yet-known values. The dynamic provider
# host hands them to check/diff as pulumi.output.Unknown instances; accept both.
UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"


def is_unknown(value: Any) -> bool:
    return isinstance(value, Unknown) or (isinstance(value, str) and value == UNKNOWN)


def contains_unknown(value: Any) -> bool:
    if is_unknown(value):
        return True
    if isinstance(value, dict):
        return any(contains_unknown(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(contains_unknown(v) for v in value)
    return False

"""Values not known yet during preview (outputs of resources still to be created or changed).

One spelling inside the providers: the wire's sentinel string UNKNOWN. The plugin's values arrive as it
(plugin/values.py); the dynamic-provider server hands pulumi.output.Unknown instances, turned into it at the
door (one_spelling, core/provider_base.py), so no module meets two kinds of unknown.
"""

from __future__ import annotations

from typing import Any

from pulumi.output import Unknown

# pulumi.runtime.rpc.UNKNOWN: the wire placeholder for not-yet-known values. The dynamic provider
# host hands them to check/diff as pulumi.output.Unknown instances; accept both.
UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"


def is_unknown(value: Any) -> bool:
    return isinstance(value, Unknown) or (isinstance(value, str) and value == UNKNOWN)


def one_spelling(value: Any) -> Any:
    """`value` with every unknown spelt UNKNOWN (the wire's sentinel: the engine reads it back as unknown)."""
    if isinstance(value, Unknown):
        return UNKNOWN
    if isinstance(value, dict):
        return {k: one_spelling(v) for k, v in value.items()}
    if isinstance(value, list):
        return [one_spelling(v) for v in value]
    return value


def contains_unknown(value: Any) -> bool:
    if is_unknown(value):
        return True
    if isinstance(value, dict):
        return any(contains_unknown(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(contains_unknown(v) for v in value)
    return False


# Stand-ins: values of the right shape that let the known fields be validated while one is not known yet. They
# are never sent or recorded (whatever holds one is validated, then given the real value), and they live here,
# once, so that no module spells its own.
STAND_IN_NAME = "placeholder-name"  # a derived job name (known at `up`: check derives it from the stack's seed)
STAND_IN_TOKEN = "0" * 16  # an owner token whose seed (a RandomPassword) is created in the same preview or `up`
STAND_IN_POOL = "pending-created-pool"  # the id of a pool the stack creates (declare passes the pool's output)
STAND_IN_HASH = "0" * 16  # the content hash of a code upload, in its code_dir (the upload's output at deploy)

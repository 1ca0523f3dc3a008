"""A value secret on its own inside a provider's outputs: the wire's secret signature around it.

A provider's outputs are plain values; the engine reads a map holding the signature below as a secret (the
protocol's own encoding, which the dynamic-provider server passes through and the engine unmarshals with its
secrets kept). So one trial parameter of a search can be a secret in the state while its neighbours (names,
rewards, plain values) stay visible. The provider plugin turns it into a secret property value
(plugin/values.from_plain). What is read back (olds, props) arrives plain.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

SIG_KEY = "4dabf18193072939515e22adb298388d"  # the wire's special signature key (pulumi rpc)
SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270"


def secret(value: Any) -> dict[str, Any]:
    return {SIG_KEY: SECRET_SIG, "value": value}


def is_secret(value: Any) -> bool:
    return isinstance(value, dict) and value.get(SIG_KEY) == SECRET_SIG and "value" in value


def plain(value: Any) -> Any:
    """The value inside a secret, or the value itself."""
    return value["value"] if is_secret(value) else value


def secret_where(values: dict[str, Any], secrets: Collection[str]) -> dict[str, Any]:
    """The map with each value that is one of `secrets` (as text) a secret of its own."""
    return {k: secret(v) if isinstance(v, (str, int, float)) and not isinstance(v, bool) and str(v) in secrets
            else v for k, v in values.items()}

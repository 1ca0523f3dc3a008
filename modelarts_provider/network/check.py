"""check(): a Network's inputs, one failure per bad field, no API call."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from ..core.messages import explain
from ..core.unknowns import STAND_IN_TOKEN, contains_unknown
from .args import OUTPUT_KEYS, NetworkArgs


def strip_outputs(props: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in props.items() if k not in OUTPUT_KEYS and not k.startswith("__") and v is not None}


def check_inputs(news: dict[str, Any]) -> list[tuple[str, str]]:
    raw = strip_outputs(news)
    known = {k: v for k, v in raw.items() if not contains_unknown(v)}
    if len(known) != len(raw):  # an unknown (preview) value: check the rest with a stand-in
        known = {**{k: _STAND_IN.get(k, "x") for k in raw if k not in known}, **known}
    try:
        NetworkArgs.model_validate(known)
    except ValidationError as err:
        return [(str(loc[0]) if loc else "name", reason) for loc, reason in explain(err.errors(include_url=False))]
    return []


_STAND_IN: dict[str, Any] = {"name": "network-stand-in", "cidr": "10.0.0.0/16",
                             "owner": {"stack": "s", "resource": "r", "token": STAND_IN_TOKEN}}

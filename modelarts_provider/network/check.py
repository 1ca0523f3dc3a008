"""check(): a Network's inputs, one failure per bad field, no API call."""

from __future__ import annotations

from typing import Any

from ..core.resource_inputs import Checked, inputs_among, model_check
from ..core.unknowns import STAND_IN_TOKEN
from .args import OUTPUT_KEYS, NetworkArgs

strip_outputs = inputs_among(OUTPUT_KEYS, drop_none=True)
_STAND_IN: dict[str, Any] = {"name": "network-stand-in", "cidr": "10.0.0.0/16",
                             "owner": {"stack": "s", "resource": "r", "token": STAND_IN_TOKEN}}


def check_inputs(news: dict[str, Any]) -> Checked[NetworkArgs | None]:
    return model_check(NetworkArgs, strip_outputs(news), _STAND_IN, other="x", whole="name")

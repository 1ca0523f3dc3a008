"""check(): a ResourcePool's inputs, one failure per bad field, no API call (a node count that breaks a
documented rule is refused here, at preview)."""

from __future__ import annotations

from typing import Any

from ..core.resource_inputs import Checked, inputs_among, model_check
from ..core.unknowns import STAND_IN_TOKEN
from .args import OUTPUT_KEYS, ResourcePoolArgs

strip_outputs = inputs_among(OUTPUT_KEYS, drop_none=True)
_STAND_IN: dict[str, Any] = {"name": "pool-stand-in", "network": "network-stand-in",
                             "resources": [{"flavor": "stand-in", "count": 1}],
                             "owner": {"stack": "s", "resource": "r", "token": STAND_IN_TOKEN}}


def check_inputs(news: dict[str, Any]) -> Checked[ResourcePoolArgs | None]:
    return model_check(ResourcePoolArgs, strip_outputs(news), _STAND_IN, whole="resources")

"""check(): a ResourcePool's inputs, one failure per bad field, no API call (a node count that breaks a
documented rule is refused here, at preview)."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from ..core.messages import explain
from ..core.unknowns import STAND_IN_TOKEN, contains_unknown
from .args import OUTPUT_KEYS, ResourcePoolArgs

_STAND_IN: dict[str, Any] = {"name": "pool-stand-in", "network": "network-stand-in",
                             "resources": [{"flavor": "stand-in", "count": 1}],
                             "owner": {"stack": "s", "resource": "r", "token": STAND_IN_TOKEN}}


def strip_outputs(props: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in props.items() if k not in OUTPUT_KEYS and not k.startswith("__") and v is not None}


def check_inputs(news: dict[str, Any]) -> list[tuple[str, str]]:
    raw = strip_outputs(news)
    known = {k: v for k, v in raw.items() if not contains_unknown(v)}
    known = {**{k: _STAND_IN[k] for k in raw if k not in known and k in _STAND_IN}, **known}
    try:
        ResourcePoolArgs.model_validate(known)
    except ValidationError as err:
        out = []
        for loc, reason in explain(err.errors(include_url=False)):
            out.append((".".join(str(p) if not isinstance(p, int) else f"[{p}]" for p in loc).replace(".[", "[")
                        or "resources", reason))
        return out
    return []

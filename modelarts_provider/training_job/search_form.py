"""A job's search (`algorithm.policies.auto_search`) in the one shape a declaration gives it: what an import
declares for a live search job (from_live.py) and what the takeover comparison compares (compare.py)."""

from __future__ import annotations

from typing import Any

from ..client.models import as_list, as_text


def _fields(item: Any, keys: tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(item, dict):
        return {}
    out: dict[str, Any] = {}
    for key in keys:
        value = item.get(key)
        if isinstance(value, list):
            out[key] = [as_text(v) or "" for v in value]
        elif value not in (None, ""):
            out[key] = as_text(value)
    return out


def search_summary(auto: dict[str, Any] | None) -> str | None:
    """A search in a few words, for the takeover comparison's message."""
    if not auto:
        return None
    algo = ", ".join(str(c.get("name")) for c in auto.get("algo_configs") or []) or "no algorithm"
    params = ", ".join(str(p.get("name")) for p in auto.get("search_params") or []) or "nothing"
    rewards = ", ".join(f"{r.get('name')} ({r.get('mode')})" for r in auto.get("reward_attrs") or []) or "nothing"
    return f"{algo} over {params} scored by {rewards}"


def auto_search_of(auto: Any) -> dict[str, Any] | None:
    """The service's own search of a live job, as the TrainingJob declares it (an imported search job)."""
    if not isinstance(auto, dict) or not auto:
        return None
    out: dict[str, Any] = _fields(auto, ("skip_search_params",))
    rewards = [_fields(r, ("name", "mode", "regex")) for r in as_list(auto.get("reward_attrs"))]
    params = [_fields(s, ("name", "param_type", "lower_bound", "upper_bound", "discrete_points_num",
                          "discrete_values")) for s in as_list(auto.get("search_params"))]
    configs = [{**_fields(c, ("name",)),
                **({"params": [_fields(q, ("key", "value", "type")) for q in as_list(c.get("params"))]}
                   if as_list(c.get("params") if isinstance(c, dict) else None) else {})}
               for c in as_list(auto.get("algo_configs")) if isinstance(c, dict)]
    for key, items in (("reward_attrs", rewards), ("search_params", params), ("algo_configs", configs)):
        if any(items):
            out[key] = [i for i in items if i]
    return out or None

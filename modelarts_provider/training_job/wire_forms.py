"""The shapes of a job's fields on the wire, both ways: what `TrainingJobArgs` declares as a field's `wire` (the
create request's form of the canonical value) and `read` (the declaration a live job's details give back).

Only the shapes that are not a plain copy live here; the paths are the fields' own (args.py, core/fields.py).
Read-back leaves out what the service echoes but a declaration never wrote (algorithm parameter constraints, an
engine given by name also coming back with its id, the default workspace "0"), so an imported declaration is the
short one a person would write, and it validates and diffs like one.
"""

from __future__ import annotations

from typing import Any

from ..client.models import as_list, as_text, normalize_obs_path
from ..core.ownership import PREFIX as OWNERSHIP_PREFIX
from .search_form import auto_search_of

# The workspace a job without one is in (the service's default).
DEFAULT_WORKSPACE = "0"
_ALGORITHM_PLAIN = ("id", "subscription_id", "item_version_id", "command", "local_code_dir", "working_dir")
_ALGORITHM_OBS = ("code_dir", "boot_file", "autosearch_config_path", "autosearch_framework_path")


def to_api_obs(url: str) -> str:
    """obs://bucket/key -> /bucket/key, the form the v2 API documents and returns."""
    return "/" + url[len("obs://"):] if url.startswith("obs://") else url


def _obs(value: Any) -> Any:
    return normalize_obs_path(value) if isinstance(value, str) else value


# --- declared -> wire ---------------------------------------------------------------------------------------


def _channel_in_wire(c: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"name": c.name}
    if c.obs_url is not None:
        out["remote"] = {"obs": {"obs_url": to_api_obs(c.obs_url)}}
    else:
        assert c.dataset is not None
        out["remote"] = {"dataset": c.dataset.model_dump(exclude_none=True)}
    for k in ("local_dir", "description"):
        if getattr(c, k) is not None:
            out[k] = getattr(c, k)
    if c.remote_constraint:
        out["remote_constraint"] = [r.model_dump(exclude_none=True) for r in c.remote_constraint]
    return out


def _channel_out_wire(c: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"name": c.name, "remote": {"obs": {"obs_url": to_api_obs(c.obs_url)}}}
    for k in ("local_dir", "description"):
        if getattr(c, k) is not None:
            out[k] = getattr(c, k)
    return out


def algorithm_wire(a: Any) -> dict[str, Any]:
    plain = a.model_dump(exclude_none=True, exclude={"inputs", "outputs", "parameters", "environments",
                                                      "policies", "engine"})
    for key in _ALGORITHM_OBS:
        if key in plain:
            plain[key] = to_api_obs(plain[key])
    plain["parameters"] = [p.model_dump(exclude_none=True) for p in a.parameters]
    if a.inputs:
        plain["inputs"] = [_channel_in_wire(c) for c in a.inputs]
    if a.outputs:
        plain["outputs"] = [_channel_out_wire(c) for c in a.outputs]
    if a.engine is not None:
        plain["engine"] = a.engine.model_dump(exclude_none=True)
    if a.policies is not None:
        plain["policies"] = a.policies.model_dump(exclude_none=True)
    plain["environments"] = dict(a.environments)  # the service takes a map
    return plain


def volumes_wire(volumes: list[Any]) -> list[dict[str, Any]]:
    return [{"nfs": v.model_dump()} for v in volumes]


def log_export_wire(log_export: Any) -> dict[str, Any]:
    log: dict[str, Any] = log_export.model_dump(exclude_none=True)
    if "obs_url" in log:
        log["obs_url"] = to_api_obs(log["obs_url"])
    return log


# --- live -> declared ---------------------------------------------------------------------------------------


def _engine_read(engine: dict[str, Any], with_code: bool) -> dict[str, Any] | None:
    """One engine form, as the declaration allows it: name + version, else id, else image."""
    if engine.get("engine_name") and engine.get("engine_version"):
        return {"engine_name": engine["engine_name"], "engine_version": engine["engine_version"]}
    if engine.get("engine_id"):
        return {"engine_id": engine["engine_id"]}
    if engine.get("image_url"):
        return {"image_url": engine["image_url"]}
    return None if not with_code else {}


def _channel_in_read(ch: dict[str, Any]) -> dict[str, Any]:
    remote = ch.get("remote") or {}
    out: dict[str, Any] = {"name": ch.get("name")}
    if (remote.get("obs") or {}).get("obs_url"):
        out["obs_url"] = _obs(remote["obs"]["obs_url"])
    elif remote.get("dataset"):
        ds = remote["dataset"]
        out["dataset"] = {k: ds[k] for k in ("id", "version_id", "obs_url") if ds.get(k)}
    for key in ("local_dir", "description"):
        if ch.get(key):
            out[key] = ch[key]
    return out


def _channel_out_read(ch: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"name": ch.get("name"),
                           "obs_url": _obs(((ch.get("remote") or {}).get("obs") or {}).get("obs_url"))}
    for key in ("local_dir", "description"):
        if ch.get(key):
            out[key] = ch[key]
    return out


def algorithm_read(alg: Any) -> dict[str, Any] | None:
    if not isinstance(alg, dict):
        return None
    out: dict[str, Any] = {k: alg[k] for k in _ALGORITHM_PLAIN if alg.get(k)}
    by_reference = "id" in out or "subscription_id" in out
    if not by_reference:  # an algorithm by reference comes back with its code and engine: not declared
        out.update({k: _obs(alg[k]) for k in _ALGORITHM_OBS if alg.get(k)})
    if not by_reference and isinstance(alg.get("engine"), dict):
        engine = _engine_read(alg["engine"], "code_dir" in out)
        if engine:
            out["engine"] = engine
    params = [{"name": p.get("name"), "value": as_text(p.get("value")) or ""}
              for p in as_list(alg.get("parameters")) if isinstance(p, dict) and p.get("name")]
    if params:
        out["parameters"] = params
    inputs = [_channel_in_read(c) for c in as_list(alg.get("inputs")) if isinstance(c, dict) and c.get("name")]
    if inputs:
        out["inputs"] = inputs
    outputs = [_channel_out_read(c) for c in as_list(alg.get("outputs")) if isinstance(c, dict) and c.get("name")]
    if outputs:
        out["outputs"] = outputs
    if isinstance(alg.get("environments"), dict) and alg["environments"]:
        out["environments"] = {str(k): str(v) for k, v in alg["environments"].items()}
    policies = alg.get("policies")
    search = auto_search_of(policies.get("auto_search")) if isinstance(policies, dict) else None
    if search:
        out["policies"] = {"auto_search": search}
    return out


def workspace_read(value: Any) -> Any:
    return None if value in (None, "", DEFAULT_WORKSPACE) else value


def annotations_read(value: Any) -> dict[str, str] | None:
    """The declared annotations: the owner mark's are the importing resource's own to record (ownership.py)."""
    if not isinstance(value, dict):
        return None
    return {str(k): str(v) for k, v in value.items() if not str(k).startswith(OWNERSHIP_PREFIX)}


def node_count_read(value: Any) -> int | None:
    return None if value in (None, "") else int(value)


def volumes_read(value: Any) -> list[dict[str, Any]]:
    return [{"read_only": False, **(v.get("nfs") or {})} for v in as_list(value) if isinstance(v, dict)]


def log_export_read(log: Any) -> dict[str, Any] | None:
    if not isinstance(log, dict) or not (log.get("obs_url") or log.get("host_path")):
        return None
    return {k: (_obs(v) if k == "obs_url" else v) for k, v in log.items() if k in ("obs_url", "host_path") and v}


def auto_stop_read(stop: Any) -> dict[str, Any] | None:
    if not isinstance(stop, dict) or not stop.get("duration"):
        return None
    return {"time_unit": stop.get("time_unit") or "HOURS", "duration": int(stop["duration"])}

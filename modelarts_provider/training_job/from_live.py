"""A live job -> the declaration that stands for it (the inputs `pulumi import` records and prints as code).

The reverse of `TrainingJobArgs.to_wire`: what the create request carried, read back from the job's
details. The service echoes defaults a declaration never wrote (algorithm parameter constraints, an
engine given by name also coming back with its id, the default workspace "0"); they are left out, so
the generated declaration is the short one a person would write, and it validates and diffs like one.
The owner mark is not read back from annotations: the importing resource records its own (ownership.py).
"""

from __future__ import annotations

from typing import Any

from ..client.models import TrainingJob, as_list, as_text, normalize_obs_path
from ..core.ownership import PREFIX as OWNERSHIP_PREFIX, TAG_PREFIX as OWNER_TAG_PREFIX
from .compare import DEFAULT_WORKSPACE
from .search_form import auto_search_of

_ALGORITHM_PLAIN = ("id", "subscription_id", "item_version_id", "command", "local_code_dir", "working_dir")
_ALGORITHM_OBS = ("code_dir", "boot_file", "autosearch_config_path", "autosearch_framework_path")


def _obs(value: Any) -> Any:
    return normalize_obs_path(value) if isinstance(value, str) else value


def _engine(engine: dict[str, Any], with_code: bool) -> dict[str, Any] | None:
    """One engine form, as the declaration allows it: name + version, else id, else image."""
    if engine.get("engine_name") and engine.get("engine_version"):
        return {"engine_name": engine["engine_name"], "engine_version": engine["engine_version"]}
    if engine.get("engine_id"):
        return {"engine_id": engine["engine_id"]}
    if engine.get("image_url"):
        return {"image_url": engine["image_url"]}
    return None if not with_code else {}


def _channel_in(ch: dict[str, Any]) -> dict[str, Any]:
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


def _channel_out(ch: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"name": ch.get("name"),
                           "obs_url": _obs(((ch.get("remote") or {}).get("obs") or {}).get("obs_url"))}
    for key in ("local_dir", "description"):
        if ch.get(key):
            out[key] = ch[key]
    return out


def _algorithm(alg: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {k: alg[k] for k in _ALGORITHM_PLAIN if alg.get(k)}
    by_reference = "id" in out or "subscription_id" in out
    if not by_reference:  # an algorithm by reference comes back with its code and engine: not declared
        out.update({k: _obs(alg[k]) for k in _ALGORITHM_OBS if alg.get(k)})
    if not by_reference and isinstance(alg.get("engine"), dict):
        engine = _engine(alg["engine"], "code_dir" in out)
        if engine:
            out["engine"] = engine
    params = [{"name": p.get("name"), "value": as_text(p.get("value")) or ""}
              for p in as_list(alg.get("parameters")) if isinstance(p, dict) and p.get("name")]
    if params:
        out["parameters"] = params
    inputs = [_channel_in(c) for c in as_list(alg.get("inputs")) if isinstance(c, dict) and c.get("name")]
    if inputs:
        out["inputs"] = inputs
    outputs = [_channel_out(c) for c in as_list(alg.get("outputs")) if isinstance(c, dict) and c.get("name")]
    if outputs:
        out["outputs"] = outputs
    if isinstance(alg.get("environments"), dict) and alg["environments"]:
        out["environments"] = {str(k): str(v) for k, v in alg["environments"].items()}
    policies = alg.get("policies")
    search = auto_search_of(policies.get("auto_search")) if isinstance(policies, dict) else None
    if search:
        out["policies"] = {"auto_search": search}
    return out


def declaration_of(job: TrainingJob) -> dict[str, Any]:
    """The TrainingJob inputs (python naming) that declare this live job."""
    live = job.to_wire()
    meta = live.get("metadata") or {}
    spec = live.get("spec") or {}
    resource = spec.get("resource") or {}
    out: dict[str, Any] = {"name": meta.get("name") or job.name}
    if meta.get("description"):
        out["description"] = meta["description"]
    workspace = meta.get("workspace_id")
    if workspace not in (None, "", DEFAULT_WORKSPACE):
        out["workspace_id"] = workspace
    annotations = {str(k): str(v) for k, v in (meta.get("annotations") or {}).items()
                   if not str(k).startswith(OWNERSHIP_PREFIX)}
    if annotations:
        out["annotations"] = annotations
    tags = {k: v for k, v in (job.tags or {}).items() if not k.startswith(OWNER_TAG_PREFIX)}
    if tags:  # where they were read (import reads them)
        out["tags"] = tags
    if isinstance(live.get("algorithm"), dict):
        out["algorithm"] = _algorithm(live["algorithm"])
    for key in ("flavor_id", "pool_id"):
        if resource.get(key):
            out[key] = resource[key]
    if resource.get("node_count") not in (None, 1, "1"):
        out["node_count"] = int(resource["node_count"])
    volumes = [{"read_only": False, **(v.get("nfs") or {})} for v in as_list(spec.get("volumes")) if isinstance(v, dict)]
    if volumes:
        out["volumes"] = volumes
    log = spec.get("log_export_path")
    if isinstance(log, dict) and (log.get("obs_url") or log.get("host_path")):
        out["log_export_path"] = {k: (_obs(v) if k == "obs_url" else v) for k, v in log.items()
                                  if k in ("obs_url", "host_path") and v}
    stop = spec.get("auto_stop")
    if isinstance(stop, dict) and stop.get("duration"):
        out["auto_stop"] = {"time_unit": stop.get("time_unit") or "HOURS", "duration": int(stop["duration"])}
    return out

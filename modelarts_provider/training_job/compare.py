"""Declared args vs a live job, field by field (adoption and create takeover).

Only what the declaration states is compared: the service echoes defaults (algorithm parameters,
local dirs, engine ids) that a declaration need not repeat. OBS paths compare in either spelling.
The description is not compared: it is updatable, so a takeover just updates it. The workspace is
always compared (undeclared means the default workspace "0"). Environment values are never quoted:
they may be secrets.
"""

from __future__ import annotations

import re
from typing import Any

from .args import TrainingJobArgs
from .wire_forms import DEFAULT_WORKSPACE
from ..client.models import TrainingJob, as_list, as_text, normalize_obs_path
from .search_form import auto_search_of, search_summary


def _norm(v: Any) -> Any:
    return normalize_obs_path(v) if isinstance(v, str) else v


# Names whose values are likely credentials: never quoted in a message.
SECRET_LOOKING = re.compile(r"(?i)key|secret|token|passw|credential|auth")


def _fmt(v: Any) -> str:
    return "(unset)" if v is None else repr(v)


def _same(declared: Any, actual: Any) -> bool:
    """Equal, or the same number in the other JSON type (the client keeps either as received)."""
    if declared == actual:
        return True
    scalars = (str, int, float)
    return (isinstance(declared, scalars) and isinstance(actual, scalars)
            and not isinstance(declared, bool) and not isinstance(actual, bool)
            and isinstance(declared, str) != isinstance(actual, str) and str(declared) == str(actual))


def mismatches(args: TrainingJobArgs, job: TrainingJob) -> list[str]:
    """'field: declared X, live Y' for every declared field the live job does not match."""
    live = job.to_wire()
    out: list[str] = []

    def cmp(field: str, declared: Any, actual: Any, obs: bool = False) -> None:
        a, b = (_norm(declared), _norm(actual)) if obs else (declared, actual)
        if not _same(a, b):
            if SECRET_LOOKING.search(field):
                out.append(f"{field}: differs (values not shown)")
            else:
                out.append(f"{field}: declared {_fmt(declared)}, live {_fmt(actual)}")

    meta = live.get("metadata", {})
    if args.name is not None:
        cmp("name", args.name, meta.get("name"))
    cmp("workspace_id", args.workspace_id or DEFAULT_WORKSPACE, meta.get("workspace_id") or DEFAULT_WORKSPACE)
    live_ann = meta.get("annotations")
    # A response without annotations says nothing of them: the service may leave them out (ownership.py).
    for k, v in sorted(args.annotations.items()) if live_ann is not None else ():
        cmp(f"annotations[{k}]", v, live_ann.get(k))

    if args.algorithm is not None:
        _cmp_algorithm(args, live.get("algorithm") or {}, cmp)
    res = (live.get("spec") or {}).get("resource") or {}
    if args.flavor_id is not None:
        cmp("flavor_id", args.flavor_id, res.get("flavor_id"))
    if args.pool_id is not None:
        cmp("pool_id", args.pool_id, res.get("pool_id"))
    cmp("node_count", args.node_count, res.get("node_count", 1))
    spec = live.get("spec") or {}
    declared_vols = [v.model_dump() for v in args.volumes]
    live_vols = [{"read_only": False, **(v.get("nfs") or {})} for v in as_list(spec.get("volumes"))]
    if declared_vols != live_vols:
        cmp("volumes", declared_vols, live_vols)
    if args.log_export_path is not None:
        log = spec.get("log_export_path") or {}
        if args.log_export_path.obs_url is not None:
            cmp("log_export_path.obs_url", args.log_export_path.obs_url, log.get("obs_url"), obs=True)
        if args.log_export_path.host_path is not None:
            cmp("log_export_path.host_path", args.log_export_path.host_path, log.get("host_path"))
    if args.auto_stop is not None:
        stop = spec.get("auto_stop") or {}
        cmp("auto_stop.duration", args.auto_stop.duration, stop.get("duration"))
    return out


def _cmp_algorithm(args: TrainingJobArgs, alg: dict[str, Any], cmp: Any) -> None:
    a = args.algorithm
    assert a is not None
    for key in ("id", "subscription_id", "item_version_id", "command", "local_code_dir", "working_dir"):
        if getattr(a, key) is not None:
            cmp(f"algorithm.{key}", getattr(a, key), alg.get(key))
    for key in ("code_dir", "boot_file", "autosearch_config_path", "autosearch_framework_path"):
        if getattr(a, key) is not None:
            cmp(f"algorithm.{key}", getattr(a, key), alg.get(key), obs=True)
    if a.engine is not None:
        live_engine = alg.get("engine") or {}
        for key, value in a.engine.model_dump(exclude_none=True).items():
            cmp(f"algorithm.engine.{key}", value, live_engine.get(key))
    live_params = {p.get("name"): as_text(p.get("value")) for p in as_list(alg.get("parameters"))}
    for p in a.parameters:
        cmp(f"algorithm.parameters[{p.name}]", p.value, live_params.get(p.name))
    if a.policies is not None and a.policies.auto_search is not None:
        # the service's own search, in the one shape an import declares it (search_form.py)
        declared = auto_search_of(a.policies.auto_search.model_dump(exclude_none=True))
        live_policies = alg.get("policies") if isinstance(alg.get("policies"), dict) else {}
        live = auto_search_of(live_policies.get("auto_search"))
        if declared != live:
            cmp("algorithm.policies.auto_search", search_summary(declared), search_summary(live) or "no search")
    live_env = alg.get("environments") or {}
    differing = sorted(k for k, v in a.environments.items() if live_env.get(k) != v)
    if differing:
        cmp("algorithm.environments", f"values of {', '.join(differing)} (not shown)", "different values")
    live_in = {c.get("name"): c for c in as_list(alg.get("inputs"))}
    for c in a.inputs:
        remote = (live_in.get(c.name) or {}).get("remote") or {}
        if c.obs_url is not None:
            cmp(f"algorithm.inputs[{c.name}].obs_url", c.obs_url, (remote.get("obs") or {}).get("obs_url"),
                obs=True)
        elif c.dataset is not None:
            ds = remote.get("dataset") or {}
            cmp(f"algorithm.inputs[{c.name}].dataset", (c.dataset.id, c.dataset.version_id),
                (ds.get("id"), ds.get("version_id")))
    live_out = {c.get("name"): c for c in as_list(alg.get("outputs"))}
    for o in a.outputs:
        remote = (live_out.get(o.name) or {}).get("remote") or {}
        cmp(f"algorithm.outputs[{o.name}].obs_url", o.obs_url, (remote.get("obs") or {}).get("obs_url"), obs=True)

"""Create-request validation: the documented rules of ``POST /v2/{project_id}/training-jobs``.

``validate_create`` turns a raw request body into a ``JobDraft``: the algorithm, tasks and spec
exactly as the service echoes them (defaults filled in, engine and flavor resolved from the catalog)
plus the emulator-only lifecycle choices read from the annotations. Any violation raises an
``ApiError`` carrying the documented code; 2788 errors name the offending parameter.

Tasks (create page: "not implemented currently") are accepted in the documented request shape
(Tables 15-37: channel arrays of ``{name, remote: {obs: {obs_url}}}``) and echoed in the documented
response shape (TaskResponse, Tables 67-75): ``inputs`` and ``outputs`` one object each, so a task
takes at most one channel of each (our assumption), and ``task_resource`` a FlavorResponse.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .. import errors
from ..auto_search import space as auto_search
from ..catalog.model import Catalog, Engine

NAME_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}\Z")
# obs://bucket/path or /bucket/path; bucket names follow the OBS rules (3-63 of a-z 0-9 . -).
OBS_RE = re.compile(r"^(?:obs://|/)([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:/[^\s]*)?\Z")
IMAGE_RE = re.compile(r"^[^\s]+\Z")
DESCRIPTION_MAX = 256
JOB_KINDS = {"job"}
OUTCOMES = {"complete", "fail", "abnormal", "hang"}
ANN_OUTCOME = "emulator/outcome"
ANN_RUN_SECONDS = "emulator/run-seconds"
ANN_EXIT_CODE = "emulator/exit-code"
ANN_MESSAGE = "emulator/message"
INPUT_LOCAL_ROOT = "/home/ma-user/modelarts/inputs"
OUTPUT_LOCAL_ROOT = "/home/ma-user/modelarts/outputs"


@dataclass
class JobDraft:
    """A validated create request, ready to be stored."""

    name: str
    description: str
    workspace_id: str
    annotations: dict[str, str]
    algorithm: dict[str, Any]
    spec: dict[str, Any]
    node_count: int
    outcome: str  # complete | fail | abnormal | hang
    run_seconds: float | None  # None: use the server default
    exit_code: int
    message: str | None
    tasks: list[dict[str, Any]] | None = None  # TaskResponse shapes


# --- small typed getters that raise 2788 naming the parameter -------------------------------------

def _obj(value: Any, param: str, required: bool = False) -> dict[str, Any] | None:
    if value is None:
        if required:
            raise errors.invalid_param(param, "is required")
        return None
    if not isinstance(value, dict):
        raise errors.invalid_param(param, "must be an object")
    return value


def _list(value: Any, param: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise errors.invalid_param(param, "must be an array")
    return value


def _objects(value: Any, param: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each object of an array parameter, with its own parameter path (`param[i]`)."""
    for i, item in enumerate(_list(value, param)):
        found = _obj(item, f"{param}[{i}]")
        assert found is not None
        yield f"{param}[{i}]", found


def _str(value: Any, param: str, required: bool = False) -> str | None:
    if value is None or value == "":
        if required:
            raise errors.invalid_param(param, "is required")
        return None if value is None else ""
    if not isinstance(value, str):
        raise errors.invalid_param(param, "must be a string")
    return value


def _int(value: Any, param: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise errors.invalid_param(param, "must be an integer")
    return value


def _obs(value: Any, param: str, required: bool = False) -> str | None:
    s = _str(value, param, required)
    if s and not OBS_RE.match(s):
        raise errors.invalid_obs_path(param, s)
    return s


def _str_map(value: Any, param: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise errors.invalid_param(param, "must be a map of strings")
    for k, v in value.items():
        if not isinstance(v, str):
            raise errors.invalid_param(f"{param}.{k}", "must be a string")
    return dict(value)


# --- top level --------------------------------------------------------------------------------------

def validate_create(body: Any, catalog: Catalog, *, environments_as_array: bool = False) -> JobDraft:
    if not isinstance(body, dict):
        raise errors.bad_json("The body must be a JSON object.")
    kind = _str(body.get("kind"), "kind", required=True)
    if kind not in JOB_KINDS:
        raise errors.invalid_param("kind", f"must be one of {sorted(JOB_KINDS)}")
    tasks, task_nodes = validate_tasks(body.get("tasks"), catalog)

    meta = _obj(body.get("metadata"), "metadata", required=True)
    assert meta is not None
    name = _name(meta.get("name"))
    description = _description(meta.get("description"))
    workspace_id = _workspace_id(meta.get("workspace_id"))
    annotations = _str_map(meta.get("annotations"), "metadata.annotations")
    outcome, run_seconds, exit_code, message = _emulator_annotations(annotations)

    # a job is described by algorithm + spec, or by tasks (then both are optional)
    alg = _obj(body.get("algorithm"), "algorithm", required=not tasks)
    algorithm = validate_algorithm(alg, catalog, environments_as_array=environments_as_array) if alg is not None else {}
    spec_body = _obj(body.get("spec"), "spec", required=not tasks)
    spec, node_count = validate_spec(spec_body, catalog) if spec_body is not None else ({}, task_nodes)
    return JobDraft(name=name, description=description, workspace_id=workspace_id,
                    annotations=annotations, algorithm=algorithm, spec=spec,
                    node_count=node_count, outcome=outcome, run_seconds=run_seconds,
                    exit_code=exit_code, message=message, tasks=tasks or None)


# --- metadata (the create page's Table 3): one rule per field ---------------------------------------------


def _name(value: Any) -> str:
    name = _str(value, "metadata.name", required=True)
    assert name is not None
    if not NAME_RE.match(name):
        raise errors.invalid_param(
            "metadata.name", "must be 1 to 64 characters of letters, digits, _ and -")
    return name


def _description(value: Any) -> str:
    description = _str(value, "metadata.description") or ""
    if len(description) > DESCRIPTION_MAX:
        raise errors.invalid_param("metadata.description",
                                   f"must be at most {DESCRIPTION_MAX} characters")
    return description


def _workspace_id(value: Any) -> str:
    """A string; none (or empty) is the default workspace, "0" (documented default)."""
    return _str(value, "metadata.workspace_id") or "0"


def _emulator_annotations(ann: dict[str, str]) -> tuple[str, float | None, int, str | None]:
    outcome = ann.get(ANN_OUTCOME, "complete")
    if outcome not in OUTCOMES:
        raise errors.invalid_param(f"metadata.annotations.{ANN_OUTCOME}",
                                   f"must be one of {sorted(OUTCOMES)}")
    run_seconds: float | None = None
    if ANN_RUN_SECONDS in ann:
        try:
            run_seconds = float(ann[ANN_RUN_SECONDS])
        except ValueError:
            run_seconds = -1.0
        if not math.isfinite(run_seconds) or run_seconds < 0:
            raise errors.invalid_param(f"metadata.annotations.{ANN_RUN_SECONDS}",
                                       "must be a number of seconds >= 0")
    exit_code = 1 if outcome == "fail" else (-1 if outcome == "abnormal" else 0)
    if ANN_EXIT_CODE in ann:
        try:
            exit_code = int(ann[ANN_EXIT_CODE])
        except ValueError:
            raise errors.invalid_param(f"metadata.annotations.{ANN_EXIT_CODE}",
                                       "must be an integer") from None
    return outcome, run_seconds, exit_code, ann.get(ANN_MESSAGE)


# --- algorithm ---------------------------------------------------------------------------------------

def validate_algorithm(alg: dict[str, Any] | None, catalog: Catalog, *,
                       environments_as_array: bool = False) -> dict[str, Any]:
    """algorithm (the create page's Table 4): its form, then one rule per part, each below."""
    assert alg is not None
    form, engine = _algorithm_form(alg)
    params = _parameters(alg.get("parameters"))
    if form in ("id", "subscription_id+item_version_id"):
        out = _by_reference(alg, form, engine, params, catalog)
    else:
        out = _own_code_or_image(alg, form, engine, params, catalog)
    out.update(_algorithm_paths(alg))
    _put_given(out, "inputs", _inputs(alg.get("inputs"), "algorithm.inputs"))
    _put_given(out, "outputs", _outputs(alg.get("outputs"), "algorithm.outputs"))
    out["policies"] = _policies(alg.get("policies"), params)
    envs = _environments(alg.get("environments"))
    if envs:
        # Echoed as one map, as the service answers: terraform-provider-huaweicloud reads it into a map
        # (schema.TypeMap) and its acceptance test checks algorithm.0.environments.TRAIN_URL after a read.
        # The response table and the SDK's JobAlgorithmResponse say an array of key:value maps: that is
        # --environments-shape array.
        out["environments"] = [{k: v} for k, v in envs.items()] if environments_as_array else envs
    return out


def _algorithm_form(alg: dict[str, Any]) -> tuple[str, dict[str, Any] | None]:
    """Exactly one of id, subscription_id+item_version_id, code_dir+boot_file, engine.image_url+command (and
    the engine object, checked among them)."""
    alg_id = _str(alg.get("id"), "algorithm.id")
    sub_id = _str(alg.get("subscription_id"), "algorithm.subscription_id")
    item_ver = _str(alg.get("item_version_id"), "algorithm.item_version_id")
    code_dir = _str(alg.get("code_dir"), "algorithm.code_dir")
    boot_file = _str(alg.get("boot_file"), "algorithm.boot_file")
    command = _str(alg.get("command"), "algorithm.command")
    engine = _obj(alg.get("engine"), "algorithm.engine")
    image_url = _str(engine.get("image_url"), "algorithm.engine.image_url") if engine else None
    forms = []
    if alg_id:
        forms.append("id")
    if sub_id or item_ver:
        if not (sub_id and item_ver):
            raise errors.invalid_param("algorithm.subscription_id",
                                       "must be used together with item_version_id")
        forms.append("subscription_id+item_version_id")
    if code_dir or boot_file:
        if not (code_dir and boot_file):
            raise errors.invalid_param("algorithm.code_dir",
                                       "code_dir and boot_file must be used together")
        forms.append("code_dir+boot_file")
    if command:
        if not image_url:
            raise errors.invalid_param("algorithm.command",
                                       "is only for custom images (set algorithm.engine.image_url)")
        if not code_dir:
            forms.append("engine.image_url+command")
    if not forms:
        raise errors.invalid_param(
            "algorithm", "set exactly one of id, subscription_id+item_version_id, "
            "code_dir+boot_file, or engine.image_url+command")
    if len(forms) > 1:
        raise errors.invalid_param("algorithm", f"only one algorithm form may be set, got {forms}")
    return forms[0], engine


def _by_reference(alg: dict[str, Any], form: str, engine: dict[str, Any] | None, params: list[dict[str, Any]],
                  catalog: Catalog) -> dict[str, Any]:
    """An algorithm of the catalog (id) or a subscription: its code, engine and parameters come from there."""
    if engine:
        raise errors.invalid_param(
            "algorithm.engine", "leave it blank when the algorithm is chosen by id or subscription")
    sub_id, item_ver = alg.get("subscription_id"), alg.get("item_version_id")
    found = (catalog.algorithms.get(alg.get("id") or "") if form == "id"
             else catalog.subscription(sub_id or "", item_ver or ""))
    if found is None:
        raise errors.algorithm_not_found()
    stored_engine = catalog.engines.get(found.engine_id)
    out: dict[str, Any] = {}
    if form == "id":
        out["id"] = found.id
    else:
        out["subscription_id"] = sub_id
        out["item_version_id"] = item_ver
    out["name"] = found.name
    out["code_dir"] = found.code_dir
    out["boot_file"] = found.boot_file
    out["parameters"] = _merge_parameters(found.parameters, params)
    if stored_engine is not None:
        out["engine"] = stored_engine.echo()
    return out


def _own_code_or_image(alg: dict[str, Any], form: str, engine: dict[str, Any] | None,
                       params: list[dict[str, Any]], catalog: Catalog) -> dict[str, Any]:
    """Own code in OBS (boot file inside the code directory) or a custom image, on an engine of the catalog."""
    out: dict[str, Any] = {}
    if form == "code_dir+boot_file":
        code_dir = _obs(alg.get("code_dir"), "algorithm.code_dir", required=True)
        boot_file = _obs(alg.get("boot_file"), "algorithm.boot_file", required=True)
        assert code_dir and boot_file
        if not boot_file.startswith(code_dir.rstrip("/") + "/"):
            raise errors.invalid_param("algorithm.boot_file",
                                       "must be stored in the code directory (code_dir)")
        out["code_dir"] = code_dir
        out["boot_file"] = boot_file
    command = alg.get("command")
    if command:
        out["command"] = command
    out["parameters"] = [_echo_parameter(p) for p in params]
    out["engine"] = _engine(engine, catalog, "algorithm.engine")
    return out


def _algorithm_paths(alg: dict[str, Any]) -> dict[str, Any]:
    """The auto search paths (OBS URLs) and the container's directories (local_code_dir under /home)."""
    out: dict[str, Any] = {}
    for key in ("autosearch_config_path", "autosearch_framework_path"):
        value = _obs(alg.get(key), f"algorithm.{key}")
        if value:
            out[key] = value
    for key in ("local_code_dir", "working_dir"):
        value = _str(alg.get(key), f"algorithm.{key}")
        if value:
            if key == "local_code_dir" and not (value == "/home" or value.startswith("/home/")):
                raise errors.invalid_param("algorithm.local_code_dir",
                                           "must be a directory in /home")
            out[key] = value
    return out


def _policies(value: Any, params: list[dict[str, Any]]) -> dict[str, Any]:
    """algorithm.policies: the service's own search (auto_search/), over the declared parameters."""
    policies = _obj(value, "algorithm.policies") or {}
    out = {k: v for k, v in policies.items() if v is not None}
    searched = auto_search.validate(policies.get("auto_search"), {p["name"] for p in params})
    if searched is not None:
        out["auto_search"] = searched
    else:
        out.pop("auto_search", None)
    return out


def _engine(engine: dict[str, Any] | None, catalog: Catalog, where: str) -> dict[str, Any]:
    if not engine:
        raise errors.invalid_param(
            where, "is required (engine_id, engine_name+engine_version or image_url)")
    engine_id = _str(engine.get("engine_id"), f"{where}.engine_id")
    name = _str(engine.get("engine_name"), f"{where}.engine_name")
    version = _str(engine.get("engine_version"), f"{where}.engine_version")
    image = _str(engine.get("image_url"), f"{where}.image_url")
    chosen = [x for x in (engine_id, name or version, image) if x]
    if len(chosen) != 1:
        raise errors.invalid_param(
            where, "set exactly one of engine_id, engine_name+engine_version, image_url")
    found: Engine | None
    if engine_id:
        found = catalog.engines.get(engine_id)
        if found is None:
            raise errors.engine_not_found(engine_id)
        return found.echo()
    if name or version:
        if not (name and version):
            raise errors.invalid_param(f"{where}.engine_version",
                                       "engine_name and engine_version must be used together")
        found = catalog.engine_by_name(name, version)
        if found is None:
            raise errors.engine_not_found(f"{name} {version}")
        return found.echo()
    assert image
    if not IMAGE_RE.match(image):
        raise errors.invalid_param(f"{where}.image_url", "must be an image URL")
    return {"image_url": image}


def _parameters(value: Any) -> list[dict[str, Any]]:
    out = []
    for where, p in _objects(value, "algorithm.parameters"):
        name = _str(p.get("name"), f"{where}.name", required=True)
        raw = p.get("value", "")
        if isinstance(raw, bool) or not isinstance(raw, (str, int, float)):
            if raw is not None:
                raise errors.invalid_param(f"{where}.value", "must be a string")
            raw = ""
        out.append({**p, "name": name, "value": str(raw)})
    return out


def _constraint(type_: str = "String", required: bool = False, editable: bool = True) -> dict:
    return {"type": type_, "editable": editable, "required": required, "sensitive": False,
            "valid_type": "None", "valid_range": []}


def _echo_parameter(p: dict[str, Any]) -> dict[str, Any]:
    return {"name": p["name"], "description": p.get("description", "") or "",
            "i18n_description": p.get("i18n_description"), "value": p["value"],
            "constraint": p.get("constraint") or _constraint()}


def _merge_parameters(defined, given: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Algorithm-defined parameters with the request's values; unknown names are appended."""
    given_by_name = {p["name"]: p for p in given}
    out = []
    for d in defined:
        value = given_by_name.pop(d.name, {}).get("value", d.value)
        out.append({"name": d.name, "description": d.description, "i18n_description": None,
                    "value": value,
                    "constraint": _constraint(d.type, d.required, d.editable)})
    out.extend(_echo_parameter(p) for p in given_by_name.values())
    return out


def _put_given(out: dict[str, Any], key: str, value: Any) -> None:
    """Echo a field only when it was given (the service leaves an empty one out of its answer)."""
    if value:
        out[key] = value


def _channel_name(ch: dict[str, Any], param: str, seen: set[str]) -> str:
    name = _str(ch.get("name"), f"{param}.name", required=True)
    assert name is not None
    if name in seen:
        raise errors.invalid_param(f"{param}.name", f"duplicate channel name {name}")
    seen.add(name)
    return name


def _channels(value: Any, where: str) -> Iterator[tuple[int, str, dict[str, Any], str, dict[str, Any]]]:
    """Each input or output channel, checked as both kinds are: an object with a unique name and a remote
    object; yields (index, its parameter path, the channel, its name, its remote)."""
    seen: set[str] = set()
    for i, (param, ch) in enumerate(_objects(value, where)):
        name = _channel_name(ch, param, seen)
        remote = _obj(ch.get("remote"), f"{param}.remote", required=True)
        assert remote is not None
        yield i, param, ch, name, remote


def _echo_channel(ch: dict[str, Any], param: str, name: str, default_local_dir: str) -> dict[str, Any]:
    """The part of a channel the service echoes as given (a local_dir it makes up when none is given)."""
    echoed: dict[str, Any] = {"name": name}
    if ch.get("description"):
        echoed["description"] = _str(ch["description"], f"{param}.description")
    echoed["local_dir"] = _str(ch.get("local_dir"), f"{param}.local_dir") or default_local_dir
    return echoed


def _inputs(value: Any, where: str, *, obs_only: bool = False) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i, param, ch, name, remote in _channels(value, where):
        obs = _obj(remote.get("obs"), f"{param}.remote.obs")
        dataset = _obj(remote.get("dataset"), f"{param}.remote.dataset")
        if obs_only and dataset:
            raise errors.invalid_param(f"{param}.remote.dataset",
                                       "heterogeneous jobs support only OBS (remote.obs)")
        if bool(obs) == bool(dataset):
            raise errors.invalid_param(f"{param}.remote", "set exactly one of obs or dataset")
        echoed = _echo_channel(ch, param, name, f"{INPUT_LOCAL_ROOT}/{name}_{i}")
        if obs:
            url = _obs(obs.get("obs_url"), f"{param}.remote.obs.obs_url", required=True)
            echoed["remote"] = {"obs": {"obs_url": url}}
        else:
            assert dataset is not None
            ds_id = _str(dataset.get("id"), f"{param}.remote.dataset.id", required=True)
            ver = _str(dataset.get("version_id"), f"{param}.remote.dataset.version_id",
                       required=True)
            # ModelArts resolves the dataset version to its OBS location; we make one up.
            echoed["remote"] = {"dataset": {"id": ds_id, "version_id": ver,
                                            "obs_url": f"/modelarts-datasets/{ds_id}/{ver}/"}}
        out.append(echoed)
    return out


def _outputs(value: Any, where: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i, param, ch, name, remote in _channels(value, where):
        obs = _obj(remote.get("obs"), f"{param}.remote.obs", required=True)
        assert obs is not None
        url = _obs(obs.get("obs_url"), f"{param}.remote.obs.obs_url", required=True)
        echoed = _echo_channel(ch, param, name, f"{OUTPUT_LOCAL_ROOT}/{name}_{i}")
        echoed["remote"] = {"obs": {"obs_url": url}}
        out.append(echoed)
    return out


def _environments(value: Any) -> dict[str, str]:
    """Accept the map form (examples, SDK) and the array-of-maps form (response table)."""
    if value is None:
        return {}
    if isinstance(value, dict):
        return _str_map(value, "algorithm.environments")
    if isinstance(value, list):
        merged: dict[str, str] = {}
        for i, item in enumerate(value):
            merged.update(_str_map(item, f"algorithm.environments[{i}]"))
        return merged
    raise errors.invalid_param("algorithm.environments", "must be a map of strings")


# --- tasks -----------------------------------------------------------------------------------------

def validate_tasks(value: Any, catalog: Catalog) -> tuple[list[dict[str, Any]], int]:
    """``tasks[]`` -> (TaskResponse objects, total node count)."""
    out, nodes = [], 0
    for where, task in _objects(value, "tasks"):
        echoed: dict[str, Any] = {}
        role = _str(task.get("role"), f"{where}.role")
        if role:
            echoed["role"] = role
        alg = _obj(task.get("algorithm"), f"{where}.algorithm")
        if alg is not None:
            echoed["algorithm"] = _task_algorithm(alg, f"{where}.algorithm", catalog)
        resource, node_count = _task_resource(
            _obj(task.get("task_resource"), f"{where}.task_resource", required=True), f"{where}.task_resource",
            catalog)
        echoed["task_resource"] = resource
        nodes += node_count
        out.append(echoed)
    return out, nodes


def _task_algorithm(alg: dict[str, Any], where: str, catalog: Catalog) -> dict[str, Any]:
    out: dict[str, Any] = {}
    code_dir = _obs(alg.get("code_dir"), f"{where}.code_dir")
    boot_file = _obs(alg.get("boot_file"), f"{where}.boot_file")
    if bool(code_dir) != bool(boot_file):
        raise errors.invalid_param(f"{where}.code_dir", "code_dir and boot_file must be used together")
    if code_dir and boot_file:
        out["code_dir"], out["boot_file"] = code_dir, boot_file
    # one object each in the response (Tables 68-72): a task takes at most one channel of each
    for key, check in (("inputs", lambda v, w: _inputs(v, w, obs_only=True)), ("outputs", _outputs)):
        channels = check(alg.get(key), f"{where}.{key}")
        if len(channels) > 1:
            raise errors.invalid_param(f"{where}.{key}", "at most one channel per task (the response "
                                                         "documents one object)")
        if channels:
            ch = {k: v for k, v in channels[0].items() if k != "description"}  # not in Tables 69/72
            if key == "outputs":
                # Table 72 and the SDK: mode and period are Strings, defaults upload_periodically / 30s
                ch.update(mode="upload_periodically", period="30s")
            out[key] = ch
    engine = _obj(alg.get("engine"), f"{where}.engine")
    if engine is not None:
        out["engine"] = _engine(engine, catalog, f"{where}.engine")
    job_config = _obj(alg.get("job_config"), f"{where}.job_config")
    if job_config is not None:  # validated; the response tables have no job_config
        _parameters(job_config.get("parameters"))
        _inputs(job_config.get("inputs"), f"{where}.job_config.inputs")
        _outputs(job_config.get("outputs"), f"{where}.job_config.outputs")
        if job_config.get("engine") is not None:
            _engine(_obj(job_config["engine"], f"{where}.job_config.engine"), catalog,
                    f"{where}.job_config.engine")
    for key in ("local_code_dir", "working_dir"):
        value = _str(alg.get(key), f"{where}.{key}")
        if value:
            if key == "local_code_dir" and not (value == "/home" or value.startswith("/home/")):
                raise errors.invalid_param(f"{where}.local_code_dir", "must be a directory in /home")
            out[key] = value
    return out


def _task_resource(res: dict[str, Any] | None, where: str, catalog: Catalog) -> tuple[dict[str, Any], int]:
    """Table 37 (flavor_id, node_count mandatory) -> FlavorResponse (Table 76)."""
    assert res is not None
    node_count = _int(res.get("node_count"), f"{where}.node_count")
    if node_count is None or node_count < 1:
        raise errors.invalid_param(f"{where}.node_count", "is required and must be at least 1")
    flavor_id = _str(res.get("flavor_id"), f"{where}.flavor_id")
    if not flavor_id:
        return {}, node_count
    flavor = catalog.flavors.get(flavor_id)
    if flavor is None:
        raise errors.flavor_not_found(flavor_id)
    if node_count > flavor.max_num:
        raise errors.flavor_invalid(
            f"node_count {node_count} exceeds the maximum of {flavor.max_num} nodes for this flavor.")
    return {"flavor_id": flavor.flavor_id, "flavor_name": flavor.flavor_name, "max_num": flavor.max_num,
            **flavor.detail()}, node_count


# --- spec ------------------------------------------------------------------------------------------

def validate_spec(spec: dict[str, Any] | None, catalog: Catalog) -> tuple[dict[str, Any], int]:
    """spec (the create page's Table 38): one rule per part, each below."""
    assert spec is not None
    resource, node_count = _resource(spec.get("resource"), catalog)
    out: dict[str, Any] = {"resource": resource}
    volumes = _volumes(spec.get("volumes"))
    if volumes:
        out["volumes"] = volumes
    out["log_export_path"] = _log_export_path(spec.get("log_export_path"))
    auto_stop = _auto_stop(spec.get("auto_stop"))
    if auto_stop is not None:
        out["auto_stop"] = auto_stop
    return out, node_count


def _resource(value: Any, catalog: Catalog) -> tuple[dict[str, Any], int]:
    """spec.resource (Table 39): flavor_id, or pool_id with an optional flavor_id; node_count within both."""
    res = _obj(value, "spec.resource", required=True)
    assert res is not None
    flavor_id = _str(res.get("flavor_id"), "spec.resource.flavor_id")
    pool_id = _str(res.get("pool_id"), "spec.resource.pool_id")
    node_count = _int(res.get("node_count"), "spec.resource.node_count")
    if node_count is None:
        node_count = 1
    if node_count < 1:
        raise errors.invalid_param("spec.resource.node_count", "must be at least 1")
    if not flavor_id and not pool_id:
        raise errors.invalid_param("spec.resource", "set flavor_id, or pool_id with an optional flavor_id")

    flavor = None
    if flavor_id:
        flavor = catalog.flavors.get(flavor_id)
        if flavor is None:
            raise errors.flavor_not_found(flavor_id)
    max_nodes = flavor.max_num if flavor else 1
    resource: dict[str, Any] = {"policy": flavor.policy if flavor else "regular"}
    if pool_id:
        pool = catalog.pools.get(pool_id)
        if pool is None:
            raise errors.invalid_param("spec.resource.pool_id", f"resource pool {pool_id} does not exist")
        if flavor is not None:
            if pool.flavor_type == "CPU":
                raise errors.flavor_invalid(
                    f"flavor_id cannot be specified for the CPU resource pool {pool_id}.")
            if flavor.flavor_id not in pool.flavors:
                raise errors.flavor_invalid(
                    f"The flavor {flavor.flavor_id} is not available in resource pool {pool_id}.")
        max_nodes = min(max_nodes, pool.max_nodes) if flavor else pool.max_nodes
    elif flavor is not None and flavor.dedicated:
        raise errors.flavor_invalid(
            f"The flavor {flavor.flavor_id} can only be used in a dedicated resource pool (pool_id).")
    if node_count > max_nodes:
        raise errors.flavor_invalid(
            f"node_count {node_count} exceeds the maximum of {max_nodes} nodes for this flavor.")

    if flavor is not None:
        resource["flavor_id"] = flavor.flavor_id
        resource["flavor_name"] = flavor.flavor_name
    resource["node_count"] = node_count
    if pool_id:
        resource["pool_id"] = pool_id
    elif flavor is not None:
        # Documented as available only for public resource pools.
        resource["flavor_detail"] = flavor.detail()
    return resource, node_count


def _volumes(value: Any) -> list[dict[str, Any]]:
    """spec.volumes (Tables 40-41): NFS volumes, host:/path mounted at an absolute path."""
    volumes = []
    for where, vol in _objects(value, "spec.volumes"):
        nfs = _obj(vol.get("nfs"), f"{where}.nfs", required=True)
        assert nfs is not None
        server = _str(nfs.get("nfs_server_path"), f"{where}.nfs.nfs_server_path", required=True)
        local = _str(nfs.get("local_path"), f"{where}.nfs.local_path", required=True)
        assert server and local
        if ":" not in server:
            raise errors.invalid_param(f"{where}.nfs.nfs_server_path",
                                       "must be of the form host:/path")
        if not local.startswith("/"):
            raise errors.invalid_param(f"{where}.nfs.local_path",
                                       "must be an absolute path")
        read_only = nfs.get("read_only", False)
        if not isinstance(read_only, bool):
            raise errors.invalid_param(f"{where}.nfs.read_only", "must be a boolean")
        volumes.append({"nfs": {"nfs_server_path": server, "local_path": local,
                                "read_only": read_only}})
    return volumes


def _log_export_path(value: Any) -> dict[str, Any]:
    """spec.log_export_path (Table 42): an OBS URL and/or a host path."""
    log = _obj(value, "spec.log_export_path") or {}
    log_out: dict[str, Any] = {}
    _put_given(log_out, "obs_url", _obs(log.get("obs_url"), "spec.log_export_path.obs_url"))
    _put_given(log_out, "host_path", _str(log.get("host_path"), "spec.log_export_path.host_path"))
    return log_out


def _auto_stop(value: Any) -> dict[str, Any] | None:
    """spec.auto_stop (Table 43): time_unit HOURS, duration at least 1."""
    auto_stop = _obj(value, "spec.auto_stop")
    if auto_stop is None:
        return None
    unit = auto_stop.get("time_unit")
    if unit != "HOURS":
        raise errors.invalid_param("spec.auto_stop.time_unit", "must be HOURS")
    duration = _int(auto_stop.get("duration"), "spec.auto_stop.duration")
    if duration is None or duration < 1:
        raise errors.invalid_param("spec.auto_stop.duration", "must be an integer >= 1")
    return {"time_unit": unit, "duration": duration}

"""Stack config -> validated TrainingJobArgs per job (and per sweep point). No Pulumi, no API calls."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from ..code_upload.check import directory_failures
from ..code_upload.manifest import Limits, source_of
from ..core.unknowns import STAND_IN_HASH, STAND_IN_NAME, STAND_IN_POOL
from ..training_job.args import TrainingJobArgs
from ..training_job.check import failures_from
from ..training_job.service_limit import auto_stop_arg
from .search_config import SearchConfig
from .config import (PROJECT, JobEntry, MetricConfig, ObjectiveConfig, ObsConfig, StackConfig,
                     StackConfigError, is_absolute_path)
from .job_fields import maps_of
from .sweep import as_param, point_names

FIELDS = maps_of(JobEntry)


@dataclass(frozen=True)
class Upload:
    """A local code directory to upload once, for one job or for every point of a sweep."""

    key: str             # the job key or the sweep key: <code prefix>/<key>/<content hash>/
    obs: str             # the OBS location's name
    local_dir: str
    boot_file: str
    excludes: tuple[str, ...]


@dataclass(frozen=True)
class JobPlan:
    key: str             # export key and Pulumi resource name
    config_path: str     # e.g. modelarts-jobs:jobs.mnist, for messages
    args: TrainingJobArgs  # with code from a local directory: code_dir/boot_file stand-ins (see upload)
    upload: Upload | None = None
    moved_from: tuple[str, ...] = ()  # earlier keys: aliases of the job's resources
    created_pool: str | None = None   # the key of a pool the stack creates: pool_id is its output (declare)
    # Results (issue 23): the sweep a point belongs to and its grid values; what it is scored by.
    sweep: str | None = None
    point: dict[str, Any] | None = None
    objective: ObjectiveConfig | None = None
    search: SearchConfig | None = None  # the service's own search: one job runs every trial
    metrics: tuple[MetricConfig, ...] = ()  # curves read from the log (results/curves.py)
    accept_failed: bool = False  # its failure is recorded, not a blocker (awaiting/accepted.py)


# Stands in for the id of a pool the stack creates until the pool exists (declare passes its output).
PENDING_POOL = STAND_IN_POOL


def _rel(obs: ObsConfig | None, prefix_attr: str, value: str, *extra: str) -> str:
    """A path as written: relative to the OBS location's prefix, or absolute. A folder is written
    with a trailing '/' (or empty: the prefix itself); anything else is a file and keeps its form."""
    if is_absolute_path(value):
        return value
    assert obs is not None  # StackConfig checked that relative paths have an OBS location
    return obs.url(getattr(obs, prefix_attr), *extra, value, folder=value == "" or value.endswith("/"))


def _rel_dir(obs: ObsConfig | None, prefix_attr: str, value: str, *extra: str) -> str:
    """A folder: always ends with '/'."""
    if is_absolute_path(value):
        return value if value.endswith("/") else value + "/"
    assert obs is not None
    return obs.url(getattr(obs, prefix_attr), *extra, value)


def _engine(job: JobEntry) -> dict[str, Any] | None:
    if job.image is not None:
        return {"image_url": job.image}
    e = job.engine
    if e is None:
        return None
    out = {"engine_id": e.id, "engine_name": e.name, "engine_version": e.version, "image_url": e.image}
    return {k: v for k, v in out.items() if v is not None}


# Stands in for the content hash in a code_dir that the upload fills in at deploy time.
PENDING_HASH = STAND_IN_HASH


def upload_of(cfg: StackConfig, job: JobEntry, key: str) -> Upload | None:
    if job.code is None:
        return None
    name = cfg.obs_name_for(job)
    assert name is not None  # StackConfig checked that a job with local code has an OBS location
    return Upload(key, name, job.code.local_dir, job.code.boot_file, tuple(job.code.excludes))


def job_args(cfg: StackConfig, job: JobEntry, out_dir: str, *, name: str | None,
             extra_params: dict[str, Any] | None = None, upload_key: str | None = None) -> dict[str, Any]:
    """The TrainingJobArgs input dict for one job; `out_dir` is its folder under outputs/ and logs/."""
    obs = cfg.obs_for(job)
    pool = cfg.pools[job.pool]
    alg: dict[str, Any] = {}
    if job.subscription is not None:
        alg["subscription_id"] = job.subscription.id
        alg["item_version_id"] = job.subscription.version_id
    if job.code_dir is not None:
        code = _rel_dir(obs, "code", job.code_dir)
        alg["code_dir"] = code
        if job.boot_file is not None:
            alg["boot_file"] = job.boot_file if is_absolute_path(job.boot_file) else code + job.boot_file.lstrip("/")
    elif job.boot_file is not None:
        alg["boot_file"] = job.boot_file  # without code_dir: let the args rules report it
    if job.code is not None and obs is not None:
        # Where the upload will put it; the declared job gets the upload's outputs instead.
        code = obs.url(obs.code, upload_key or out_dir, PENDING_HASH)
        alg["code_dir"] = code
        alg["boot_file"] = code + job.code.boot_file.removeprefix("./").lstrip("/")
    engine = _engine(job)
    if engine is not None:
        alg["engine"] = engine
    params = {**job.parameters, **(extra_params or {})}
    alg["parameters"] = [{"name": k, "value": as_param(v)} for k, v in params.items()]
    alg["inputs"] = [
        {"name": n, "obs_url": _rel(obs, "data", v)} if isinstance(v, str)
        else {"name": n, "dataset": {"id": v.dataset.id, "version_id": v.dataset.version_id}}
        for n, v in job.inputs.items()
    ]
    alg["outputs"] = [{"name": n, "obs_url": _rel_dir(obs, "outputs", v, out_dir)} for n, v in job.outputs.items()]
    alg["environments"] = {k: as_param(v) for k, v in job.environments.items()}
    if job.search is not None:
        alg["policies"] = {"auto_search": job.search.auto_search()}

    args: dict[str, Any] = {
        "name": name,
        "annotations": job.annotations, "retries": job.retries,
        "tags": {**cfg.default_tags, **job.tags},  # Terraform's default_tags: the job's own win
        "algorithm": alg, "flavor_id": pool.flavor,
        "pool_id": PENDING_POOL if pool.create is not None else pool.pool_id,
        "volumes": [v.model_dump() for v in job.volumes],
    }
    for attr, path in FIELDS.direct:  # the fields whose value is the argument (stack/job_fields.py)
        value = getattr(job, attr)
        top, _, sub = path.partition(".")
        if not sub:
            args[top] = value
        elif value is not None:  # a nested argument is left out rather than sent as null
            args[top][sub] = value  # its parent (algorithm) is built above
    if args.get("keep_runs") is None and cfg.keep_runs is not None:
        args["keep_runs"] = cfg.keep_runs  # the stack's default; the job's own keepRuns wins
    if job.logs and obs is not None and obs.logs is not None:
        args["log_export_path"] = {"obs_url": obs.url(obs.logs, out_dir)}
    # The user's own limit; the TrainingJob's check adds the one its wait deadline gives it
    # (training_job/service_limit.py).
    if job.auto_stop_hours is not None:
        args["auto_stop"] = auto_stop_arg(job.auto_stop_hours)
    return args


def config_keys(path: str, job: JobEntry) -> dict[str, str]:
    """Where the values the provider checks against the service's catalogs (training_job/catalog_check.py) or
    warns about (training_job/plaintext_credentials.py) were declared, so that its messages name the config
    key: a flavor comes from the pool."""
    out = {"flavor_id": f"{PROJECT}:pools.{job.pool}.flavor", "algorithm.engine": f"{path}.engine",
           "algorithm.environments": f"{path}.environments"}
    if job.algorithm_id is not None:
        out["algorithm.id"] = f"{path}.algorithmId"
    if job.search is not None:
        out["algorithm.policies"] = f"{path}.search"
    return out


# Resource args name -> the config key users wrote, for messages (stack/job_fields.py), and the one args
# name that no single key stands for.
_CONFIG_NAMES = {**FIELDS.config_names, "algorithm": "algorithm (one of algorithmId, subscription, codeDir + "
                                                     "bootFile + engine, image + command)"}


def _config_field(prop: str) -> str:
    for args_name in sorted(_CONFIG_NAMES, key=len, reverse=True):
        if prop == args_name or prop.startswith(args_name + ".") or prop.startswith(args_name + "["):
            return _CONFIG_NAMES[args_name] + prop[len(args_name):]
    return prop


# Args names a rule's words may still use (the form rules are the config's own, see JobEntry).
_CONFIG_WORDS = FIELDS.words
_WORDS_RE = re.compile(r"\b(" + "|".join(_CONFIG_WORDS) + r")\b")


def _config_words(reason: str) -> str:
    return _WORDS_RE.sub(lambda m: _CONFIG_WORDS[m[1]], reason)


def _validate(path: str, raw: dict[str, Any]) -> TrainingJobArgs:
    derived = raw.get("name") is None and raw.get("adopt_job_id") is None
    # A derived name (resource name + random suffix) only exists at deploy time; validate the rest
    # with a stand-in of the same shape and hand the resource no name.
    # The stand-in is marked derived, as the resource marks the name it derives (rules such as outputPerRun's
    # need a derived name).
    checked = {**raw, "name": STAND_IN_NAME, "derived_name": True} if derived else raw
    try:
        args = TrainingJobArgs.model_validate(checked)
        return args.model_copy(update={"name": None, "derived_name": bool(raw.get("derived_name"))}) if derived else args
    except ValidationError as e:
        parts = [f"{path}.{_config_field(f.property)}: {_config_words(f.reason)}" for f in failures_from(e, raw)]
        raise StackConfigError("\n".join(f"invalid stack config: {p}" for p in parts)) from None  # one per line


# CodeUpload's argument names -> the keys of a job's `code` entry, for messages.
_CODE_NAMES = {"local_dir": "code.localDir", "boot_file": "code.bootFile"}


def _check_code(path: str, job: JobEntry) -> None:
    """The local code directory can be uploaded: refused here in the config's keys, rather than by
    the CodeUpload resource in its own argument names."""
    if job.code is None:
        return
    code = job.code
    _, failures = directory_failures(repr(code.local_dir), source_of(code.local_dir),
                                     code.boot_file.removeprefix("./"), code.excludes, Limits(), _CODE_NAMES)
    if failures:
        raise StackConfigError("\n".join(f"invalid stack config: {path}.{f}" for f in failures))  # one per line


def _created_pool(cfg: StackConfig, job: JobEntry) -> str | None:
    return job.pool if cfg.pools[job.pool].create is not None else None


def plan(cfg: StackConfig) -> list[JobPlan]:
    plans: list[JobPlan] = []
    for section, entries in (("jobs", cfg.jobs), ("sweeps", cfg.sweeps)):
        for key, entry in entries.items():
            _check_code(f"{PROJECT}:{section}.{key}", entry)
    for key, job in cfg.jobs.items():
        path = f"{PROJECT}:jobs.{key}"
        # A moved job keeps everything its first key placed: output folder, code upload.
        home = job.moved_from[0] if job.moved_from else key
        raw = {**job_args(cfg, job, home, name=job.name), "config_keys": config_keys(path, job)}
        plans.append(JobPlan(key, path, _validate(path, raw),
                             upload_of(cfg, job, home), tuple(job.moved_from), _created_pool(cfg, job),
                             objective=job.objective, search=job.search, metrics=tuple(job.metrics),
                             accept_failed=job.accept_failed))
    for sweep_key, sweep in cfg.sweeps.items():
        path = f"{PROJECT}:sweeps.{sweep_key}"
        for point_key, point in point_names(sweep_key, sweep.grid):
            # The point's key names its resource and output folder; its job gets a derived name (the key
            # and a random suffix, like any unnamed job), so two stacks of one sweep never share a name.
            raw = job_args(cfg, sweep, f"{sweep_key}/{point_key}", name=None, extra_params=point,
                           upload_key=sweep_key)
            raw["config_keys"] = config_keys(path, sweep)
            plans.append(JobPlan(point_key, path, _validate(path, raw), upload_of(cfg, sweep, sweep_key),
                                 created_pool=_created_pool(cfg, sweep),
                                 sweep=sweep_key, point=dict(point), objective=sweep.objective,
                                 metrics=tuple(sweep.metrics), accept_failed=sweep.accept_failed))
    # Counted once (Counter), not `list.count` per job: a 1,000-point sweep would make that a million steps.
    dup = sorted(k for k, c in Counter(p.key for p in plans).items() if c > 1)
    if dup:
        raise StackConfigError(f"invalid stack config: job key {dup[0]} is declared twice (jobs and a sweep point)")
    dup = sorted(n for n, c in Counter(p.args.name for p in plans if p.args.name).items() if c > 1)
    if dup:
        raise StackConfigError(f"invalid stack config: job name {dup[0]} is used by more than one job")
    return plans

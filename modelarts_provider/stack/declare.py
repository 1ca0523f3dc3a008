"""Planned jobs -> Pulumi resources: buckets, code uploads, training jobs, and the one JobsAwait.

- A bucket is declared for an OBS location that says `create: true` (the stack creates it) or that
  receives code uploads (`create: false`: its existence is checked before anything is uploaded, so a
  missing bucket fails the `up` naming it before any job is created).
- A job's or a sweep's local code directory is uploaded once (a sweep shares it between its points);
  the job's code_dir/boot_file are the upload's outputs, so a content change uploads a new prefix,
  replaces exactly the jobs using it, and removes the old prefix after them.
- Secret config values stay secrets in the resources built from them, by path (secrets.py).
"""

from __future__ import annotations

from typing import Any

import pulumi

from ..awaiting.resource import JobsAwait, await_jobs
from ..bucket import Bucket
from ..core.short_stack_trace import position_only
from ..code_upload import CodeUpload
from ..training_job.outputs import secret_outputs
from ..training_job.resource import TrainingJob
from .config import StackConfig
from .declare_pools import declare_pools
from .sweep import as_param
from .program import JobPlan, Upload
from .secrets import SecretPaths, job_selectors, mark_secrets


def _buckets(cfg: StackConfig, plans: list[JobPlan], secrets: SecretPaths) -> dict[str, Bucket]:
    receiving = {p.upload.obs for p in plans if p.upload is not None}
    return {name: Bucket(f"obs-{name}", {"bucket": pulumi.Output.secret(loc.bucket) if secrets.touching("obs", name)
                                         else loc.bucket, "create": loc.create, "force_destroy": loc.force_destroy})
            for name, loc in cfg.obs.items() if loc.create or name in receiving}


def _selectors(cfg: StackConfig, p: JobPlan, secrets: SecretPaths) -> list[tuple[Any, ...]]:
    """The job's input paths that carry secrets of its config entry, OBS location or pool."""
    section, _, key = p.config_path.partition(":")[2].partition(".")
    entry = cfg.jobs.get(key) if section == "jobs" else cfg.sweeps.get(key)
    if entry is None:
        return []
    return job_selectors(secrets, section, key, cfg.obs_name_for(entry), entry.pool, getattr(entry, "search", None))


# Outputs computed from OBS URLs: secret too when the URLs are.
def _upload(cfg: StackConfig, up: Upload, buckets: dict[str, Bucket]) -> CodeUpload:
    loc = cfg.obs[up.obs]
    return CodeUpload(f"{up.key}-code", {"local_dir": up.local_dir, "boot_file": up.boot_file,
                                         "bucket": buckets[up.obs].bucket, "prefix": loc.code,
                                         "job_key": up.key, "excludes": list(up.excludes)})


def declare(cfg: StackConfig, plans: list[JobPlan], secrets: SecretPaths) -> tuple[dict[str, TrainingJob],
                                                                                    JobsAwait | None]:
    pools = declare_pools(cfg)  # networks and created pools: a job on one takes the pool's name (a dependency)
    buckets = _buckets(cfg, plans, secrets)
    uploads: dict[str, CodeUpload] = {}
    jobs: dict[str, TrainingJob] = {}
    with position_only():  # each job's state records where it was declared, not this package's frames beneath
        for p in plans:
            jobs[p.key] = _job(cfg, p, secrets, pools, buckets, uploads)
    return jobs, await_jobs(jobs, scoring=scoring(plans),
                            max_failures={k: s.max_failures for k, s in cfg.sweeps.items() if s.max_failures})


def _job(cfg: StackConfig, p: JobPlan, secrets: SecretPaths, pools: dict[str, Any], buckets: dict[str, Any],
         uploads: dict[str, CodeUpload]) -> TrainingJob:
    """One planned job (or sweep point) declared: its secrets marked, its code upload and pool wired in."""
    # Defaults are left out: every input is a Pulumi Output in this program and a value in the state (twice),
    # and the provider's check fills them in again.
    props, marked = mark_secrets(p.args.model_dump(exclude_none=True, exclude_defaults=True),
                                 _selectors(cfg, p, secrets), secrets)
    if marked:
        props["secret_paths"] = marked  # paths only: the provider masks what is there (masking.py)
    if p.upload is not None:
        up = uploads.get(p.upload.key) or uploads.setdefault(p.upload.key, _upload(cfg, p.upload, buckets))
        props["algorithm"] = {**props["algorithm"], "code_dir": up.code_dir, "boot_file": up.boot_file}
    if p.created_pool is not None:
        # The pool's id is its service name (pool_name) and, unlike an output, stays known in a preview of an
        # in-place update (a scale): the job is previewed unchanged, not as `replace [diff: ~pool_id]`.
        # Unknown only while the pool is replaced (training_job/diff.py: a Completed run on it is kept).
        props["pool_id"] = pools[p.created_pool].id
    opts = pulumi.ResourceOptions(
        aliases=[pulumi.Alias(name=k) for k in p.moved_from] if p.moved_from else None,
        additional_secret_outputs=secret_outputs(marked) or None)  # the rule the provider plugin uses too
    return TrainingJob(p.key, props, opts)


def scoring(plans: list[JobPlan]) -> dict[str, dict[str, Any]]:
    """Per job key, what the JobsAwait needs to score it (issue 23): objective, sweep, grid values; and whether its
    failure is accepted (issue 56)."""
    out: dict[str, dict[str, Any]] = {}
    for p in plans:
        entry: dict[str, Any] = {}
        if p.objective is not None:
            entry["objective"] = p.objective.model_dump()
        if p.search is not None:
            entry["search"] = p.search.objective.model_dump()
        if p.metrics:
            entry["metrics"] = [m.model_dump() for m in p.metrics]
        if p.accept_failed:
            entry["accept_failed"] = True
        if p.sweep is not None:
            entry["group"] = p.sweep
            entry["parameters"] = {k: as_param(v) for k, v in (p.point or {}).items()}
        if entry:
            out[p.key] = entry
    return out

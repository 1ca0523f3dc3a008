"""Planned jobs -> Pulumi resources: buckets, code uploads, training jobs, and the one JobsAwait.

- A bucket is declared for an OBS location that says `create: true` (the stack creates it) or that
  receives code uploads (`create: false`: its existence is checked before anything is uploaded, so a
  missing bucket fails the `up` naming it before any job is created).
- A job's or a sweep's local code directory is uploaded once (a sweep shares it between its points);
  the job's code_dir/boot_file are the upload's outputs, so a content change uploads a new prefix,
  replaces exactly the jobs using it, and removes the old prefix after them.
- Secret config values stay secrets in the resources built from them (secrets.py).
"""

from __future__ import annotations

from typing import Any

import pulumi

from ..awaiting.resource import JobsAwait, await_jobs
from ..bucket import Bucket
from ..code_upload import CodeUpload
from ..training_job.resource import TrainingJob
from .config import StackConfig
from .sweep import as_param
from .program import JobPlan, Upload
from .secrets import mark_secrets


def _buckets(cfg: StackConfig, plans: list[JobPlan]) -> dict[str, Bucket]:
    receiving = {p.upload.obs for p in plans if p.upload is not None}
    return {name: Bucket(f"obs-{name}", {"bucket": loc.bucket, "create": loc.create,
                                         "force_destroy": loc.force_destroy})
            for name, loc in cfg.obs.items() if loc.create or name in receiving}


def _upload(cfg: StackConfig, up: Upload, buckets: dict[str, Bucket]) -> CodeUpload:
    loc = cfg.obs[up.obs]
    return CodeUpload(f"{up.key}-code", {"local_dir": up.local_dir, "boot_file": up.boot_file,
                                         "bucket": buckets[up.obs].bucket, "prefix": loc.code,
                                         "job_key": up.key, "excludes": list(up.excludes)})


def declare(cfg: StackConfig, plans: list[JobPlan], secrets: set[str]) -> tuple[dict[str, TrainingJob],
                                                                                 JobsAwait | None]:
    buckets = _buckets(cfg, plans)
    uploads: dict[str, CodeUpload] = {}
    jobs: dict[str, TrainingJob] = {}
    for p in plans:
        props: dict[str, Any] = mark_secrets(p.args.model_dump(exclude_none=True), secrets)
        if p.upload is not None:
            up = uploads.get(p.upload.key) or uploads.setdefault(p.upload.key, _upload(cfg, p.upload, buckets))
            props["algorithm"] = {**props["algorithm"], "code_dir": up.code_dir, "boot_file": up.boot_file}
        moved = pulumi.ResourceOptions(aliases=[pulumi.Alias(name=k) for k in p.moved_from]) if p.moved_from else None
        jobs[p.key] = TrainingJob(p.key, props, moved)
    return jobs, await_jobs(jobs, scoring=scoring(plans),
                            max_failures={k: s.max_failures for k, s in cfg.sweeps.items() if s.max_failures})


def scoring(plans: list[JobPlan]) -> dict[str, dict[str, Any]]:
    """Per job key, what the JobsAwait needs to score it (issue 23): objective, sweep, grid values."""
    out: dict[str, dict[str, Any]] = {}
    for p in plans:
        entry: dict[str, Any] = {}
        if p.objective is not None:
            entry["objective"] = p.objective.model_dump()
        if p.sweep is not None:
            entry["group"] = p.sweep
            entry["parameters"] = {k: as_param(v) for k, v in (p.point or {}).items()}
        if entry:
            out[p.key] = entry
    return out

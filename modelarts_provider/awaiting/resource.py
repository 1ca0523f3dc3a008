"""JobsAwait: one resource that waits for many TrainingJobs, each to its own `wait_for` target.

    jobs = {"a": TrainingJob("a", {...}), "b": TrainingJob("b", {..., "wait_for": "completed"})}
    waited = JobsAwait("jobs-await", jobs)          # or: await_jobs(jobs)
    pulumi.export("phases", waited.phases)          # {"a": "Pending", "b": "Completed"}

Creating a TrainingJob only submits it; JobsAwait waits for all of them inside one provider call, so
a sweep of N jobs trains in parallel and its `up` takes one job's time. A job that fails or passes
its deadline fails the `up`, naming every such job (a job past its deadline is terminated first).
Outputs: `phases` {key: phase} and `statuses` {key: {job_id, job_name, wait_for, phase, reached}}.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

import pulumi
from pulumi.dynamic import Resource

from ..training_job.resource import TrainingJob
from .provider import JobsAwaitProvider

PROVIDER = JobsAwaitProvider()


class JobsAwait(Resource, module="modelarts", name="JobsAwait"):
    phases: pulumi.Output[dict[str, Optional[str]]]
    statuses: pulumi.Output[dict[str, Any]]

    def __init__(self, resource_name: str, jobs: Mapping[str, TrainingJob],
                 opts: Optional[pulumi.ResourceOptions] = None) -> None:
        entries = {key: {"job_id": job.job_id, "job_name": job.job_name,
                         "wait_for": job.await_spec["wait_for"],
                         "timeout_seconds": job.await_spec["timeout_seconds"],
                         "poll_seconds": job.await_spec["poll_seconds"],
                         "workspace_id": job.await_spec["workspace_id"]}
                   for key, job in jobs.items()}
        super().__init__(PROVIDER, resource_name, {"jobs": entries, "statuses": None, "phases": None}, opts)


def await_jobs(jobs: Mapping[str, TrainingJob], name: str = "jobs-await",
               opts: Optional[pulumi.ResourceOptions] = None) -> JobsAwait | None:
    """A JobsAwait over the jobs whose wait_for is not "none" (None when there is nothing to wait for)."""
    awaited = {k: j for k, j in jobs.items() if j.await_spec["wait_for"] != "none"}
    return JobsAwait(name, awaited, opts) if awaited else None

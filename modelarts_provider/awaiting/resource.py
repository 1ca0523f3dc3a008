"""JobsAwait: one resource that waits for many TrainingJobs, each to its own `wait_for` target.

    jobs = {"a": TrainingJob("a", {...}), "b": TrainingJob("b", {..., "wait_for": "completed"})}
    waited = JobsAwait("jobs-await", jobs)          # or: await_jobs(jobs)
    pulumi.export("phases", waited.phases)          # {"a": "Pending", "b": "Completed"}

Creating a TrainingJob only submits it; JobsAwait waits for all of them inside one provider call, so
a sweep of N jobs trains in parallel and its `up` takes one job's time. A job that fails or passes
its deadline fails the `up`, naming every such job (a job past its deadline is terminated first), and what the
wait saw of every job is recorded all the same (issue 56); `scoring` {key: {accept_failed: True}} accepts a job's
failure instead: recorded as failed, the `up` goes on (docs/failures.md).
Outputs: `phases` {key: phase} and `statuses` {key: {job_id, job_name, wait_for, phase, reached}}, and
`runs` {key: [every run, newest last: job_id, job_name, parameters, phase, objective, output_path, times]}.

Results (issue 23): `scoring` {key: {objective: {name, regex, goal}, group: sweep, parameters}} makes
the wait read each completed job's objective from its log, and `max_failures` {sweep: n} lets a sweep
tolerate failed points; `statuses` then carry objective, objective_note, duration_s, retries,
tolerated and failure. `secrets` {key: {path: value}} (from each TrainingJob's secret inputs, a Pulumi secret):
what the wait prints of a job masks that job's secrets, and only of that job.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional, Protocol

import pulumi
from pulumi.dynamic import Resource

from .provider import JobsAwaitProvider


class TrainingJob(Protocol):
    """What JobsAwait needs of a job resource (a TrainingJob): its id and name outputs and how to await it."""

    job_id: pulumi.Output[str]
    job_name: pulumi.Output[str]
    await_spec: dict[str, Any]

PROVIDER = JobsAwaitProvider()


class JobsAwait(Resource, module="modelarts", name="JobsAwait"):
    phases: pulumi.Output[dict[str, Optional[str]]]
    statuses: pulumi.Output[dict[str, Any]]
    runs: pulumi.Output[dict[str, list[dict[str, Any]]]]

    def __init__(self, resource_name: str, jobs: Mapping[str, TrainingJob],
                 opts: Optional[pulumi.ResourceOptions] = None, *,
                 scoring: Optional[Mapping[str, Mapping[str, Any]]] = None,
                 max_failures: Optional[Mapping[str, int]] = None) -> None:
        entries = {key: {"job_id": job.job_id, "job_name": job.job_name,
                         "wait_for": job.await_spec["wait_for"],
                         "timeout_seconds": job.await_spec["timeout_seconds"],
                         "poll_seconds": job.await_spec["poll_seconds"],
                         "workspace_id": job.await_spec["workspace_id"],
                         **dict((scoring or {}).get(key) or {})}
                   for key, job in jobs.items()}
        props: dict[str, Any] = {"jobs": entries, "statuses": None, "phases": None, "runs": None}
        if max_failures:
            props["max_failures"] = dict(max_failures)
        # Each job's secret inputs (a Pulumi secret): what the wait prints of a job masks that job's own.
        secrets = {key: job.await_spec["secrets"] for key, job in jobs.items() if "secrets" in job.await_spec}
        if secrets:
            props["secrets"] = secrets
        super().__init__(PROVIDER, resource_name, props, opts)


def await_jobs(jobs: Mapping[str, TrainingJob], name: str = "jobs-await",
               opts: Optional[pulumi.ResourceOptions] = None, *,
               scoring: Optional[Mapping[str, Mapping[str, Any]]] = None,
               max_failures: Optional[Mapping[str, int]] = None) -> JobsAwait | None:
    """A JobsAwait over the jobs whose wait_for is not "none" (None when there is nothing to wait for)."""
    awaited = {k: j for k, j in jobs.items() if j.await_spec["wait_for"] != "none"}
    return JobsAwait(name, awaited, opts, scoring=scoring, max_failures=max_failures) if awaited else None

"""An in-memory stand-in for ModelArtsClient: phases advance one step per get_job.

It keeps the real client's contracts (docs/ARCHITECTURE.md), including the parts the provider
relies on instead of doing the work itself:

* ``create_job`` resolves an ambiguous failure by looking the job up by name (``fail_create_after_commit``)
  and raises ``ModelArtsError`` ``Client.AmbiguousCreate`` when that lookup fails
  (``ambiguous_create_unresolved``); ``create_error`` is raised as is (e.g. a definitive 400).
* ``wait_for_phase`` is the real loop's contract on a virtual clock (``now``; every sleep is
  recorded in ``sleeps``): ``until`` is a set or a predicate; ``on_change`` on the first poll and
  every (phase, secondary phase) change; back-off x1.5 up to ``max(max_poll_s, poll_s)`` while
  nothing changes, never sleeping past the deadline; Failed/Abnormal -> JobFailedError; another
  terminal phase -> ModelArtsError Client.UnexpectedPhase; gone -> ModelArtsError ModelArts.2775;
  deadline -> WaitTimeout; retryable ModelArtsErrors from ``get_job`` tolerated until the deadline.
  ``tests/provider/test_fakes.py`` runs the same scenarios against the real loop.
* ``get_faults``: errors ``get_job`` raises, one per call, before anything else.
* ``terminating_polls``: how many polls a job is seen Terminating (default 0: Terminated at once).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Collection
from typing import Any

from modelarts_provider.client.errors import (CLIENT_AMBIGUOUS_CREATE, CLIENT_UNEXPECTED_PHASE, JOB_NOT_FOUND,
                                              JobFailedError, ModelArtsError, WaitTimeout)
from modelarts_provider.client.models import FAILED_PHASES, TERMINAL_PHASES, CreateTrainingJobRequest, TrainingJob

_ids = itertools.count(1)


class FakeClient:
    def __init__(self, script: list[str] | None = None, exit_code: int | None = None) -> None:
        # script: the phases a new job walks through, one per get_job.
        self.script = script or ["Creating", "Pending", "Running", "Completed"]
        self.exit_code = exit_code
        self.jobs: dict[str, dict[str, Any]] = {}
        self.steps: dict[str, int] = {}
        self.calls: list[str] = []
        self.fail_create_after_commit = False      # the POST commits, then the connection drops
        self.ambiguous_create_unresolved = False   # ... and the lookup by name fails too
        self.create_error: ModelArtsError | None = None
        self.get_faults: list[Exception] = []
        self.terminating_polls = 0  # polls a job is seen Terminating before it is Terminated
        self._seen_terminating: dict[str, int] = {}
        self.now = 0.0
        self.sleeps: list[float] = []

    def _job(self, job_id: str) -> TrainingJob:
        wire = dict(self.jobs[job_id])
        phase = wire["status"]["phase"]
        if phase == "Failed" and self.exit_code is not None:
            wire["status"] = {**wire["status"], "task_statuses": [
                {"task": "worker-0", "exit_code": self.exit_code, "message": "boom"}]}
        return TrainingJob.model_validate(wire)

    def add(self, body: dict[str, Any], phase: str = "Running") -> TrainingJob:
        job_id = f"job-{next(_ids)}"
        wire = dict(body)
        wire["metadata"] = {**body["metadata"], "id": job_id, "create_time": 1700000000000}
        wire["status"] = {"phase": phase, "secondary_phase": phase, "tasks": ["worker-0"]}
        self.jobs[job_id] = wire
        self.steps[job_id] = self.script.index(phase) if phase in self.script else len(self.script) - 1
        return self._job(job_id)

    def set_phase(self, job_id: str, phase: str) -> None:
        """Out-of-band change (someone else terminated it, the service failed it, ...)."""
        self.jobs[job_id]["status"] = {**self.jobs[job_id]["status"], "phase": phase}

    def create_job(self, request: CreateTrainingJobRequest) -> TrainingJob:
        self.calls.append("create")
        if self.create_error is not None:
            raise self.create_error
        job = self.add(request.to_wire(), self.script[0])
        if self.ambiguous_create_unresolved:
            raise ModelArtsError(
                f"create of training job {request.name} had an ambiguous outcome and the lookup by name failed: "
                "Service Unavailable", status=503, error_code=CLIENT_AMBIGUOUS_CREATE,
                error_solution="the job may exist; run the operation again (it will look the job up first)")
        if self.fail_create_after_commit:  # the real client looks it up by name and returns it
            found = self.find_by_name(request.name)
            assert found is not None and found.id == job.id
            return found
        return job

    def get_job(self, job_id: str) -> TrainingJob | None:
        self.calls.append("get")
        if self.get_faults:
            raise self.get_faults.pop(0)
        if job_id not in self.jobs:
            return None
        phase = self.jobs[job_id]["status"]["phase"]
        if phase == "Terminating":
            seen = self._seen_terminating[job_id] = self._seen_terminating.get(job_id, 0) + 1
            if seen > self.terminating_polls:
                self.jobs[job_id]["status"] = {**self.jobs[job_id]["status"], "phase": "Terminated"}
        elif phase in self.script and phase not in ("Completed", "Failed", "Abnormal"):
            i = min(self.steps[job_id] + 1, len(self.script) - 1)
            self.steps[job_id] = i
            self.jobs[job_id]["status"] = {**self.jobs[job_id]["status"], "phase": self.script[i]}
        return self._job(job_id)

    def terminate_job(self, job_id: str) -> TrainingJob:
        self.calls.append("terminate")
        st = self.jobs[job_id]["status"]
        if st["phase"] in ("Creating", "Pending", "Running"):
            self.jobs[job_id]["status"] = {**st, "phase": "Terminating"}
        return self._job(job_id)

    def delete_job(self, job_id: str) -> bool:
        self.calls.append("delete")
        return self.jobs.pop(job_id, None) is not None

    def update_description(self, job_id: str, description: str) -> TrainingJob:
        self.calls.append("update")
        self.jobs[job_id]["metadata"]["description"] = description
        return self._job(job_id)

    def find_by_name(self, name: str) -> TrainingJob | None:
        self.calls.append("search")
        for job_id, wire in self.jobs.items():
            if wire["metadata"]["name"] == name:
                return self._job(job_id)
        return None

    # --- wait_for_phase: the real client's contract, on the virtual clock --------------------------

    def _sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds

    def wait_for_phase(self, job_id: str, until: Callable[[str], bool] | Collection[str], timeout_s: float,
                       poll_s: float = 2.0, on_change: Callable[[TrainingJob], None] | None = None, *,
                       max_poll_s: float = 30.0) -> TrainingJob:
        self.calls.append("wait")
        if not job_id or not isinstance(job_id, str) or any(c in job_id for c in "/?#"):
            raise ValueError(f"invalid training job id {job_id!r}")
        if callable(until):
            accept = until
        else:
            wanted = {str(p) for p in until}
            accept = lambda phase: phase in wanted  # noqa: E731
        deadline = self.now + timeout_s
        interval = max(poll_s, 0.05)
        last_key: tuple | None = None
        last_job: TrainingJob | None = None
        while True:
            try:
                job = self.get_job(job_id)
            except ModelArtsError as exc:
                if not exc.retryable or self.now >= deadline:
                    raise
            else:
                if job is None:
                    raise ModelArtsError(f"training job {job_id} does not exist (any more)",
                                         error_code=JOB_NOT_FOUND,
                                         error_solution="it was deleted while being waited for")
                key = (job.phase, job.secondary_phase)
                if key != last_key:
                    last_key = key
                    interval = max(poll_s, 0.05)
                    if on_change is not None:
                        on_change(job)
                last_job = job
                phase = job.phase or ""
                if accept(phase):
                    return job
                if phase in FAILED_PHASES:
                    raise JobFailedError(job)
                if phase in TERMINAL_PHASES:
                    raise ModelArtsError(
                        f"training job {job.name or ''} ({job_id}) ended {phase} before reaching the awaited phase",
                        error_code=CLIENT_UNEXPECTED_PHASE, error_solution="the job will not change phase any more")
            remaining = deadline - self.now
            if remaining <= 0:
                raise WaitTimeout(job_id, timeout_s, last_job)
            self._sleep(min(interval, remaining))
            interval = min(interval * 1.5, max(max_poll_s, poll_s))

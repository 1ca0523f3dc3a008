"""An in-memory stand-in for ModelArtsClient: phases advance one step per get_job."""

from __future__ import annotations

import itertools
from typing import Any

from modelarts_provider.client.models import CreateTrainingJobRequest, TrainingJob

_ids = itertools.count(1)


class FakeError(Exception):
    def __init__(self, msg: str, status: int | None) -> None:
        super().__init__(msg)
        self.status = status


class FakeClient:
    def __init__(self, script: list[str] | None = None, exit_code: int | None = None) -> None:
        # script: the phases a new job walks through, one per get_job.
        self.script = script or ["Creating", "Pending", "Running", "Completed"]
        self.exit_code = exit_code
        self.jobs: dict[str, dict[str, Any]] = {}
        self.steps: dict[str, int] = {}
        self.calls: list[str] = []
        self.fail_create_after_commit = False

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

    def create_job(self, request: CreateTrainingJobRequest) -> TrainingJob:
        self.calls.append("create")
        job = self.add(request.to_wire(), self.script[0])
        if self.fail_create_after_commit:
            raise FakeError("connection reset", None)
        return job

    def get_job(self, job_id: str) -> TrainingJob | None:
        self.calls.append("get")
        if job_id not in self.jobs:
            return None
        phase = self.jobs[job_id]["status"]["phase"]
        if phase == "Terminating":
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

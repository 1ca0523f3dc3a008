"""Replay recorded workflows: a client serving each job's recorded polls, and a virtual clock.

A workflow (recordings/workflows/*.json) describes the awaited jobs and, per job, the sequence of
what each poll of it returns:

    {"description": "...",
     "strategies": ["get", "list"],           # Watcher strategies to replay it with
     "jobs": [{"key": "a", "id": "job-a", "name": "a", "wait_for": "completed",
               "timeout_s": 600, "poll_s": 5, "workspace_id": null,
               "polls": ["Creating", "Running", {"error": 503}, "Completed"],
               "task_statuses": [{"task": "worker-0", "exit_code": 3, "message": "boom"}]}],
     "expect": {"outcomes": {"a": ["reached", "Completed"]},   # verdict, phase of the last view
                "reasons": {"a": "..."}, "notes": {"a": "it was terminated"},
                "terminated": ["job-a"],
                "lines": ["a: Creating", ...],                 # everything the watcher printed
                "calls": {"get": {"get": {"job-a": 4}, "page": {}},
                          "list": {"get": {}, "page": {"0": 4}}}}}

A poll step is a phase, null (the job is gone: deleted) or {"error": status or client error code}.
The last step repeats. `get_job` consumes one step. `iter_jobs` lists the workspace's jobs newest
first (the last declared is the newest), one recorded "page" call per page; listing a job consumes
its step when it is a phase, consumes it and leaves the job out when it is null, and leaves the job
out without consuming when it is an error (the watcher's GET for the missing job then meets it).
task_statuses are attached to Failed/Abnormal views.
"""

from __future__ import annotations

import json
import threading
from collections import Counter
from pathlib import Path
from typing import Any, Iterator

from modelarts_provider.client.errors import ModelArtsError
from modelarts_provider.client.models import TrainingJob

WORKFLOWS = Path(__file__).parent / "recordings" / "workflows"
DEFAULT_WORKSPACE = "0"


def load(name: str) -> dict[str, Any]:
    return json.loads((WORKFLOWS / name).read_text())


def all_workflows() -> list[str]:
    return sorted(p.name for p in WORKFLOWS.glob("*.json"))


def error_of(step: dict[str, Any]) -> ModelArtsError:
    code = step["error"]
    if isinstance(code, int):
        return ModelArtsError(f"recorded HTTP {code}", status=code, error_code=f"Recorded.{code}")
    return ModelArtsError(f"recorded {code}", error_code=code)


class ReplayClient:
    def __init__(self, jobs: list[dict[str, Any]]) -> None:
        self.specs = {j["id"]: j for j in jobs}
        self.served: Counter[str] = Counter()
        self.log: list[tuple[str, Any]] = []
        self.page_size_seen: list[int] = []
        self._lock = threading.Lock()

    # --- bookkeeping -------------------------------------------------------------------------------

    def calls(self, op: str) -> dict[str, int]:
        """Calls of one operation, counted per job id (per workspace for pages)."""
        return dict(Counter(str(d) for o, d in self.log if o == op))

    def ids(self, op: str) -> set[str]:
        return {d for o, d in self.log if o == op}

    def _peek(self, job_id: str) -> Any:
        polls = self.specs[job_id]["polls"]
        return polls[min(self.served[job_id], len(polls) - 1)]

    def _view(self, job_id: str, phase: str) -> TrainingJob:
        spec = self.specs[job_id]
        status: dict[str, Any] = {"phase": phase, "secondary_phase": phase, "tasks": ["worker-0"]}
        if phase in ("Failed", "Abnormal") and spec.get("task_statuses"):
            status["task_statuses"] = spec["task_statuses"]
        return TrainingJob.model_validate({
            "metadata": {"id": job_id, "name": spec.get("name", job_id),
                         "workspace_id": spec.get("workspace_id") or DEFAULT_WORKSPACE},
            "status": status})

    # --- the client's operations the watcher uses --------------------------------------------------

    def get_job(self, job_id: str) -> TrainingJob | None:
        with self._lock:
            self.log.append(("get", job_id))
            if job_id not in self.specs:
                return None
            step = self._peek(job_id)
            self.served[job_id] += 1
        if isinstance(step, dict):
            raise error_of(step)
        return None if step is None else self._view(job_id, step)

    def iter_jobs(self, page_size: int = 50, *, workspace_id: str | None = None) -> Iterator[TrainingJob]:
        workspace = workspace_id or DEFAULT_WORKSPACE
        newest_first = [i for i in reversed(list(self.specs))
                        if (self.specs[i].get("workspace_id") or DEFAULT_WORKSPACE) == workspace]
        for start in range(0, max(len(newest_first), 1), page_size):
            page: list[TrainingJob] = []
            with self._lock:
                self.log.append(("page", workspace))
                self.page_size_seen.append(page_size)
                for job_id in newest_first[start:start + page_size]:
                    step = self._peek(job_id)
                    if isinstance(step, dict):
                        continue  # not on the page; the GET that follows meets the error
                    self.served[job_id] += 1
                    if step is not None:
                        page.append(self._view(job_id, step))
            yield from page

    def terminate_job(self, job_id: str) -> TrainingJob:
        with self._lock:
            self.log.append(("terminate", job_id))
        return self._view(job_id, "Terminating")

"""An in-memory stand-in for ModelArtsClient (the operations the TrainingJob provider uses).

It keeps the real client's contracts (docs/ARCHITECTURE.md, "Client contract"), checked against the
real client talking to the emulator in ``tests/provider/test_fakes.py``:

* jobs live in a workspace (``metadata.workspace_id``, default ``"0"``); ``list_jobs`` and
  ``iter_jobs`` list one workspace, newest first (``workspace_id=None`` is the service default
  ``"0"``), unless ``search_all_workspaces`` (as the emulator's switch); ``name_like`` matches a
  case-insensitive substring, ``phases`` filters, ``limit`` cuts;
* a second job with an existing name is refused with ModelArts.2751 (HTTP 400), unless
  ``allow_duplicate_names``; ``add()`` seeds jobs directly, duplicates included;
* ``get_job`` of a missing job is None, ``delete_job`` False, ``terminate_job`` and
  ``update_description`` raise ModelArts.2775 (HTTP 400, as documented);
* ``terminate_job`` of a job that already ended returns it unchanged (the client turns 2796 into that);
* ``create_job`` resolves an ambiguous failure by looking the job up by name
  (``fail_create_after_commit``) and raises ``Client.AmbiguousCreate`` when that lookup fails too
  (``ambiguous_create_unresolved``); ``create_error`` is raised as is (e.g. a definitive 400).

Phases: a created job walks ``script`` one step per ``get_job`` (a listing shows the job without
moving it); ``set_phase`` changes it out of band; a Terminating job is Terminated after
``terminating_polls`` gets. Every call is recorded in ``log`` as ``(operation, detail)`` and its
operation in ``calls``.
"""

from __future__ import annotations

import copy
import itertools
import threading
from collections.abc import Iterable, Iterator
from typing import Any

from modelarts_provider.client.errors import (CLIENT_AMBIGUOUS_CREATE, DUPLICATE_NAME, JOB_NOT_FOUND,
                                              ModelArtsError)
from modelarts_provider.client.models import TERMINAL_PHASES, CreateTrainingJobRequest, TrainingJob

_ids = itertools.count(1)
DEFAULT_WORKSPACE = "0"


def not_found(job_id: str) -> ModelArtsError:
    return ModelArtsError(f"The training job {job_id} does not exist.", status=400, error_code=JOB_NOT_FOUND,
                          error_solution="Check whether the training job ID is correct.")


class FakeClient:
    def __init__(self, script: list[str] | None = None, exit_code: int | None = None, *,
                 allow_duplicate_names: bool = False, search_all_workspaces: bool = False) -> None:
        # script: the phases a new job walks through, one per get_job.
        self.script = script or ["Creating", "Pending", "Running", "Completed"]
        self.exit_code = exit_code
        self.allow_duplicate_names = allow_duplicate_names
        self.search_all_workspaces = search_all_workspaces
        self.jobs: dict[str, dict[str, Any]] = {}  # wire form by id, in creation order
        self.steps: dict[str, int] = {}
        self.calls: list[str] = []
        self.log: list[tuple[str, Any]] = []
        self.fail_create_after_commit = False      # the POST commits, then the connection drops
        self.ambiguous_create_unresolved = False   # ... and the lookup by name fails too
        self.create_error: ModelArtsError | None = None
        self.get_faults: list[Exception] = []      # raised by get_job, one per call, first
        self.list_faults: list[Exception] = []     # raised by list_jobs, one per call, first
        self.terminating_polls = 0  # gets a job is seen Terminating before it is Terminated
        # deletes are asynchronous, as the service's: gets a deleted job is still answered (its name still
        # held) before it is gone
        self.deleting_polls = 0
        self._deleting: dict[str, int] = {}
        self._seen_terminating: dict[str, int] = {}
        self._clock_ms = 1_700_000_000_000
        self._lock = threading.RLock()  # the provider calls from several threads
        self.tags: dict[str, dict[str, str]] = {}  # a job's tags by id (their own API)
        self.drop_annotations = False  # answer without metadata.annotations, as the service may

    # --- bookkeeping -------------------------------------------------------------------------------

    def _record(self, op: str, detail: Any = None) -> None:
        self.calls.append(op)
        self.log.append((op, detail))

    @property
    def job_calls(self) -> list[str]:
        """The calls on jobs themselves, without the tag API's (a takeover tags a job it finds untagged)."""
        return [op for op in self.calls if not op.startswith("tags_")]

    def count(self, op: str) -> int:
        return self.calls.count(op)

    def details(self, op: str) -> list[Any]:
        return [d for o, d in self.log if o == op]

    def touched(self) -> set[str]:
        """Operations that change a job (what a refusal must never do)."""
        return {op for op in self.calls if op in ("create", "terminate", "delete", "update")}

    def _job(self, job_id: str) -> TrainingJob:
        wire = copy.deepcopy(self.jobs[job_id])
        phase = wire["status"]["phase"]
        if phase in ("Failed", "Abnormal") and self.exit_code is not None:
            wire["status"]["task_statuses"] = [{"task": "worker-0", "exit_code": self.exit_code, "message": "boom"}]
        if self.drop_annotations:
            wire["metadata"].pop("annotations", None)
        return TrainingJob.model_validate(wire)

    def workspace_of(self, job_id: str) -> str:
        return self.jobs[job_id]["metadata"]["workspace_id"]

    def add(self, body: dict[str, Any], phase: str = "Running", *, workspace_id: str | None = None,
            name: str | None = None) -> TrainingJob:
        """Seed a job (no call recorded, no name check: duplicates allowed)."""
        with self._lock:
            job_id = f"job-{next(_ids)}"
            self._clock_ms += 1000
            wire = copy.deepcopy(body)
            meta = wire.setdefault("metadata", {})
            meta.update(id=job_id, create_time=self._clock_ms)
            if name is not None:
                meta["name"] = name
            meta["workspace_id"] = workspace_id or meta.get("workspace_id") or DEFAULT_WORKSPACE
            meta.setdefault("description", "")
            wire["status"] = {"phase": phase, "secondary_phase": phase, "tasks": ["worker-0"]}
            self.jobs[job_id] = wire
            self.steps[job_id] = self.script.index(phase) if phase in self.script else len(self.script) - 1
            return self._job(job_id)

    def set_phase(self, job_id: str, phase: str) -> None:
        """Out-of-band change (someone else terminated it, the service failed it, ...)."""
        self.jobs[job_id]["status"] = {**self.jobs[job_id]["status"], "phase": phase, "secondary_phase": phase}

    def phase_of(self, job_id: str) -> str:
        return self.jobs[job_id]["status"]["phase"]

    # --- the client's operations -------------------------------------------------------------------

    def create_job(self, request: CreateTrainingJobRequest) -> TrainingJob:
        with self._lock:
            self._record("create", request.name)
            if self.create_error is not None:
                raise self.create_error
            if not self.allow_duplicate_names and any(w["metadata"]["name"] == request.name
                                                      for w in self.jobs.values()):
                raise ModelArtsError(f"The training job name {request.name} already exists.", status=400,
                                     error_code=DUPLICATE_NAME,
                                     error_solution="Use another job name or delete the existing job first.")
            job = self.add(request.to_wire(), self.script[0])
            if self.ambiguous_create_unresolved:
                raise ModelArtsError(
                    f"create of training job {request.name} had an ambiguous outcome and the lookup by name "
                    "failed: Service Unavailable", status=503, error_code=CLIENT_AMBIGUOUS_CREATE,
                    error_solution="the job may exist; run the operation again (it will look the job up first)")
            if self.fail_create_after_commit:  # the real client looks it up by name and returns it
                found = self.find_by_name(request.name, request.metadata.workspace_id)
                assert found is not None and found.id == job.id
                return found
            return job

    def get_job(self, job_id: str) -> TrainingJob | None:
        with self._lock:
            self._record("get", job_id)
            if self.get_faults:
                raise self.get_faults.pop(0)
            if job_id in self._deleting:
                self._deleting[job_id] -= 1
                if self._deleting[job_id] < 0:
                    del self._deleting[job_id]
                    self.jobs.pop(job_id, None)
            if job_id not in self.jobs:
                return None
            phase = self.jobs[job_id]["status"]["phase"]
            if phase == "Terminating":
                seen = self._seen_terminating[job_id] = self._seen_terminating.get(job_id, 0) + 1
                if seen > self.terminating_polls:
                    self.set_phase(job_id, "Terminated")
            elif phase in self.script and phase not in TERMINAL_PHASES:
                i = min(self.steps[job_id] + 1, len(self.script) - 1)
                self.steps[job_id] = i
                self.set_phase(job_id, self.script[i])
            return self._job(job_id)

    def terminate_job(self, job_id: str) -> TrainingJob:
        with self._lock:
            self._record("terminate", job_id)
            if job_id not in self.jobs:
                raise not_found(job_id)
            if self.phase_of(job_id) in ("Creating", "Pending", "Running"):
                self.set_phase(job_id, "Terminating")
            return self._job(job_id)

    def delete_job(self, job_id: str) -> bool:
        with self._lock:
            self._record("delete", job_id)
            if job_id not in self.jobs:
                return False
            if self.deleting_polls > 0:
                self._deleting.setdefault(job_id, self.deleting_polls)
            else:
                del self.jobs[job_id]
            return True

    def get_job_tags(self, job_id: str) -> dict[str, str]:
        with self._lock:
            self._record("tags_get", job_id)
            if job_id not in self.jobs:
                raise not_found(job_id)
            return dict(self.tags.get(job_id, {}))

    def create_job_tags(self, job_id: str, tags: dict[str, str]) -> None:
        if not tags:
            return
        with self._lock:
            self._record("tags_create", (job_id, dict(tags)))
            if job_id not in self.jobs:
                raise not_found(job_id)
            self.tags.setdefault(job_id, {}).update(tags)

    def delete_job_tags(self, job_id: str, keys: list[str]) -> None:
        if not keys:
            return
        with self._lock:
            self._record("tags_delete", (job_id, list(keys)))
            for k in keys:
                self.tags.get(job_id, {}).pop(k, None)

    def iter_jobs_tagged(self, key: str, values: list[str] | None = None, *,
                         workspace_id: str | None = None) -> Iterator[Any]:
        from modelarts_provider.client.tag_api import TaggedJob
        with self._lock:
            self._record("tags_filter", key)
            found = [TaggedJob(resource_id=i, resource_name=self.jobs[i]["metadata"]["name"],
                               tags=[{"key": k, "value": v} for k, v in t.items()])
                     for i, t in self.tags.items() if i in self.jobs and key in t
                     and (workspace_id or DEFAULT_WORKSPACE) == self.workspace_of(i)]
        yield from found

    def update_description(self, job_id: str, description: str) -> TrainingJob:
        with self._lock:
            self._record("update", job_id)
            if job_id not in self.jobs:
                raise not_found(job_id)
            self.jobs[job_id]["metadata"]["description"] = description
            return self._job(job_id)

    def _listed(self, workspace_id: str | None, name_like: str | None = None,
                phases: Iterable[str] | None = None) -> list[TrainingJob]:
        workspace = None if workspace_id is None and self.search_all_workspaces else (
            workspace_id or DEFAULT_WORKSPACE)
        wanted = {str(p) for p in phases} if phases else None
        out = []
        for job_id, wire in self.jobs.items():
            meta = wire["metadata"]
            if workspace is not None and meta["workspace_id"] != workspace:
                continue
            if name_like and name_like.lower() not in meta["name"].lower():
                continue
            if wanted is not None and wire["status"]["phase"] not in wanted:
                continue
            out.append(self._job(job_id))
        return sorted(out, key=lambda j: j.metadata.create_time or 0, reverse=True)

    def list_jobs(self, name_like: str | None = None, phases: Iterable[str] | None = None, limit: int = 50, *,
                  workspace_id: str | None = None) -> list[TrainingJob]:
        with self._lock:
            self._record("list", {"name_like": name_like, "phases": phases, "limit": limit,
                                  "workspace_id": workspace_id})
            if self.list_faults:
                raise self.list_faults.pop(0)
            return self._listed(workspace_id, name_like, phases)[:limit]

    def iter_jobs(self, page_size: int = 50, *, workspace_id: str | None = None) -> Iterator[TrainingJob]:
        if not 1 <= page_size <= 50:
            raise ValueError("page_size must be 1-50")
        start = 0
        while True:
            with self._lock:
                self._record("page", workspace_id)
                page = self._listed(workspace_id)[start:start + page_size]
            yield from page
            if len(page) < page_size:
                return
            start += page_size

    def find_by_name(self, name: str, workspace_id: str | None = None) -> TrainingJob | None:
        with self._lock:
            self._record("search", name)
            for job in self._listed(workspace_id, name_like=name):
                if job.name == name:
                    return job
            return None

    # --- training catalogs (the catalog check at preview): the emulator's built-in catalog -----------

    def list_training_flavors(self, flavor_type: str | None = None) -> Any:
        from modelarts_emulator.catalog import api as catalog_api
        from modelarts_emulator.catalog.model import Catalog
        from modelarts_provider.client.models import TrainingFlavorList

        with self._lock:
            self._record("flavors")
        return TrainingFlavorList.model_validate(catalog_api.flavors(Catalog.load(), ""))

    def list_training_engines(self) -> Any:
        from modelarts_emulator.catalog import api as catalog_api
        from modelarts_emulator.catalog.model import Catalog
        from modelarts_provider.client.models import TrainingEngineList

        with self._lock:
            self._record("engines")
        return TrainingEngineList.model_validate(catalog_api.engines(Catalog.load()))

    def get_algorithm(self, algorithm_id: str) -> Any:
        from modelarts_emulator.catalog.model import Catalog
        from modelarts_provider.client.models import AlgorithmDetail

        with self._lock:
            self._record("algorithm", algorithm_id)
        found = Catalog.load().algorithms.get(algorithm_id)
        return None if found is None else AlgorithmDetail.model_validate({"metadata": {"id": found.id}})

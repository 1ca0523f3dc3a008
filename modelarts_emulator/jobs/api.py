"""HTTP side of training jobs: their routes (SDK ``create_training_job``, ``show_training_job``,
``delete_training_job``, ``batch_delete_training_jobs``, ``update_training_job``, ``stop_training_job`` (the
actions route), ``list_training_jobs`` (the search), the task log preview, its OBS link and its AOM lines, tasks,
metrics, events, the name check and the quotas) and one thin method per action, its rules beside it (the create
body's: validation.py). responses.py authenticates, counts and routes here; state lives in models.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import errors
from ..auto_search import api as auto_search
from ..catalog.model import Catalog
from ..config import EmulatorConfig
from ..execution import obs_check, plan as execution_plan
from ..execution.runner import Executor
from ..pools.api import PoolApi
from ..routes import operations, routes
from ..wire import SearchRequest, UpdateRequest, json_body, parse
from . import list_filters, log_reads, observe, validation
from .batch_delete import check_one_workspace, job_ids
from .logs import preview as log_preview
from .models import Store, Timings
from .quotas import quotas as quotas_of

# Words the SDK uses right under training-jobs/ that are not job ids (batch-delete; autosearch/...): never read
# as a job id, so a method or sub-path the emulator lacks there answers as the gateway does (404 APIGW.0101),
# not "job batch-delete not found" or 405.
NOT_JOB_IDS = ("batch-delete", "autosearch")
JOB_ID = r"(?!(?:" + "|".join(NOT_JOB_IDS) + r")(?:/|$))[^/]+"
# The log's link (ShowObsUrlOfTrainingJobLogs) and its lines (show_training_job_logs_from_aom): log_reads.py; what
# a client reads about a job besides its details and logs (tasks, metrics, events): observe.py.
ROUTES = routes("""
    POST    /v2/{project}/training-jobs                                     create
    POST    /v2/{project}/training-jobs/batch-delete                        batch_delete
    GET     /v2/{project}/training-jobs/{job}                               get
    DELETE  /v2/{project}/training-jobs/{job}                               delete
    PUT     /v2/{project}/training-jobs/{job}                               update
    POST    /v2/{project}/training-jobs/{job}/actions                       terminate
    POST    /v2/{project}/training-job-searches                             search
    GET     /v2/{project}/training-jobs/{job}/tasks/{task}/logs/preview     logs
    GET     /v2/{project}/training-jobs/{job}/tasks/{task}/logs/url         log_url
    GET     /v2/{project}/training-jobs/{job}/logs/{task}                   log_lines
    GET     /v2/{project}/training-jobs/{job}/tasks                         tasks
    GET     /v2/{project}/training-jobs/{job}/metrics/{task}                metrics
    GET     /v2/{project}/training-jobs/{job}/events                        events
    GET     /v2/{project}/training-job-names                                name_taken
    GET     /v2/{project}/training-quotas                                   quotas
""", job=JOB_ID)
OPERATIONS = operations(ROUTES)
# The answers that carry jobs: --drop-annotations takes their annotations out.
ANSWERS_WITH_ANNOTATIONS = frozenset({"create", "get", "terminate", "update", "search"})


@dataclass(frozen=True)
class Call:
    """One authenticated request to a training-job action: what its method reads."""

    params: dict[str, str]  # the route's parts (project, job, task)
    raw_query: str
    body: bytes
    user_name: str  # the caller (IAM user) the job is created for
    host: str = ""  # the Host the client called (links the emulator hands out point back at it)


class JobApi:
    """The training-job actions, each a method named as its operation; (status, body) like the other APIs."""

    def __init__(self, config: EmulatorConfig, catalog: Catalog, store: Store, pools: PoolApi,
                 executor: Executor | None, searches: Any, work_dir: Path | None) -> None:
        self.config = config
        self.catalog = catalog
        self.store = store
        self.pools = pools
        self.executor = executor  # execution mode (--execute): jobs run as processes under work_dir
        self.searches = searches  # the searches' runner in execution mode (auto_search/runner.py), or None
        self.work_dir = work_dir
        self.reset_switches()

    def reset_switches(self) -> None:
        """The switches /_emulator/settings changes at run time, back to the command line's."""
        self.allow_duplicate_names = self.config.allow_duplicate_names
        self.search_offset = self.config.search_offset
        self.search_all_workspaces = self.config.search_all_workspaces

    def handle(self, op: str, call: Call) -> tuple[int, Any]:
        if op not in OPERATIONS:  # pragma: no cover - ROUTES lists every op
            raise AssertionError(op)
        reply: tuple[int, Any] = getattr(self, op)(call)
        return reply

    def create(self, call: Call) -> tuple[int, Any]:
        catalog = self.pools.catalog_for(self.catalog, call.params["project"], call.body)
        draft = validation.validate_create(json_body(call.body), catalog,
                                           environments_as_array=self.config.environments_shape == "array")
        c = self.config
        run_here = self.executor is not None and execution_plan.executable(draft)
        if run_here:  # what a local process cannot do is refused before anything is stored
            execution_plan.refuse_unrunnable(draft, c.max_processes,
                                             self.executor.gpus.total if self.executor else 0, catalog)
        if c.obs_endpoint:
            draft = obs_check.check_boot_file(draft, c.obs_endpoint, c.access_key, c.secret_key)
        run_here = run_here and draft.outcome == "complete"  # a missing boot file fails as before
        timings = Timings(c.phase_seconds, c.phase_seconds, c.run_seconds, c.phase_seconds)
        on_pool = catalog is not self.catalog  # a pool the stack created: queued by pool_jobs
        run_here = run_here and not on_pool  # its scheduling is emulated: generated logs, not processes
        # a search runs one process per trial (auto_search/runner.py); refused before storing without Optuna
        trials_here = run_here and auto_search.search_of_draft(draft, self.searches)
        job = self.store.create(draft, timings, call.user_name,
                                allow_duplicate_names=self.allow_duplicate_names,
                                execute_in=self.work_dir if run_here else None)
        if trials_here and self.searches is not None:
            self.searches.submit(job["metadata"]["id"])
        elif run_here and self.executor is not None:
            self.executor.submit(job["metadata"]["id"])
        return 201, self.pools.queue_if_on_pool(job, on_pool)

    def get(self, call: Call) -> tuple[int, Any]:
        return 200, self.store.get(call.params["job"])

    def terminate(self, call: Call) -> tuple[int, Any]:
        req = json_body(call.body)
        action = req.get("action_type") if isinstance(req, dict) else None
        if action != "terminate":  # the one action the actions route documents
            self.store.get(call.params["job"])  # an unknown job is reported first
            raise errors.bad_action(action)
        return 202, self.store.terminate(call.params["job"])

    def delete(self, call: Call) -> tuple[int, Any]:
        self._delete_job(call.params["job"])
        return 202, None

    def batch_delete(self, call: Call) -> tuple[int, Any]:
        ids = job_ids(json_body(call.body))
        # every job is looked up (an unknown one refused) before any is deleted: all or nothing
        check_one_workspace({i: self.store.get(i)["metadata"].get("workspace_id") or "0" for i in ids})
        for job_id in ids:
            self._delete_job(job_id)
        return 202, None

    def _delete_job(self, job_id: str) -> None:
        row = self.store.row(job_id) if self.executor is not None else None
        c = self.config
        delete_s = c.phase_seconds if c.delete_seconds is None else c.delete_seconds
        self.store.delete(job_id, round(delete_s * 1000))
        if self.executor is not None:
            self.executor.deleted(job_id, row)
        self.pools.store.record_job_delete(job_id)

    def update(self, call: Call) -> tuple[int, Any]:
        # only the description changes in place (the update page); the rest of a job is fixed at create
        req = parse(UpdateRequest, json_body(call.body))
        return 200, self.store.update_description(call.params["job"], req.description)

    def logs(self, call: Call) -> tuple[int, Any]:  # counted as "logs"; fault rules reach it through operation "any"
        row = self.store.row(call.params["job"])
        trial_log = auto_search.trial_log(row, call.params["task"], self.store.now())  # task "trial-<trial_id>"
        return 200, trial_log if trial_log is not None else log_preview(row, call.params["task"], self.store.now())

    def log_url(self, call: Call) -> tuple[int, Any]:
        row = self.store.row(call.params["job"])
        return 200, log_reads.log_url(row, call.params["task"], self.store.now(),
                                      call.host or f"{self.config.host}:{self.config.port}")

    def log_lines(self, call: Call) -> tuple[int, Any]:
        return 200, log_reads.aom_lines(self.store.row(call.params["job"]), call.params["task"],
                                        self.store.now(), call.raw_query)

    def quotas(self, call: Call) -> tuple[int, Any]:
        return 200, quotas_of(len(self.store.all_rows()), call.raw_query)

    def tasks(self, call: Call) -> tuple[int, Any]:
        return 200, observe.tasks(self.store.row(call.params["job"]), self.store.now())

    def metrics(self, call: Call) -> tuple[int, Any]:
        return 200, observe.metrics(self.store.row(call.params["job"]), call.params["task"], self.store.now())

    def events(self, call: Call) -> tuple[int, Any]:
        return 200, observe.events(self.store.row(call.params["job"]), self.store.now(), call.raw_query)

    def name_taken(self, call: Call) -> tuple[int, Any]:
        return 200, observe.name_taken(self.store.all_rows(), call.raw_query)

    def search(self, call: Call) -> tuple[int, Any]:
        req = parse(SearchRequest, json_body(call.body) if call.body else {})
        return 200, list_filters.search(self.store, req, self.search_offset, self.search_all_workspaces)

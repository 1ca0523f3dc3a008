"""HTTP layer: routing, request parsing, faults, auth, JSON responses.

One ``EmulatorApp`` holds the state; ``Handler`` (local_cloud's ``AppHandler``, speaking HTTP/1.1
keep-alive) turns each request into ``app.dispatch(...)`` and writes the answer — or, for the
``reset`` / ``drop_after_commit`` faults, slams the connection shut without one.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
import tempfile
import time
import traceback
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from local_cloud.server import AppHandler, reset_connection

from . import errors
from .auth import Authenticator
from .catalog import api as catalog_api
from .catalog.model import Catalog
from .config import EmulatorConfig
from .controls import Counters, Faults
from .errors import ApiError
from .execution import obs_check, plan as execution_plan
from .execution.obs_transfer import ObsTransfer
from .execution.engines import EnginePythons
from .execution.gpus import GpuPool
from .execution.gpus import inventory as gpus_inventory
from .execution.runner import Executor
from .jobs import batch_delete, list_filters, log_reads, observe, quotas, validation
from .jobs.query import query_params
from .jobs.logs import preview as log_preview
from .jobs.models import Store, Timings
from .jobs import tags as job_tags  # a job's tags (TMS): their own routes and handlers
from .pools import api as pool_api  # pools and networks: their own routes and handlers
from .wire import ClockAdvance, FaultRules, SearchRequest, Settings, UpdateRequest, parse
from .auto_search import api as auto_search  # the service's own hyperparameter search: its routes and handlers

# Words the SDK uses right under training-jobs/ that are not job ids (batch-delete; autosearch/...): never read
# as a job id, so a method or sub-path the emulator lacks there answers as the gateway does (404 APIGW.0101),
# not "job batch-delete not found" or 405.
NOT_JOB_IDS = ("batch-delete", "autosearch")
_JOB = r"(?P<job>(?!(?:" + "|".join(NOT_JOB_IDS) + r")(?:/|$))[^/]+)"
JOBS_RE = re.compile(r"^/v2/(?P<project>[^/]+)/training-jobs$")
BATCH_DELETE_RE = re.compile(r"^/v2/(?P<project>[^/]+)/training-jobs/batch-delete$")
JOB_RE = re.compile(r"^/v2/(?P<project>[^/]+)/training-jobs/" + _JOB + "$")
ACTIONS_RE = re.compile(r"^/v2/(?P<project>[^/]+)/training-jobs/" + _JOB + "/actions$")
SEARCH_RE = re.compile(r"^/v2/(?P<project>[^/]+)/training-job-searches$")
LOGS_RE = re.compile(r"^/v2/(?P<project>[^/]+)/training-jobs/" + _JOB + r"/tasks/(?P<task>[^/]+)/logs/preview$")
# The log's link (ShowObsUrlOfTrainingJobLogs) and its lines (show_training_job_logs_from_aom): jobs/log_reads.py
LOG_URL_RE = re.compile(r"^/v2/(?P<project>[^/]+)/training-jobs/" + _JOB + r"/tasks/(?P<task>[^/]+)/logs/url$")
AOM_LOGS_RE = re.compile(r"^/v2/(?P<project>[^/]+)/training-jobs/" + _JOB + r"/logs/(?P<task>[^/]+)$")
# What a client reads about a job besides its details and logs (jobs/observe.py).
TASKS_RE = re.compile(r"^/v2/(?P<project>[^/]+)/training-jobs/" + _JOB + "/tasks$")
METRICS_RE = re.compile(r"^/v2/(?P<project>[^/]+)/training-jobs/" + _JOB + r"/metrics/(?P<task>[^/]+)$")
EVENTS_RE = re.compile(r"^/v2/(?P<project>[^/]+)/training-jobs/" + _JOB + "/events$")
NAMES_RE = re.compile(r"^/v2/(?P<project>[^/]+)/training-job-names$")
QUOTAS_RE = re.compile(r"^/v2/(?P<project>[^/]+)/training-quotas$")
# The catalog reads (catalog/api.py), each counted as its own operation.
FLAVORS_RE = re.compile(r"^/v2/(?P<project>[^/]+)/training-job-flavors$")
ENGINES_RE = re.compile(r"^/v2/(?P<project>[^/]+)/training-job-engines$")
ALGORITHMS_RE = re.compile(r"^/v2/(?P<project>[^/]+)/algorithms$")
ALGORITHM_RE = re.compile(r"^/v2/(?P<project>[^/]+)/algorithms/(?P<algorithm>[^/]+)$")
# The link the log URL answers: the whole log, unsigned, as a presigned OBS URL would serve it (jobs/log_reads.py)
TASK_LOG_CONTROL = re.compile(r"^task-logs/(?P<job>[^/]+)/(?P<task>[^/]+)$")
JOB_ROUTES: tuple[tuple[re.Pattern[str], dict[str, str]], ...] = (
    (JOBS_RE, {"POST": "create"}),
    (BATCH_DELETE_RE, {"POST": "batch_delete"}),
    (JOB_RE, {"GET": "get", "DELETE": "delete", "PUT": "update"}),
    (ACTIONS_RE, {"POST": "terminate"}),
    (SEARCH_RE, {"POST": "search"}),
    (LOGS_RE, {"GET": "logs"}),
    (LOG_URL_RE, {"GET": "log_url"}),
    (AOM_LOGS_RE, {"GET": "log_lines"}),
    (TASKS_RE, {"GET": "tasks"}),
    (METRICS_RE, {"GET": "metrics"}),
    (EVENTS_RE, {"GET": "events"}),
    (NAMES_RE, {"GET": "name_taken"}),
    (QUOTAS_RE, {"GET": "quotas"}),
    (FLAVORS_RE, {"GET": "flavors"}),
    (ENGINES_RE, {"GET": "engines"}),
    (ALGORITHMS_RE, {"GET": "algorithms"}),
    (ALGORITHM_RE, {"GET": "algorithm"}),
)
IAM_TOKENS = "/v3/auth/tokens"
CONTROL_PREFIX = "/_emulator/"


def _all_routes() -> tuple[tuple[re.Pattern[str], dict[str, str]], ...]:
    return (*pool_api.ROUTES, *auto_search.ROUTES, *job_tags.ROUTES, *JOB_ROUTES)


ROUTES = _all_routes()  # every API route, first match wins (the IAM token route apart)
OPERATIONS = frozenset({"iam_token"} | {op for _, ops in ROUTES for op in ops.values()})


@dataclass
class Reply:
    status: int
    body: Any = None  # JSON-serialisable; None = empty body; str = sent as text/plain (a log file's link)
    headers: dict[str, str] = field(default_factory=dict)
    drop: bool = False  # close the connection with a reset instead of answering


@dataclass(frozen=True)
class Call:
    """One authenticated request to a training-job action: what its method reads."""

    params: dict[str, str]  # the route's parts (project, job, task, algorithm)
    raw_query: str
    body: bytes
    user_name: str  # the caller (IAM user) the job is created for
    host: str = ""  # the Host the client called (links the emulator hands out point back at it)


def _error(exc: ApiError) -> Reply:
    return Reply(exc.status, exc.body(), dict(exc.headers))


class EmulatorApp:
    def __init__(self, config: EmulatorConfig) -> None:
        self.config = config
        self.catalog = Catalog.load(config.catalog)
        self.store = Store(config.db)
        self.auth = Authenticator(config, self.store)
        self.counters = Counters()
        self.faults = Faults()
        self.allow_duplicate_names = config.allow_duplicate_names  # runtime: /_emulator/settings
        self.search_offset = config.search_offset
        self.search_all_workspaces = config.search_all_workspaces
        self.drop_annotations = config.drop_annotations
        self.executor: Executor | None = None  # execution mode (--execute): jobs run as processes
        if config.execute:
            self.work_dir = config.work_dir or (
                Path(config.db).parent / "runs" if str(config.db) != ":memory:"
                else Path(tempfile.mkdtemp(prefix="modelarts-runs-")))
            obs = (ObsTransfer(config.obs_endpoint, config.access_key, config.secret_key)
                   if config.obs_endpoint else None)
            self.executor = Executor(self.store, obs, max_processes=config.max_processes,
                                     max_run_seconds=config.max_run_seconds,
                                     phase_seconds=config.phase_seconds,
                                     gpus=GpuPool(gpus_inventory(config.gpus)),
                                     engines=EnginePythons.parse(config.engine_python, config.engine_pythons),
                                     catalog=self.catalog)
        self.pools = pool_api.PoolApi(config, self.store)
        self.searches = auto_search.runner(self.store, self.executor) if self.executor is not None else None
        self.auto_search = auto_search.AutoSearchApi(self.store)
        self.tags = job_tags.TagApi(self.store)

    def close(self) -> None:
        if self.searches is not None:
            self.searches.close()
        if self.executor is not None:
            self.executor.close()
        self.store.close()

    # --- routing ----------------------------------------------------------------------------------

    def route(self, method: str, path: str) -> tuple[str, dict[str, str]] | None:
        """(operation, path params) of an API request, or None for an unknown route."""
        if path == IAM_TOKENS:
            return ("iam_token", {}) if method == "POST" else None
        for regex, ops in ROUTES:
            m = regex.match(path)
            if m:
                op = ops.get(method)
                if op is None:
                    raise errors.method_not_allowed(method, path)
                return op, m.groupdict()
        return None

    def dispatch(self, method: str, raw_path: str, raw_query: str, headers: dict[str, str],
                 body: bytes) -> Reply:
        try:
            if raw_path.startswith(CONTROL_PREFIX):
                return self.control(method, raw_path, body)
            routed = self.route(method, raw_path)
            if routed is None:
                raise errors.not_found_route(raw_path)
        except ApiError as exc:
            return _error(exc)
        op, params = routed
        self.counters.incr(op)
        fault = self.faults.take(op)
        delay = self.config.latency_ms + (fault.latency_ms if fault and fault.kind == "latency" else 0)
        if delay:
            time.sleep(delay / 1000)
        if fault is not None and fault.kind == "reset":
            return Reply(0, drop=True)
        if fault is not None and fault.kind == "status":
            exc = errors.throttled(fault.retry_after) if fault.status == 429 else \
                errors.not_found_route(raw_path) if fault.status == 404 else errors.server_error(fault.status)
            return _error(exc)
        try:
            reply = self.api(op, method, raw_path, raw_query, headers, body, params)
            if self.drop_annotations and op in ANSWERS_WITH_ANNOTATIONS:
                reply.body = _without_annotations(reply.body)
        except ApiError as exc:
            reply = _error(exc)
        except Exception:  # a bug in the emulator: answer like the service would, log it
            traceback.print_exc(file=sys.stderr)
            reply = _error(errors.server_error(500))
        if fault is not None and fault.kind == "drop_after_commit":
            reply.drop = True  # the operation has been committed; the client never hears of it
        return reply

    # --- API --------------------------------------------------------------------------------------

    def api(self, op: str, method: str, raw_path: str, raw_query: str, headers: dict[str, str],
            body: bytes, params: dict[str, str]) -> Reply:
        if op == "iam_token":
            token, payload = self.auth.issue_token(_json(body))
            return Reply(201, payload, {"X-Subject-Token": token})
        principal = self.auth.authenticate(method, raw_path, raw_query, headers, body,
                                           params["project"])
        self.pools.schedule()  # jobs queued on created pools start when the pool has room
        if op in pool_api.OPERATIONS:
            return Reply(*self.pools.handle(op, params, _json(body) if body else None, raw_query))
        if op in job_tags.OPERATIONS:
            return Reply(*self.tags.handle(op, params, query_params(raw_query), _json(body) if body else None))
        if op in auto_search.OPERATIONS:
            return Reply(*self.auto_search.handle(op, params, raw_query))
        action = getattr(self, f"_job_{op}", None)  # one thin method per action, below
        if action is None:  # pragma: no cover - route() covers every op
            raise errors.not_found_route(raw_path)
        reply: Reply = action(Call(params, raw_query, body, principal.user_name, _header(headers, "host")))
        return reply

    # --- training jobs: one method per action, its rules beside it (the create body's: jobs/validation.py) --

    def _job_create(self, call: Call) -> Reply:
        catalog = self.pools.catalog_for(self.catalog, call.params["project"], call.body)
        draft = validation.validate_create(_json(call.body), catalog,
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
        return Reply(201, self.pools.queue_if_on_pool(job, on_pool))

    def _job_get(self, call: Call) -> Reply:
        return Reply(200, self.store.get(call.params["job"]))

    def _job_terminate(self, call: Call) -> Reply:
        req = _json(call.body)
        action = req.get("action_type") if isinstance(req, dict) else None
        if action != "terminate":  # the one action the actions route documents
            self.store.get(call.params["job"])  # an unknown job is reported first
            raise errors.bad_action(action)
        return Reply(202, self.store.terminate(call.params["job"]))

    def _job_delete(self, call: Call) -> Reply:
        self._delete_job(call.params["job"])
        return Reply(202, None)

    def _job_batch_delete(self, call: Call) -> Reply:
        ids = batch_delete.job_ids(_json(call.body))
        # every job is looked up (an unknown one refused) before any is deleted: all or nothing
        batch_delete.check_one_workspace(
            {i: self.store.get(i)["metadata"].get("workspace_id") or "0" for i in ids})
        for job_id in ids:
            self._delete_job(job_id)
        return Reply(202, None)

    def _delete_job(self, job_id: str) -> None:
        row = self.store.row(job_id) if self.executor is not None else None
        c = self.config
        delete_s = c.phase_seconds if c.delete_seconds is None else c.delete_seconds
        self.store.delete(job_id, round(delete_s * 1000))
        if self.executor is not None:
            self.executor.deleted(job_id, row)
        self.pools.store.record_job_delete(job_id)

    def _job_update(self, call: Call) -> Reply:
        # only the description changes in place (the update page); the rest of a job is fixed at create
        req = parse(UpdateRequest, _json(call.body))
        return Reply(200, self.store.update_description(call.params["job"], req.description))

    def _job_logs(self, call: Call) -> Reply:  # counted as "logs"; fault rules reach it through operation "any"
        row = self.store.row(call.params["job"])
        trial_log = auto_search.trial_log(row, call.params["task"], self.store.now())  # task "trial-<trial_id>"
        return Reply(200, trial_log if trial_log is not None else log_preview(row, call.params["task"],
                                                                              self.store.now()))

    def _job_log_url(self, call: Call) -> Reply:
        row = self.store.row(call.params["job"])
        return Reply(200, log_reads.log_url(row, call.params["task"], self.store.now(),
                                            call.host or f"{self.config.host}:{self.config.port}"))

    def _job_log_lines(self, call: Call) -> Reply:
        return Reply(200, log_reads.aom_lines(self.store.row(call.params["job"]), call.params["task"],
                                              self.store.now(), call.raw_query))

    def _job_quotas(self, call: Call) -> Reply:
        return Reply(200, quotas.quotas(len(self.store.all_rows()), call.raw_query))

    def _job_algorithms(self, call: Call) -> Reply:
        return Reply(200, catalog_api.algorithms(self.catalog, call.raw_query))

    def _job_tasks(self, call: Call) -> Reply:
        return Reply(200, observe.tasks(self.store.row(call.params["job"]), self.store.now()))

    def _job_metrics(self, call: Call) -> Reply:
        return Reply(200, observe.metrics(self.store.row(call.params["job"]), call.params["task"], self.store.now()))

    def _job_events(self, call: Call) -> Reply:
        return Reply(200, observe.events(self.store.row(call.params["job"]), self.store.now(), call.raw_query))

    def _job_name_taken(self, call: Call) -> Reply:
        return Reply(200, observe.name_taken(self.store.all_rows(), call.raw_query))

    def _job_flavors(self, call: Call) -> Reply:
        return Reply(200, catalog_api.flavors(self.catalog, call.raw_query))

    def _job_engines(self, call: Call) -> Reply:
        return Reply(200, catalog_api.engines(self.catalog))

    def _job_algorithm(self, call: Call) -> Reply:
        return Reply(200, catalog_api.algorithm(self.catalog, call.params["algorithm"]))

    def _job_search(self, call: Call) -> Reply:
        req = parse(SearchRequest, _json(call.body) if call.body else {})
        return Reply(200, list_filters.search(self.store, req, self.search_offset, self.search_all_workspaces))

    # --- /_emulator controls (no auth, not counted) -------------------------------------------------

    def control(self, method: str, path: str, body: bytes) -> Reply:
        name = path[len(CONTROL_PREFIX):].rstrip("/")
        if name == "counters" and method == "GET":
            return Reply(200, self.counters.snapshot())
        if name == "reset" and method == "POST":
            if self.executor is not None:  # every job goes, with its processes and directories
                roots = [r.doc["execution"]["root"] for r in self.store.all_rows()
                         if (r.doc.get("execution") or {}).get("root")]
                self.executor.reset()
                # only the directories of its own jobs: --work-dir may hold files it did not make
                for root in roots:
                    shutil.rmtree(root, ignore_errors=True)
            self.store.reset()
            if self.searches is not None:  # their threads see their jobs gone and kill their trials
                self.searches.join()
            self.counters.reset()
            self.faults.clear()
            self.allow_duplicate_names = self.config.allow_duplicate_names
            self.search_offset = self.config.search_offset
            self.search_all_workspaces = self.config.search_all_workspaces
            self.drop_annotations = self.config.drop_annotations
            self.pools.store.reset()
            self.auth.pin_gateway_clock(None)
            return Reply(200, {"reset": True})
        if name == "settings":
            if method == "POST":
                changed = parse(Settings, _json(body))
                if changed.allow_duplicate_names is not None:
                    self.allow_duplicate_names = changed.allow_duplicate_names
                if changed.search_offset is not None:
                    self.search_offset = changed.search_offset
                if changed.search_all_workspaces is not None:
                    self.search_all_workspaces = changed.search_all_workspaces
                if changed.drop_annotations is not None:
                    self.drop_annotations = changed.drop_annotations
            if method in ("GET", "POST"):
                return Reply(200, {"allow_duplicate_names": self.allow_duplicate_names,
                                   "search_offset": self.search_offset,
                                   "search_all_workspaces": self.search_all_workspaces,
                                   "drop_annotations": self.drop_annotations})
        if name == "faults":
            if method == "POST":
                rules = parse(FaultRules, _json(body))
                self.faults.replace(rules.rules)
                return Reply(200, {"rules": self.faults.remaining()})
            if method == "DELETE":
                self.faults.clear()
                return Reply(200, {"rules": []})
            if method == "GET":
                return Reply(200, {"rules": self.faults.remaining()})
        if name == "clock" and method in ("GET", "POST"):
            if method == "POST":
                change = parse(ClockAdvance, _json(body))
                if "gateway_at" in change.model_fields_set:
                    self.auth.pin_gateway_clock(change.gateway_at)
                self.store.advance(round(change.advance_seconds * 1000))
            return Reply(200, {"offset_seconds": self.store.offset_ms / 1000, "now_ms": self.store.now(),
                               "gateway_at": self.auth.gateway_at})
        task_log = TASK_LOG_CONTROL.match(name)
        if task_log and method == "GET":  # where the log URL points: the whole log as text
            row = self.store.row(task_log["job"])
            return Reply(200, log_reads.full_log(row, task_log["task"], self.store.now()))
        if name == "jobs" and method == "GET":
            self.pools.schedule()  # queued jobs shown as the API would show them now
            jobs = self.store.all_jobs()
            return Reply(200, {"total": len(jobs), "items": jobs})
        if name in pool_api.CONTROLS:
            return Reply(*self.pools.control(name, method, _json(body) if body else None))
        if name == "config" and method == "GET":
            c = self.config
            return Reply(200, {"project_id": c.project_id, "run_seconds": c.run_seconds,
                               "phase_seconds": c.phase_seconds, "latency_ms": c.latency_ms,
                               "db": str(c.db), "execute": c.execute})
        raise errors.not_found_route(path)


# The answers that carry jobs, pools or networks: --drop-annotations takes their annotations out.
ANSWERS_WITH_ANNOTATIONS = frozenset({"create", "get", "terminate", "update", "search"}) | pool_api.OPERATIONS


def _without_annotations(body: Any) -> Any:
    """`body` with every `metadata.annotations` removed (a job, a list of jobs, a pool, a list of pools...)."""
    if isinstance(body, list):
        return [_without_annotations(x) for x in body]
    if not isinstance(body, dict):
        return body
    out = {k: _without_annotations(v) for k, v in body.items()}
    meta = out.get("metadata")
    if isinstance(meta, dict):
        out["metadata"] = {k: v for k, v in meta.items() if k != "annotations"}
    return out


def _header(headers: dict[str, str], name: str) -> str:
    return next((v for k, v in headers.items() if k.lower() == name), "")


def _json(body: bytes) -> Any:
    if not body:
        raise errors.bad_json("The request body is empty.")
    try:
        return json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise errors.bad_json() from None


class Handler(AppHandler):
    server_version = "ModelArtsEmulator/1.0"
    # Headers and body leave in one segment (buffered wfile, flushed per request) and Nagle is off:
    # otherwise delayed ACKs cap a keep-alive connection at ~25 requests/s.
    wbufsize = -1
    disable_nagle_algorithm = True

    def _handle(self) -> None:
        app: EmulatorApp = self.server.app  # type: ignore[attr-defined]
        reply = app.dispatch(self.command, *self.request_parts())
        if reply.drop:
            self._reset_connection()
            return
        text = isinstance(reply.body, str)
        payload = b"" if reply.body is None else reply.body.encode() if text else json.dumps(reply.body).encode()
        self.send_response(reply.status)
        if reply.body is not None:
            self.send_header("Content-Type", "text/plain;charset=UTF-8" if text else "application/json;charset=UTF-8")
        self.send_header("Content-Length", str(len(payload)))
        if "X-Request-Id" not in reply.headers:  # a gateway error carries its own (also in its body)
            self.send_header("X-Request-Id", uuid.uuid4().hex)
        for k, v in reply.headers.items():
            self.send_header(k, v)
        self.end_headers()
        if payload:
            self.wfile.write(payload)

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _handle

    _reset_connection = reset_connection  # an RST and no response: the client sees a reset

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
from .auto_search import api as auto_search  # the service's own hyperparameter search: its routes and handlers
from .catalog import api as catalog_api  # the catalog reads: their own routes
from .catalog.model import Catalog
from .config import EmulatorConfig
from .controls import Counters, Faults
from .errors import ApiError
from .execution.obs_transfer import ObsTransfer
from .execution.engines import EnginePythons
from .execution.gpus import GpuPool
from .execution.gpus import inventory as gpus_inventory
from .execution.runner import Executor
from .jobs import api as job_api  # training jobs: their own routes and one method per action
from .jobs import log_reads
from .jobs.query import query_params
from .jobs.models import Store
from .jobs import tags as job_tags  # a job's tags (TMS): their own routes and handlers
from .pools import api as pool_api  # pools and networks: their own routes and handlers
from .wire import ClockAdvance, FaultRules, Settings, json_body, parse

# The link the log URL answers: the whole log, unsigned, as a presigned OBS URL would serve it (jobs/log_reads.py)
TASK_LOG_CONTROL = re.compile(r"^task-logs/(?P<job>[^/]+)/(?P<task>[^/]+)$")
IAM_TOKENS = "/v3/auth/tokens"
CONTROL_PREFIX = "/_emulator/"


def _all_routes() -> tuple[tuple[re.Pattern[str], dict[str, str]], ...]:
    return (*pool_api.ROUTES, *auto_search.ROUTES, *job_tags.ROUTES, *job_api.ROUTES, *catalog_api.ROUTES)


ROUTES = _all_routes()  # every API route, first match wins (the IAM token route apart)
OPERATIONS = frozenset({"iam_token"} | {op for _, ops in ROUTES for op in ops.values()})


@dataclass
class Reply:
    status: int
    body: Any = None  # JSON-serialisable; None = empty body; str = sent as text/plain (a log file's link)
    headers: dict[str, str] = field(default_factory=dict)
    drop: bool = False  # close the connection with a reset instead of answering


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
        self.drop_annotations = config.drop_annotations  # runtime: /_emulator/settings
        self.executor: Executor | None = None  # execution mode (--execute): jobs run as processes
        work_dir: Path | None = None
        if config.execute:
            work_dir = config.work_dir or (
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
        self.jobs = job_api.JobApi(config, self.catalog, self.store, self.pools, self.executor, self.searches,
                                   work_dir)

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
            token, payload = self.auth.issue_token(json_body(body))
            return Reply(201, payload, {"X-Subject-Token": token})
        principal = self.auth.authenticate(method, raw_path, raw_query, headers, body,
                                           params["project"])
        self.pools.schedule()  # jobs queued on created pools start when the pool has room
        if op in pool_api.OPERATIONS:
            return Reply(*self.pools.handle(op, params, json_body(body) if body else None, raw_query))
        if op in job_tags.OPERATIONS:
            return Reply(*self.tags.handle(op, params, query_params(raw_query), json_body(body) if body else None))
        if op in auto_search.OPERATIONS:
            return Reply(*self.auto_search.handle(op, params, raw_query))
        if op in catalog_api.OPERATIONS:
            return Reply(*catalog_api.handle(self.catalog, op, params, raw_query))
        call = job_api.Call(params, raw_query, body, principal.user_name, _header(headers, "host"))
        return Reply(*self.jobs.handle(op, call))

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
            self.jobs.reset_switches()
            self.drop_annotations = self.config.drop_annotations
            self.pools.store.reset()
            self.auth.pin_gateway_clock(None)
            return Reply(200, {"reset": True})
        if name == "settings":
            if method == "POST":
                changed = parse(Settings, json_body(body))
                if changed.allow_duplicate_names is not None:
                    self.jobs.allow_duplicate_names = changed.allow_duplicate_names
                if changed.search_offset is not None:
                    self.jobs.search_offset = changed.search_offset
                if changed.search_all_workspaces is not None:
                    self.jobs.search_all_workspaces = changed.search_all_workspaces
                if changed.drop_annotations is not None:
                    self.drop_annotations = changed.drop_annotations
            if method in ("GET", "POST"):
                return Reply(200, {"allow_duplicate_names": self.jobs.allow_duplicate_names,
                                   "search_offset": self.jobs.search_offset,
                                   "search_all_workspaces": self.jobs.search_all_workspaces,
                                   "drop_annotations": self.drop_annotations})
        if name == "faults":
            if method == "POST":
                rules = parse(FaultRules, json_body(body))
                self.faults.replace(rules.rules)
                return Reply(200, {"rules": self.faults.remaining()})
            if method == "DELETE":
                self.faults.clear()
                return Reply(200, {"rules": []})
            if method == "GET":
                return Reply(200, {"rules": self.faults.remaining()})
        if name == "clock" and method in ("GET", "POST"):
            if method == "POST":
                change = parse(ClockAdvance, json_body(body))
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
            return Reply(*self.pools.control(name, method, json_body(body) if body else None))
        if name == "config" and method == "GET":
            c = self.config
            return Reply(200, {"project_id": c.project_id, "run_seconds": c.run_seconds,
                               "phase_seconds": c.phase_seconds, "latency_ms": c.latency_ms,
                               "db": str(c.db), "execute": c.execute})
        raise errors.not_found_route(path)


# The answers that carry jobs, pools or networks: --drop-annotations takes their annotations out.
ANSWERS_WITH_ANNOTATIONS = job_api.ANSWERS_WITH_ANNOTATIONS | pool_api.OPERATIONS


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

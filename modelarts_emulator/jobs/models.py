"""Emulator state: training jobs (and IAM tokens) in SQLite; phases derived from stored timestamps.

A job row stores when it was created, how long each phase lasts for it and (once asked) when it was
terminated. Its phase is never stored: it is computed from those numbers and the clock on every read,
so a restarted emulator resumes every job exactly where it would have been.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from .. import errors
from .validation import JobDraft

TERMINABLE = {"Creating", "Pending", "Running"}
TERMINAL = {"Completed", "Failed", "Abnormal", "Terminated"}
SECONDARY = {"Creating": "Creating", "Pending": "Queuing", "Running": "Running",
             "Completed": "Completed", "Failed": "Failed", "Abnormal": "Lost",
             "Terminating": "Terminating", "Terminated": "Terminated"}
TERMINATED_EXIT_CODE = 137  # SIGKILL, what a terminated container reports
# Execution mode (execution.py): a job waits in Pending with this pending time until its processes get
# their slots; start_run() then fixes the real one. About 100 years: never reached by the clock.
QUEUED_PENDING_MS = 100 * 365 * 24 * 3_600_000

SCHEMA = """
CREATE TABLE IF NOT EXISTS jobs (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,                   -- unique unless duplicates are allowed (checked in create)
    description TEXT NOT NULL,
    create_ms INTEGER NOT NULL,
    doc TEXT NOT NULL,                    -- JSON: metadata extras, algorithm and spec as echoed
    node_count INTEGER NOT NULL,
    outcome TEXT NOT NULL,                -- complete | fail | abnormal | hang
    creating_ms INTEGER NOT NULL,
    pending_ms INTEGER NOT NULL,
    run_ms INTEGER,                       -- NULL: hang (Running until terminated)
    terminating_ms INTEGER NOT NULL,
    auto_stop_ms INTEGER,                 -- spec.auto_stop, NULL when not set
    exit_code INTEGER NOT NULL,
    message TEXT,
    terminate_ms INTEGER,                 -- when terminate was accepted, NULL otherwise
    gone_ms INTEGER                       -- deleted: answered until then, gone from then on (NULL: not deleted)
);
CREATE INDEX IF NOT EXISTS jobs_by_name ON jobs (name);
CREATE INDEX IF NOT EXISTS jobs_being_deleted ON jobs (gone_ms) WHERE gone_ms IS NOT NULL;
CREATE TABLE IF NOT EXISTS clock (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    offset_ms INTEGER NOT NULL            -- added to the wall clock: /_emulator/clock moves it forward
);
CREATE TABLE IF NOT EXISTS tokens (
    token TEXT PRIMARY KEY,
    expires_ms INTEGER NOT NULL,
    project_id TEXT NOT NULL,
    user_name TEXT NOT NULL
);
"""

COLUMNS = ("id, name, description, create_ms, doc, node_count, outcome, creating_ms, pending_ms, "
           "run_ms, terminating_ms, auto_stop_ms, exit_code, message, terminate_ms")


def now_ms() -> int:
    return int(time.time() * 1000)


@dataclass
class Timings:
    """Phase durations given to a new job (from the server flags and its annotations)."""

    creating_s: float
    pending_s: float
    run_s: float
    terminating_s: float


@dataclass
class JobRow:
    id: str
    name: str
    description: str
    create_ms: int
    doc: dict[str, Any]
    node_count: int
    outcome: str
    creating_ms: int
    pending_ms: int
    run_ms: int | None
    terminating_ms: int
    auto_stop_ms: int | None
    exit_code: int
    message: str | None
    terminate_ms: int | None

    @classmethod
    def from_db(cls, row: tuple) -> "JobRow":
        values = list(row)
        values[4] = json.loads(values[4])
        return cls(*values)

    # --- lifecycle ------------------------------------------------------------------------------

    def start_ms(self) -> float:
        """When Running starts. On a created pool (pool_jobs.py): when the pool had room for it."""
        if "pool_queue" in self.doc:
            placed = self.doc.get("pool_start_ms")
            return float("inf") if placed is None else max(placed, self.create_ms + self.creating_ms)
        return self.create_ms + self.creating_ms + self.pending_ms

    def natural_end_ms(self) -> tuple[float, str]:
        """When Running ends on its own, and the phase it ends in."""
        start = self.start_ms()
        end = float("inf") if (self.run_ms is None or self.outcome == "hang") else start + self.run_ms
        lost = self.doc.get("pool_lost_ms")  # its pool was deleted under it
        if lost is not None and lost < end and (self.auto_stop_ms is None or lost < start + self.auto_stop_ms):
            return max(lost, self.create_ms), "Failed"
        if self.auto_stop_ms is not None and start + self.auto_stop_ms < end:
            return start + self.auto_stop_ms, "Terminated"
        final = {"complete": "Completed", "fail": "Failed", "abnormal": "Abnormal"}
        return end, final.get(self.outcome, "Completed")

    def phase_at(self, t: int) -> str:
        return self.status_at(t)["phase"]

    def status_at(self, t: int) -> dict[str, Any]:
        created_end = self.create_ms + self.creating_ms
        start = self.start_ms()
        end, final = self.natural_end_ms()
        if self.terminate_ms is not None:
            stop_at = self.terminate_ms
            phase = "Terminating" if t < stop_at + self.terminating_ms else "Terminated"
        elif t < created_end:
            phase, stop_at = "Creating", None
        elif t < start and t < end:  # end < start: its pool was deleted while it waited for it
            phase, stop_at = "Pending", None
        elif t < end:
            phase, stop_at = "Running", None
        else:
            phase, stop_at = final, end
        started = (stop_at if stop_at is not None else t) >= start
        run_until = min(t, stop_at) if stop_at is not None else t
        tasks = [f"worker-{i}" for i in range(self.node_count)]
        status: dict[str, Any] = {
            "phase": phase,
            "secondary_phase": SECONDARY[phase],
            "duration": int(run_until - start) if started else 0,
            "start_time": int(start) if started else 0,
            "node_count_metrics": None,
            "tasks": tasks,
        }
        if started:
            metrics = [[int(start), self.node_count]]
            if stop_at is not None and t >= stop_at:
                metrics.append([int(stop_at), 0])
            status["node_count_metrics"] = metrics
        if phase in TERMINAL:
            status["task_statuses"] = [self._task_status(task, phase) for task in tasks]
        return status

    def _task_status(self, task: str, phase: str) -> dict[str, Any]:
        ran = (self.doc.get("execution") or {}).get("tasks") or {}
        if phase in ("Completed", "Failed") and task in ran:  # a real process: its own exit code
            code = int(ran[task]["exit_code"])
            msg = ran[task].get("message") or (
                "" if code == 0 else f"Training process of {task} exited with code {code}.")
            return {"task": task, "exit_code": code, "message": msg}
        if phase == "Completed":
            code, msg = 0, ""
        elif phase == "Failed":
            code = self.exit_code
            msg = self.doc.get("pool_lost_message") or self.message or \
                f"Training process of {task} exited with code {code}."
        elif phase == "Abnormal":
            code = self.exit_code
            msg = self.message or f"The node running {task} was lost; the job is abnormal."
        else:
            code, msg = TERMINATED_EXIT_CODE, "The training job was terminated."
        return {"task": task, "exit_code": code, "message": msg}

    def render(self, t: int) -> dict[str, Any]:
        """The job as every API response shows it (GET, create, terminate, update, search)."""
        meta: dict[str, Any] = {
            "id": self.id,
            "name": self.name,
            "description": self.description,
            "create_time": self.create_ms,
            "workspace_id": self.doc.get("workspace_id", "0"),
            "user_name": self.doc.get("user_name", ""),
        }
        if self.doc.get("annotations"):
            meta["annotations"] = self.doc["annotations"]
        out = {"kind": self.doc.get("kind", "job"), "metadata": meta, "status": self.status_at(t)}
        for key in ("algorithm", "tasks", "spec"):  # a job described by tasks alone has no algorithm/spec
            if self.doc.get(key):
                out[key] = self.doc[key]
        return out


class Store:
    """SQLite-backed state. One connection guarded by a lock: simple, and plenty fast here."""

    def __init__(self, path: str | Path, clock: Callable[[], int] = now_ms) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._clock = clock
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("PRAGMA busy_timeout=5000")
        self._add_gone_column()
        self._db.executescript(SCHEMA)
        self._drop_unique_names()
        # Stored, so a restart keeps an advanced clock: no job goes back to an earlier phase.
        found = self._db.execute("SELECT offset_ms FROM clock WHERE id = 1").fetchone()
        self._offset_ms = int(found[0]) if found else 0

    def _add_gone_column(self) -> None:
        """A database made before deletes were asynchronous has no gone_ms column: add it."""
        columns = [r[1] for r in self._db.execute("PRAGMA table_info(jobs)").fetchall()]
        if columns and "gone_ms" not in columns:
            self._db.execute("ALTER TABLE jobs ADD COLUMN gone_ms INTEGER")

    def _purge(self) -> None:
        """Deleted jobs whose time has come leave (under the lock): from now on they are ModelArts.2775."""
        self._db.execute("DELETE FROM jobs WHERE gone_ms IS NOT NULL AND gone_ms <= ?", (self.now(),))

    def _drop_unique_names(self) -> None:
        """A database made before --allow-duplicate-names has ``name ... UNIQUE``: rebuild its table."""
        row = self._db.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'jobs'").fetchone()
        if not row or "UNIQUE" not in row[0].split("name TEXT NOT NULL", 1)[1].split(",", 1)[0]:
            return
        table = SCHEMA[SCHEMA.index("CREATE TABLE IF NOT EXISTS jobs"):SCHEMA.index(");") + 2]
        self._db.executescript(
            "BEGIN; ALTER TABLE jobs RENAME TO jobs_unique_names; " + table
            + f" INSERT INTO jobs (seq, {COLUMNS}) SELECT seq, {COLUMNS} FROM jobs_unique_names;"
            " DROP TABLE jobs_unique_names; COMMIT;")
        self._db.executescript(SCHEMA)  # the name index, on the new table

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def now(self) -> int:
        """The emulated time: the clock plus the offset tests add (phases, logs, auto stop, tokens)."""
        return self._clock() + self._offset_ms

    @property
    def offset_ms(self) -> int:
        return self._offset_ms

    def advance(self, ms: int) -> int:
        """Move the emulated time forward by ``ms`` (never back: phases only move on); the new offset."""
        if ms < 0:
            raise ValueError("the clock only moves forward")
        with self._lock:
            self._offset_ms += ms
            self._save_offset()
        return self._offset_ms

    def _save_offset(self) -> None:
        self._db.execute("INSERT INTO clock (id, offset_ms) VALUES (1, ?) "
                         "ON CONFLICT (id) DO UPDATE SET offset_ms = excluded.offset_ms",
                         (self._offset_ms,))

    # --- jobs -----------------------------------------------------------------------------------

    def create(self, draft: JobDraft, timings: Timings, user_name: str, *,
               allow_duplicate_names: bool = False, execute_in: Path | None = None) -> dict[str, Any]:
        """Store a new job. ``execute_in``: its processes will run under ``execute_in/<job id>``
        (execution.py), so it stays Pending until they start and Running until they end."""
        job_id = str(uuid.uuid4())
        t = self.now()
        doc: dict[str, Any] = {"kind": "job", "workspace_id": draft.workspace_id, "user_name": user_name,
                               "annotations": draft.annotations, "algorithm": draft.algorithm,
                               "spec": draft.spec}
        if draft.tasks:
            doc["tasks"] = draft.tasks
        run_s = None if draft.outcome == "hang" else (
            draft.run_seconds if draft.run_seconds is not None else timings.run_s)
        if execute_in is not None:
            doc["execution"] = {"root": str(Path(execute_in) / job_id)}
            draft = dataclasses.replace(draft, outcome="hang")
            run_s = None
        auto = draft.spec.get("auto_stop")
        row = JobRow(
            id=job_id, name=draft.name, description=draft.description, create_ms=t, doc=doc,
            node_count=draft.node_count, outcome=draft.outcome,
            creating_ms=int(timings.creating_s * 1000),
            pending_ms=QUEUED_PENDING_MS if execute_in is not None else int(timings.pending_s * 1000),
            run_ms=None if run_s is None else int(run_s * 1000),
            terminating_ms=int(timings.terminating_s * 1000),
            auto_stop_ms=auto["duration"] * 3_600_000 if auto else None,
            exit_code=draft.exit_code, message=draft.message, terminate_ms=None)
        with self._lock:  # one connection, one lock: the check and the insert are atomic
            self._purge()  # a job being deleted still holds its name
            taken = self._db.execute("SELECT 1 FROM jobs WHERE name = ?", (draft.name,)).fetchone()
            if taken and not allow_duplicate_names:
                raise errors.duplicate_name(draft.name)
            self._db.execute(
                f"INSERT INTO jobs ({COLUMNS}) VALUES ({','.join('?' * 15)})",
                (row.id, row.name, row.description, row.create_ms, json.dumps(doc),
                 row.node_count, row.outcome, row.creating_ms, row.pending_ms, row.run_ms,
                 row.terminating_ms, row.auto_stop_ms, row.exit_code, row.message, None))
        return row.render(t)

    def _row(self, job_id: str) -> JobRow:
        self._purge()
        cur = self._db.execute(f"SELECT {COLUMNS} FROM jobs WHERE id = ?", (job_id,))
        found = cur.fetchone()
        if found is None:
            raise errors.job_not_found(job_id)
        return JobRow.from_db(found)

    def get(self, job_id: str) -> dict[str, Any]:
        with self._lock:
            row = self._row(job_id)
        return row.render(self.now())

    def row(self, job_id: str) -> JobRow:
        """The stored row (task logs derive from it like the phases); unknown: ModelArts.2775."""
        with self._lock:
            return self._row(job_id)

    def terminate(self, job_id: str) -> dict[str, Any]:
        with self._lock:
            row = self._row(job_id)
            t = self.now()
            phase = row.phase_at(t)
            if phase not in TERMINABLE:
                raise errors.cannot_terminate(job_id, phase)
            self._db.execute("UPDATE jobs SET terminate_ms = ? WHERE id = ?", (t, job_id))
            row.terminate_ms = t
        return row.render(t)

    # --- execution mode: the processes' own start and end (execution.py) ----------------------------

    def start_run(self, job_id: str) -> None:
        """The job's processes start now: it leaves Pending (its pending time becomes the real one)."""
        with self._lock:
            row = self._row(job_id)
            pending = max(0, self.now() - row.create_ms - row.creating_ms)
            self._db.execute("UPDATE jobs SET pending_ms = ? WHERE id = ?", (pending, job_id))

    def finish_run(self, job_id: str, tasks: dict[str, dict[str, Any]], outcome: str = "") -> None:
        """Every process ended now with ``tasks`` = {task: {"exit_code", "message"}}: Completed when
        all exited 0, else Failed with the first failing task's code (``outcome`` overrides, e.g.
        abnormal). A job already terminated or deleted keeps what it has."""
        with self._lock:
            try:
                row = self._row(job_id)
            except errors.ApiError:
                return
            if row.terminate_ms is not None:
                return
            failed = [s for s in tasks.values() if int(s["exit_code"]) != 0]
            outcome = outcome or ("fail" if failed else "complete")
            first = failed[0] if failed else {"exit_code": 0, "message": None}
            start = row.create_ms + row.creating_ms + row.pending_ms
            run_ms = max(0, self.now() - start)
            row.doc.setdefault("execution", {})["tasks"] = tasks
            self._db.execute(
                "UPDATE jobs SET outcome = ?, run_ms = ?, exit_code = ?, message = ?, doc = ? WHERE id = ?",
                (outcome, run_ms, int(first["exit_code"]), first.get("message"), json.dumps(row.doc),
                 job_id))

    def update_doc(self, job_id: str, change: Callable[[dict[str, Any]], None]) -> JobRow:
        """Apply ``change`` to the job's stored document atomically (auto_search keeps its trials and
        early stops there); the updated row. Unknown job: ModelArts.2775."""
        with self._lock:
            row = self._row(job_id)
            change(row.doc)
            self._db.execute("UPDATE jobs SET doc = ? WHERE id = ?", (json.dumps(row.doc), job_id))
            return row

    def delete(self, job_id: str, after_ms: int = 0) -> None:
        """Delete asynchronously, as the service does (Terraform's provider polls GET until ModelArts.2775
        after its DELETE): the job is answered as it is for ``after_ms`` more, then gone. A second DELETE
        meanwhile is accepted again and changes nothing."""
        with self._lock:
            self._row(job_id)  # unknown or gone: ModelArts.2775
            if after_ms <= 0:
                self._db.execute("DELETE FROM jobs WHERE id = ?", (job_id,))
            else:
                self._db.execute("UPDATE jobs SET gone_ms = ? WHERE id = ? AND gone_ms IS NULL",
                                 (self.now() + after_ms, job_id))

    def update_description(self, job_id: str, description: str) -> dict[str, Any]:
        with self._lock:
            self._purge()
            cur = self._db.execute("UPDATE jobs SET description = ? WHERE id = ?",
                                   (description, job_id))
            if cur.rowcount == 0:
                raise errors.job_not_found(job_id)
            row = self._row(job_id)
        return row.render(self.now())

    def all_rows(self) -> list[JobRow]:
        with self._lock:
            self._purge()
            rows = self._db.execute(f"SELECT {COLUMNS} FROM jobs ORDER BY seq").fetchall()
        return [JobRow.from_db(r) for r in rows]

    def all_jobs(self) -> list[dict[str, Any]]:
        t = self.now()
        return [r.render(t) for r in self.all_rows()]

    def reset(self) -> None:
        """No jobs, and the clock back to the wall clock (no job is left to go back in time)."""
        with self._lock:
            self._db.execute("DELETE FROM jobs")
            self._offset_ms = 0
            self._save_offset()

    # --- IAM tokens (persisted so a restart keeps clients' cached tokens valid) ------------------

    def add_token(self, token: str, expires_ms: int, project_id: str, user_name: str) -> None:
        with self._lock:
            self._db.execute("DELETE FROM tokens WHERE expires_ms < ?", (self.now(),))
            self._db.execute("INSERT INTO tokens VALUES (?, ?, ?, ?)",
                             (token, expires_ms, project_id, user_name))

    def token(self, token: str) -> tuple[int, str, str] | None:
        with self._lock:
            found = self._db.execute(
                "SELECT expires_ms, project_id, user_name FROM tokens WHERE token = ?",
                (token,)).fetchone()
        return tuple(found) if found else None  # type: ignore[return-value]

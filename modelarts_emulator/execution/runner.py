"""Execution mode (``--execute``): each task of a job with its own code runs as a local process.

Like SageMaker's local mode, for trying a training script before paying for the cloud. Per job, one
thread: it waits out the job's Creating/Pending time, takes one process slot per task
(``--max-processes``; a job waiting for slots stays Pending and its logs say why), downloads the code
directory and the input channels from the local OBS (execution_plan.py maps the container paths),
starts ``python <boot file> --<param>=<value> ... --<channel>=<local dir>`` per task in a process group
of its own with stdout and stderr appended to the task's log file, and polls them. A task that ends
(or is killed) has its output channels uploaded to OBS, also when it failed. The job's phase still
derives from its stored timestamps (models.py): start_run() ends Pending, finish_run() ends Running
with the exit codes (all 0: Completed, else Failed with the code of the task that failed first in time: a
rank that dies makes its peers fail after it, and the service blames the first). A terminate or an auto stop
(the job's phase says so) and ``--max-run-seconds`` end each task (SIGTERM, then SIGKILL after a grace period),
each with a line in the log naming why: its process group and every process carrying its marker (reaper.py),
so a child that left the group with ``setsid`` goes too; a task whose main process ends takes its leftovers
along, as a container does.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from .. import errors
from ..catalog.model import Catalog
from .engines import EnginePythons
from .gpus import GpuPool, flavor_of, gpus_per_node
from .plan import Placement, TaskPlan, plan_tasks
from .reaper import MARK_VAR, end_task, new_mark
from ..jobs.logs import MASK, secret_looking
from ..jobs.models import QUEUED_PENDING_MS, JobRow, Store
from .obs_transfer import ObsTransfer, TransferError

POLL_S = 0.1
KILL_GRACE_S = 3.0
KILLED_EXIT_CODE = 137  # 128 + SIGKILL, as a killed container reports
SETUP_EXIT_CODE = 2     # the code or an input could not be downloaded: nothing ran
SERVICE = "[ModelArts Service Log]"


def _stamp() -> str:
    return datetime.now(tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def write_log(path: Path, *lines: str, task_dir: Path | None = None) -> None:
    """Append service lines (timestamped like the service's) to a task log; paths under ``task_dir``
    are shown as TASK_DIR/..., so the lines stay short enough to read."""
    path.parent.mkdir(parents=True, exist_ok=True)
    shown = [line.replace(str(task_dir), "TASK_DIR") if task_dir else line for line in lines]
    with path.open("a", encoding="utf-8") as f:
        f.writelines(f"{_stamp()} {SERVICE} {line}\n" for line in shown)


class Slots:
    """At most ``limit`` processes at once; a job takes all its tasks' slots together (no deadlock)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._used = 0
        self._cond = threading.Condition()

    def try_take(self, n: int) -> bool:
        with self._cond:
            if self._used + n > self.limit:
                return False
            self._used += n
            return True

    def take(self, n: int, give_up: Any) -> bool:
        """Wait for ``n`` slots; False when ``give_up()`` turned true first."""
        with self._cond:
            while self._used + n > self.limit:
                if give_up():
                    return False
                self._cond.wait(0.2)
            self._used += n
            return True

    def give(self, n: int) -> None:
        with self._cond:
            self._used -= n
            self._cond.notify_all()

    @property
    def used(self) -> int:
        with self._cond:
            return self._used


@dataclass
class Running:
    plan: TaskPlan
    proc: subprocess.Popen[bytes] | None  # None: it never started (the download failed)
    started: float
    mark: str = ""                  # MA_EMULATOR_TASK_MARK of its processes (reaper.py)
    exit_code: int | None = None
    message: str | None = None
    stopped_by_peer: bool = False  # killed because another task of the job failed
    ended: float | None = None     # when its main process exited (monotonic), stamped by a waiter thread

    def wait_in_background(self) -> None:
        """Stamp the exit time as it happens: the watch loop polls every POLL_S, and ranks that fail within one
        poll of each other would otherwise look simultaneous (the first by index blamed, not the first in time)."""
        proc = self.proc
        if proc is None:
            return

        def wait() -> None:
            proc.wait()
            self.ended = time.monotonic()

        threading.Thread(target=wait, name=f"wait-{proc.pid}", daemon=True).start()


def first_failures(procs: list[Running]) -> list[Running]:
    """The tasks in the order the job's error takes them: those that failed of themselves, first in time first,
    then the rest (stopped because of them, or fine) by index."""
    def key(r: Running) -> tuple[int, float, int]:
        failed_itself = r.exit_code not in (None, 0) and not r.stopped_by_peer
        return (0, r.ended if r.ended is not None else r.started, r.plan.index) if failed_itself \
            else (1, 0.0, r.plan.index)
    return sorted(procs, key=key)


@dataclass
class JobRun:
    job_id: str
    root: Path
    thread: threading.Thread | None = None
    procs: list[Running] = field(default_factory=list)
    deleted: bool = False


class Executor:
    def __init__(self, store: Store, obs: ObsTransfer | None, *, max_processes: int,
                 max_run_seconds: float, phase_seconds: float, gpus: GpuPool | None = None,
                 engines: EnginePythons | None = None, catalog: Catalog | None = None) -> None:
        self.store = store
        self.catalog = catalog  # the flavors of pool jobs (no flavor_detail); None: the built-in catalog
        self.obs = obs
        self.slots = Slots(max_processes)
        self.gpus = gpus or GpuPool([])
        self.engines = engines or EnginePythons()
        self.max_run_seconds = max_run_seconds
        self.phase_seconds = phase_seconds
        self._runs: dict[str, JobRun] = {}
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._recover()

    # --- called by the HTTP layer -------------------------------------------------------------------

    def submit(self, job_id: str) -> None:
        row = self.store.row(job_id)
        run = JobRun(job_id, Path(row.doc["execution"]["root"]))
        run.thread = threading.Thread(target=self._run, args=(run,), name=f"job-{job_id[:8]}", daemon=True)
        with self._lock:
            self._runs[job_id] = run
        run.thread.start()

    def deleted(self, job_id: str, row: JobRow | None) -> None:
        """The job was deleted: its processes are killed and its directories removed."""
        with self._lock:
            run = self._runs.get(job_id)
        if run is not None:
            run.deleted = True  # its thread kills, uploads nothing more and removes the root
        elif row is not None and (row.doc.get("execution") or {}).get("root"):
            shutil.rmtree(row.doc["execution"]["root"], ignore_errors=True)

    def reset(self) -> None:
        """/_emulator/reset: every job is gone, so every process goes with it."""
        with self._lock:
            runs = list(self._runs.values())
        for run in runs:
            run.deleted = True
        for run in runs:
            if run.thread is not None:
                run.thread.join(timeout=KILL_GRACE_S + 2)

    def close(self) -> None:
        """The emulator stops: no process outlives it (a restart marks their jobs, see _recover)."""
        self._closing.set()
        with self._lock:
            runs = list(self._runs.values())
        for run in runs:
            for r in run.procs:
                if r.proc is not None and r.exit_code is None:
                    end_task(r.proc, r.mark, KILL_GRACE_S, KILLED_EXIT_CODE)

    def pids(self, job_id: str) -> list[int]:
        with self._lock:
            run = self._runs.get(job_id)
        return [r.proc.pid for r in run.procs if r.proc is not None] if run else []

    # --- one job ------------------------------------------------------------------------------------

    def _gone_or_stopped(self, run: JobRun) -> bool:
        """Deleted, terminated or auto-stopped (the derived phase says Terminating/Terminated)."""
        if run.deleted or self._closing.is_set():
            return True
        try:
            row = self.store.row(run.job_id)
        except errors.ApiError:
            run.deleted = True
            return True
        return row.phase_at(self.store.now()) in ("Terminating", "Terminated")

    def _run(self, run: JobRun) -> None:
        try:
            self._run_job(run)
        except Exception as exc:  # a bug here must not leave the job Running forever
            import traceback
            traceback.print_exc(file=sys.stderr)
            plans = self._plans(run)
            for plan in plans:
                write_log(plan.log, f"ERROR the local ModelArts failed to run this task: {exc}")
            self.store.finish_run(run.job_id, _lost(plans, "The local ModelArts failed to run this task."),
                                  outcome="abnormal")
        finally:
            with self._lock:
                self._runs.pop(run.job_id, None)
            if run.deleted:
                shutil.rmtree(run.root, ignore_errors=True)

    def _plans(self, run: JobRun) -> list[TaskPlan]:
        try:
            return plan_tasks(self.store.row(run.job_id), run.root)
        except errors.ApiError:
            return []

    def _run_job(self, run: JobRun) -> None:
        row = self.store.row(run.job_id)
        plans = plan_tasks(row, run.root)
        # Creating then Pending for their usual time, as any job.
        ready = row.create_ms + row.creating_ms + int(self.phase_seconds * 1000)
        while self.store.now() < ready:
            if self._gone_or_stopped(run):
                return
            time.sleep(min(POLL_S, max(0.0, (ready - self.store.now()) / 1000)))
        n = len(plans)
        if not self.slots.try_take(n):
            for plan in plans:
                write_log(plan.log, f"queued: {self.slots.used} of the {self.slots.limit} local processes "
                                    f"(--max-processes) are busy; this job waits in Pending for {n}")
            if not self.slots.take(n, lambda: self._gone_or_stopped(run)):
                return
        gpus: list[int] = []
        try:
            got = self._take_gpus(run, row, plans)
            if got is None or self._gone_or_stopped(run):
                return
            gpus = got
            plans = plan_tasks(row, run.root, self._placement(row, gpus, n))
            self.store.start_run(run.job_id)
            self._start_tasks(run, plans, row)
            self._watch(run)
        finally:
            self.gpus.give(gpus)
            self.slots.give(n)
        if run.deleted or self._closing.is_set():
            return
        # the task that failed first in time leads (the service names it), then the ones stopped because of it
        ordered = first_failures(run.procs)
        # the job's own error (its events: "The training job failed: ...") names the task it comes from
        self.store.finish_run(run.job_id, {r.plan.task: {"exit_code": r.exit_code, "message": r.message or (
            f"Training process of {r.plan.task} exited with code {r.exit_code}." if r.exit_code else None)}
            for r in ordered})

    def _take_gpus(self, run: JobRun, row: JobRow, plans: list[TaskPlan]) -> list[int] | None:
        """The job's GPUs (flavor's per node x nodes) when the machine has any; a job waits in Pending while
        too few are free, as the service's scheduler queues it. None: it was stopped while it waited."""
        need = gpus_per_node(row.doc, self.catalog) * len(plans) if self.gpus.total else 0
        got = self.gpus.try_take(need)
        if got is not None:
            return got
        for plan in plans:
            write_log(plan.log, f"queued: this job needs {need} GPUs ({need // len(plans)} per node); "
                                f"{self.gpus.free} of the machine's {self.gpus.total} are free; it waits in Pending")
        return self.gpus.take(need, lambda: self._gone_or_stopped(run))

    def _placement(self, row: JobRow, gpus: list[int], n: int) -> Placement:
        per = len(gpus) // n if n else 0
        engine = (row.doc.get("algorithm") or {}).get("engine") or {}
        return Placement(gpus=tuple(tuple(gpus[i * per:(i + 1) * per]) for i in range(n)),
                         master_port=free_port(),
                         python=self.engines.resolve(engine.get("engine_name"), engine.get("engine_version")).python)

    def _start_tasks(self, run: JobRun, plans: list[TaskPlan], row: JobRow) -> None:
        resource = (row.doc.get("spec") or {}).get("resource") or {}
        # a public flavor's flavor_detail, else (a dedicated pool's job) the flavor the catalog says
        kind = (flavor_of(row.doc, self.catalog) or {}).get("flavor_type") or "CPU"
        for plan in plans:
            write_log(plan.log, f"training job {row.name} ({row.id}): task {plan.task} started on node "
                                f"{plan.index + 1} of {len(plans)}: a local process in {plan.root} "
                                f"(TASK_DIR below)")
            given = plan.env.get("CUDA_VISIBLE_DEVICES", "")
            if str(kind).upper() != "CPU" and not given:
                write_log(plan.log, f"flavor {resource.get('flavor_id')} has {kind} accelerators; this local "
                                    "process has none (MA_NUM_GPUS=0): it runs on the CPU")
            elif given:
                write_log(plan.log, f"GPUs {given} of this machine given to this task (CUDA_VISIBLE_DEVICES)")
            engine = (row.doc.get("algorithm") or {}).get("engine") or {}
            write_log(plan.log, self.engines.resolve(engine.get("engine_name"), engine.get("engine_version")).note)
            for name, value in plan.env.items():
                if name.startswith(("MA_", "VC_")) or name in DISTRIBUTED_ENV:
                    write_log(plan.log, f"env {name}={value}", task_dir=plan.root)
            try:
                self._download(plan)
            except TransferError as err:
                write_log(plan.log, f"ERROR {err}")
                failed = Running(plan, None, time.monotonic(), SETUP_EXIT_CODE,
                                 f"The code or an input could not be downloaded: {err}")
                with self._lock:
                    run.procs.append(failed)
                self._end_task(run, failed)
                continue
            write_log(plan.log, "running: python " + " ".join(_shown_arg(a) for a in plan.argv[1:]),
                      task_dir=plan.root)
            mark = new_mark(run.job_id, plan.task)  # inherited by everything it starts, setsid or not
            with plan.log.open("ab") as log:
                proc = subprocess.Popen(list(plan.argv), cwd=plan.working_dir, env={**plan.env, MARK_VAR: mark},
                                        stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                        start_new_session=True)  # its own process group: killed whole
            running = Running(plan, proc, time.monotonic(), mark)
            running.wait_in_background()
            with self._lock:
                run.procs.append(running)

    def _download(self, plan: TaskPlan) -> None:
        if self.obs is None:
            raise TransferError("no local OBS to download from (start the emulator with --obs-endpoint)")
        plan.working_dir.mkdir(parents=True, exist_ok=True)
        files = self.obs.download_dir(plan.code_obs, plan.code_dir)
        write_log(plan.log, f"downloaded {plan.code_obs} ({files} files) to {plan.code_dir}", task_dir=plan.root)
        if not plan.boot_file.is_file():
            raise TransferError(f"the boot file {plan.boot_file.name} is not in {plan.code_obs}")
        for ch in plan.inputs:
            files = self.obs.download_dir(ch.obs_url, ch.local_dir)
            write_log(plan.log, f"input {ch.name}: downloaded {ch.obs_url} ({files} files) to {ch.local_dir}", task_dir=plan.root)
        for ch in plan.outputs:
            ch.local_dir.mkdir(parents=True, exist_ok=True)

    def _watch(self, run: JobRun) -> None:
        """Until every process ended: upload each one's outputs as it ends, kill them all on a
        terminate, a delete or the run-time limit."""
        while any(r.exit_code is None for r in run.procs):
            stopped = self._gone_or_stopped(run)
            # a rank that failed fails the job: its peers would wait for it forever, so they are stopped
            failed = next((r for r in first_failures(run.procs)
                           if r.exit_code not in (None, 0) and not r.stopped_by_peer), None)
            for r in run.procs:
                if r.exit_code is not None or r.proc is None:
                    continue
                code = r.proc.poll()
                over = time.monotonic() - r.started > self.max_run_seconds
                if code is None and (stopped or over or failed is not None):
                    why = ("SIGTERM received: the training job is being terminated" if stopped else
                           f"the task ran longer than the local run-time limit of {self.max_run_seconds:g} s "
                           "(--max-run-seconds): killed" if over else
                           f"SIGTERM: task {failed.plan.task if failed else ''} failed, so the job's other tasks "
                           "are stopped")
                    write_log(r.plan.log, why)
                    end_task(r.proc, r.mark, KILL_GRACE_S, KILLED_EXIT_CODE)
                    r.message = ("The training job was terminated." if stopped else
                                 f"Killed after the local run-time limit of {self.max_run_seconds:g} s "
                                 "(--max-run-seconds)." if over else
                                 f"Stopped because task {failed.plan.task if failed else ''} failed.")
                    r.stopped_by_peer = not stopped and not over
                    code = KILLED_EXIT_CODE
                elif code is not None:  # it ended of itself: what it started (setsid included) goes with it
                    end_task(r.proc, r.mark, KILL_GRACE_S, KILLED_EXIT_CODE)
                if code is not None:
                    if r.ended is None:  # the waiter thread has not stamped it yet
                        r.ended = time.monotonic()
                    r.exit_code = code if code >= 0 else 128 - code  # killed by a signal: 128 + signal
                    self._end_task(run, r)
            time.sleep(POLL_S)

    def _end_task(self, run: JobRun, r: Running) -> None:
        if not run.deleted and self.obs is not None:
            for ch in r.plan.outputs:
                try:
                    files = self.obs.upload_dir(ch.local_dir, ch.obs_url)
                    write_log(r.plan.log, f"output {ch.name}: uploaded {files} files from {ch.local_dir} "
                                          f"to {ch.obs_url}", task_dir=r.plan.root)
                except TransferError as err:
                    write_log(r.plan.log, f"ERROR output {ch.name}: {err}")
        code = r.exit_code or 0
        if code == 0:
            write_log(r.plan.log, f"task {r.plan.task} exited with code 0")
        else:
            message = r.message or f"Training process of {r.plan.task} exited with code {code}."
            with r.plan.log.open("a", encoding="utf-8") as f:  # the same last line as generated logs
                f.write(f"{_stamp()} ERROR exit code {code}: {message}\n")

    # --- restart ------------------------------------------------------------------------------------

    def _recover(self) -> None:
        """Jobs the last emulator left behind: a queued one runs now; one whose processes it was
        running (they died with it) ends Abnormal, saying so."""
        for row in self.store.all_rows():
            root = (row.doc.get("execution") or {}).get("root")
            if not root or row.terminate_ms is not None or row.outcome != "hang":
                continue
            if row.pending_ms == QUEUED_PENDING_MS:
                if not ((row.doc.get("algorithm") or {}).get("policies") or {}).get("auto_search"):
                    self.submit(row.id)  # a queued search is the search runner's (auto_search/runner.py)
                continue
            plans = plan_tasks(row, Path(root))
            for plan in plans:
                write_log(plan.log, "ERROR the local ModelArts stopped while this task ran")
            self.store.finish_run(row.id, _lost(plans, "The local ModelArts stopped while this task ran."),
                                  outcome="abnormal")


DISTRIBUTED_ENV = ("MASTER_ADDR", "MASTER_PORT", "RANK", "WORLD_SIZE", "LOCAL_RANK", "CUDA_VISIBLE_DEVICES")


def free_port() -> int:
    """A free local TCP port for a job's rendezvous (the first task listens on it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _shown_arg(arg: str) -> str:
    """``--api_token=abc`` -> ``--api_token=******`` in the log (the process gets the value)."""
    name, eq, _ = arg.partition("=")
    return f"{name}={MASK}" if eq and arg.startswith("--") and secret_looking(name[2:]) else arg


def _lost(plans: list[TaskPlan], message: str) -> dict[str, dict[str, Any]]:
    return {p.task: {"exit_code": -1, "message": message} for p in plans}




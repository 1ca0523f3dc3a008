"""Auto-search jobs in execution mode (``--execute``): the user's script runs once per trial.

Per job, one thread. After the job's usual Creating/Pending time it asks an Optuna study (samplers.py)
for trials, at most ``max_concurrent`` at once (each also takes one of the emulator's
``--max-processes`` slots) and ``num_samples`` in all. Each trial is a task-like local process in its own
directory (``<job root>/trials/<trial_id>/``, planned by execution/plan.py as one node of the job) started
with the job's fixed parameters plus the trial's as ``--name=value``; a space of discrete values has no point
run twice before every point has run (samplers.DistinctAsk). Its log is read as it grows: every
line matching the objective's regex is one report (training_iteration), with the other metrics' last
values; its lines are copied into the job's own log prefixed ``(trial <id>)``. A trial ends TERMINATED and
done when its process exits 0 having reported, ERROR otherwise (the study is told its last reward, or that
it failed); its output channels are uploaded to `<the job's output URL>/<trial id>/` when it ends. An early
stop (the API records it in the job document) kills that trial's process group; a
terminate, a delete or the run-time limit kills them all. The job ends Completed when all trials ended and
at least one reported, else Failed.
"""

from __future__ import annotations

import dataclasses
import shutil
import subprocess
import sys
import threading
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import os
import signal
import optuna
from optuna.trial import TrialState

from .. import errors
from ..execution.obs_transfer import TransferError
from ..execution.plan import Channel, TaskPlan, plan_tasks, task_log
from ..execution.runner import KILL_GRACE_S, KILLED_EXIT_CODE, Executor, write_log
from ..jobs.models import QUEUED_PENDING_MS, Store
from .samplers import DistinctAsk, distribution, sampler_for
from .space import Param, Search
from .trials import ERROR, RUNNING, TERMINATED, Report, Trial, trial_id

POLL_S = 0.1


@dataclass
class Live:
    trial: Trial
    plan: TaskPlan
    proc: subprocess.Popen[bytes] | None
    study_trial: optuna.trial.Trial
    started: float
    copied: int = 0     # bytes of its log already read (and copied into the job's log)
    stop_reason: str = ""
    latest: dict[str, float] = field(default_factory=dict)  # the other metrics' last values


class SearchRunner:
    def __init__(self, store: Store, executor: Executor) -> None:
        self.store = store
        self.executor = executor
        self._threads: dict[str, threading.Thread] = {}
        self._live: dict[str, dict[str, Live]] = {}
        self._lock = threading.Lock()
        self._closing = threading.Event()

    def submit(self, job_id: str) -> None:
        thread = threading.Thread(target=self._run, args=(job_id,), name=f"search-{job_id[:8]}", daemon=True)
        with self._lock:
            self._threads[job_id] = thread
            self._live[job_id] = {}
        thread.start()

    def recover(self) -> None:
        """Searches the last emulator left queued (not started yet) start now; a search whose trials were
        running when it stopped ends Abnormal like any job (Executor._recover), its running trials ERROR."""
        for row in self.store.all_rows():
            if not row.doc.get("execution") or Search.of(row.doc.get("algorithm")) is None:
                continue
            if row.terminate_ms is None and row.outcome == "hang" and row.pending_ms == QUEUED_PENDING_MS:
                self.submit(row.id)
                continue
            trials = [Trial.from_doc(d) for d in (row.doc.get("auto_search") or {}).get("trials") or []]
            lost = [t for t in trials if t.status == RUNNING]
            if not lost:
                continue
            now = self.store.now()
            for t in lost:
                t.status, t.end_ms = ERROR, now
                log = Path(row.doc["execution"]["root"]) / "trials" / t.trial_id / "logs" / "worker-0.log"
                write_log(log, "ERROR the local ModelArts stopped while this trial ran")
            self._save(row.id, trials)

    def close(self) -> None:
        self._closing.set()
        with self._lock:
            lives = [lv for jobs in self._live.values() for lv in jobs.values()]
        for lv in lives:
            if lv.proc is not None and lv.proc.poll() is None:
                _kill_group(lv.proc)

    def join(self, timeout: float = 10.0) -> None:
        with self._lock:
            threads = list(self._threads.values())
        for t in threads:
            t.join(timeout)

    # --- one search ---------------------------------------------------------------------------------

    def _state(self, job_id: str) -> tuple[str, dict[str, Any]] | None:
        """('run'|'stop', early stops) or None when the job is gone (deleted, reset)."""
        try:
            row = self.store.row(job_id)
        except errors.ApiError:
            return None
        stopped = row.phase_at(self.store.now()) in ("Terminating", "Terminated")
        return ("stop" if stopped else "run"), (row.doc.get("auto_search") or {}).get("early_stops") or {}

    def _run(self, job_id: str) -> None:
        root: Path | None = None
        try:
            row = self.store.row(job_id)
            root = Path(row.doc["execution"]["root"])
            self._search(job_id, root)
        except Exception as exc:  # a bug here must not leave the job Running forever
            traceback.print_exc(file=sys.stderr)
            if root is not None:
                write_log(task_log(root, "worker-0"), f"ERROR the local ModelArts failed to run this search: {exc}")
            self.store.finish_run(job_id, {"worker-0": {"exit_code": -1, "message":
                                                        "The local ModelArts failed to run this search."}},
                                  outcome="abnormal")
        finally:
            with self._lock:
                self._threads.pop(job_id, None)
                self._live.pop(job_id, None)

    def _search(self, job_id: str, root: Path) -> None:
        row = self.store.row(job_id)
        search = Search.of(row.doc.get("algorithm"))
        assert search is not None
        job_log = task_log(root, "worker-0")
        ready = row.create_ms + row.creating_ms + int(self.executor.phase_seconds * 1000)
        while self.store.now() < ready:
            state = self._state(job_id)
            if self._closing.is_set():
                return
            if state is None or state[0] == "stop":
                return self._gone(job_id, root, state)
            time.sleep(POLL_S)
        self.store.start_run(job_id)
        sampler, how = sampler_for(search)
        study = optuna.create_study(direction="maximize" if search.reward.mode == "max" else "minimize",
                                    sampler=sampler)
        asker = DistinctAsk(search, {p.name: distribution(p) for p in search.params})
        concurrent = max(1, min(search.max_concurrent, search.num_samples))
        write_log(job_log, f"auto search of training job {row.name} ({row.id}): {search.num_samples} trials of "
                           f"{search.algorithm}, at most {concurrent} at once; the next trials are picked by {how}; "
                           f"objective {search.reward.name} ({search.reward.mode}) read with the regex "
                           f"{search.reward.regex!r}")
        live: dict[str, Live] = self._live[job_id]
        trials: list[Trial] = []
        started = 0
        while True:
            if self._closing.is_set():  # the emulator stops: close() killed the trials; the restart reports them
                return
            state = self._state(job_id)
            if state is None:
                return self._gone(job_id, root, None, live)
            stop, early = state[0] == "stop", state[1]
            while (not stop and not self._closing.is_set() and len(live) < concurrent and started < search.num_samples
                   and self.executor.slots.try_take(1)):
                lv = self._start(row, search, study, asker, root, started, job_log)
                started += 1
                trials.append(lv.trial)
                live[lv.trial.trial_id] = lv
                if lv.proc is None:  # its code could not be downloaded: it ended already
                    lv.trial.end_ms = self.store.now()
                    self._end(search, study, lv, job_log)
                    del live[lv.trial.trial_id]
            for tid, lv in list(live.items()):
                self._read(search, lv, job_log)
                code = lv.proc.poll() if lv.proc is not None else -1
                over = time.monotonic() - lv.started > self.executor.max_run_seconds
                if code is None and (stop or tid in early or over):
                    lv.stop_reason = ("early" if tid in early and not stop else "terminate" if stop else "limit")
                    write_log(lv.plan.log, {"early": "early stop requested (autosearch-trial-earlystop): killed",
                                            "terminate": "SIGTERM received: the training job is being terminated",
                                            "limit": "the trial ran longer than the local run-time limit of "
                                                     f"{self.executor.max_run_seconds:g} s (--max-run-seconds): "
                                                     "killed"}[lv.stop_reason])
                    code = _kill_group(lv.proc) if lv.proc is not None else KILLED_EXIT_CODE
                if code is not None:
                    self._read(search, lv, job_log, final=True)
                    self._upload(job_id, lv)
                    lv.trial.end_ms = self.store.now()
                    self._finish_trial(search, study, lv, code)
                    self._end(search, study, lv, job_log)
                    del live[tid]
            self._save(job_id, trials)
            if not live and (stop or started >= search.num_samples):
                break
            time.sleep(POLL_S)
        ok = [t for t in trials if t.reward(search) is not None and t.status == TERMINATED]
        best = None
        for t in ok:
            value = t.reward(search)
            if best is None or search.reward.better(value, best.reward(search)):  # type: ignore[arg-type]
                best = t
        if best is not None:
            write_log(job_log, f"auto search ended: best trial {best.trial_id} {search.reward.name}="
                               f"{best.reward(search)!r} with {_argv(search.params, best.config)}")
        else:
            write_log(job_log, "auto search ended: no trial reported "
                               f"{search.reward.name} (regex {search.reward.regex!r})")
        self.store.finish_run(job_id, {"worker-0": {
            "exit_code": 0 if ok else 1,
            "message": None if ok else f"Every trial failed or none reported {search.reward.name}."}})

    def _gone(self, job_id: str, root: Path, state: Any, live: dict[str, Live] | None = None) -> None:
        for lv in (live or {}).values():
            if lv.proc is not None and lv.proc.poll() is None:
                _kill_group(lv.proc)
            self.executor.slots.give(1)
        if state is None:  # deleted: its directories go with it
            shutil.rmtree(root, ignore_errors=True)

    def _start(self, row: Any, search: Search, study: optuna.Study, asker: DistinctAsk, root: Path,
               index: int, job_log: Path) -> Live:
        asked, said = asker.ask(study)  # no repeated point of a discrete space before every point has run
        if said:
            write_log(job_log, said)
        config = {p.name: asked.params[p.name] for p in search.params}
        tid = trial_id(row.id, index)
        fixed = [q for q in (row.doc["algorithm"].get("parameters") or [])
                 if q.get("name") not in config]
        alg = {**row.doc["algorithm"], "parameters": fixed + [{"name": k, "value": Param.text(v)}
                                                             for k, v in config.items()]}
        one = dataclasses.replace(row, node_count=1, doc={**row.doc, "algorithm": alg})
        plan = plan_tasks(one, root / "trials" / tid)[0]
        plan = dataclasses.replace(plan, env={**plan.env, "MA_TRIAL_ID": tid}, outputs=trial_outputs(plan.outputs, tid))
        trial = Trial(index, tid, config, RUNNING, start_ms=self.store.now())
        write_log(plan.log, f"trial {tid} (#{index}) of training job {row.name}: {_argv(search.params, config)}")
        write_log(job_log, f"trial {tid} (#{index}) started: {_argv(search.params, config)}")
        try:
            self.executor._download(plan)  # the code and inputs, as for any task
        except TransferError as err:
            write_log(plan.log, f"ERROR {err}")
            trial.status = ERROR
            return Live(trial, plan, None, asked, time.monotonic(), stop_reason="setup")
        write_log(plan.log, "running: python " + " ".join(plan.argv[1:]), task_dir=plan.root)
        with plan.log.open("ab") as log:
            proc = subprocess.Popen(list(plan.argv), cwd=plan.working_dir, env=plan.env, stdin=subprocess.DEVNULL,
                                    stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        trial.pid = proc.pid
        return Live(trial, plan, proc, asked, time.monotonic())

    def _read(self, search: Search, lv: Live, job_log: Path, final: bool = False) -> None:
        """The trial's new complete log lines (all of it once it ended): each line where the objective's
        regex matches is one report, with the other metrics' latest values (that line's included); the
        lines are copied into the job's log."""
        try:
            with lv.plan.log.open("rb") as f:
                f.seek(lv.copied)
                new = f.read()
        except FileNotFoundError:
            return
        cut = len(new) if final else new.rfind(b"\n") + 1
        if not cut:
            return
        lv.copied += cut
        lines = new[:cut].decode("utf-8", errors="replace").splitlines()
        with job_log.open("a", encoding="utf-8") as f:
            f.writelines(f"(trial {lv.trial.trial_id}) {line}\n" for line in lines)
        elapsed = round(time.monotonic() - lv.started, 3)
        for line in lines:
            for other in search.metrics[1:]:
                value = other.read(line)
                if value is not None:
                    lv.latest[other.name] = value
            reward = search.reward.read(line)
            if reward is not None:
                lv.trial.reports.append(Report(elapsed, {search.reward.name: reward, **lv.latest}))

    def _upload(self, job_id: str, lv: Live) -> None:
        """The trial's output channels to its own folders in OBS (trial_outputs), as a task's are when it
        ends, also when it failed; not when the job was deleted meanwhile."""
        obs = self.executor.obs
        if obs is None or self._state(job_id) is None:
            return
        for ch in lv.plan.outputs:
            try:
                files = obs.upload_dir(ch.local_dir, ch.obs_url)
                write_log(lv.plan.log, f"output {ch.name}: uploaded {files} files from {ch.local_dir} to {ch.obs_url}",
                          task_dir=lv.plan.root)
            except TransferError as err:
                write_log(lv.plan.log, f"ERROR output {ch.name}: {err}")

    def _finish_trial(self, search: Search, study: optuna.Study, lv: Live, code: int) -> None:
        t = lv.trial
        reward = t.reward(search)
        if lv.stop_reason == "early":
            t.status, t.early_stopped = TERMINATED, True
        elif lv.stop_reason == "terminate":
            t.status = TERMINATED
        elif code == 0 and reward is not None:
            t.status, t.done = TERMINATED, True
        else:
            t.status = ERROR
            why = (f"exit code {code}" if code != 0 else
                   f"no line of its log matched the regex {search.reward.regex!r} of {search.reward.name}")
            write_log(lv.plan.log, f"ERROR trial {t.trial_id} failed: {why}")

    def _end(self, search: Search, study: optuna.Study, lv: Live, job_log: Path) -> None:
        t = lv.trial
        reward = t.reward(search)
        if t.status == TERMINATED and reward is not None:
            study.tell(lv.study_trial, reward)
        else:
            study.tell(lv.study_trial, state=TrialState.PRUNED if t.early_stopped else TrialState.FAIL)
        self.executor.slots.give(1)
        how = "early stopped" if t.early_stopped else "done" if t.done else t.status
        write_log(job_log, f"trial {t.trial_id} ended ({how}): {search.reward.name}="
                           f"{'' if reward is None else repr(reward)}")

    def _save(self, job_id: str, trials: list[Trial]) -> None:
        docs = [t.to_doc() for t in trials]
        try:
            self.store.update_doc(job_id, lambda doc: doc.setdefault("auto_search", {}).__setitem__("trials", docs))
        except errors.ApiError:
            pass  # deleted meanwhile: the next loop sees it


def trial_outputs(outputs: tuple[Channel, ...], tid: str) -> tuple[Channel, ...]:
    """Each output channel of a trial in a folder of its own: `<the job's obs_url>/<trial id>/`, so trials
    never write over each other and the best one's model can be fetched (the provider derives the same path:
    modelarts_provider/awaiting/searches.py, trial_output_path)."""
    return tuple(dataclasses.replace(ch, obs_url=ch.obs_url.rstrip("/") + f"/{tid}/") for ch in outputs)


def _argv(params: tuple[Param, ...], config: dict[str, Any]) -> str:
    return " ".join(f"--{p.name}={Param.text(config[p.name])}" for p in params if p.name in config)


def _kill_group(proc: subprocess.Popen[bytes]) -> int:
    """A trial's process group: SIGTERM, SIGKILL after a grace period; the exit code."""
    for sig, wait in ((signal.SIGTERM, KILL_GRACE_S), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            return proc.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            continue
    return KILLED_EXIT_CODE

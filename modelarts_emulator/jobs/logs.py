"""Task logs: each task's log derives from its job row and the clock, like the job's phases.

Nothing is stored. A task's log starts when the job starts Running and every line carries the moment
it was written (a fixed offset from the stored timestamps), so the log grows while the job runs, is
the same after a restart, and ends with the task's exit: ``exited with code 0`` when it completed,
else an ``ERROR exit code N: <reason>`` line carrying the same code and message as the job's
``status.task_statuses``. A completed job of an algorithm from management (``algorithm.id``) prints
``validation: val_accuracy=A val_loss=L`` before its exit, A a known function of its parameters
(known_accuracy), so a sweep's best point is known. Environment values of secret-looking names are masked, as a careful
platform would print them.

``GET /v2/{project_id}/training-jobs/{job}/tasks/{task}/logs/preview`` answers
``{"content", "current_size", "full_size"}`` (SDK ShowTrainingJobLogsPreviewResponse): the log so far
(its last 5 MB at most, cut at a line start), that text's size and the whole log's size in bytes.
"""

from __future__ import annotations

import hashlib
import math
import re
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from .. import errors
from .models import JobRow

PREVIEW_MAX_BYTES = 5 * 1024 * 1024  # "current_size ... at most 5 MB" (SDK response docs)
DEFAULT_EPOCHS = 10
MAX_EPOCHS = 1000
HANG_EPOCH_MS = 1000  # a hanging job has no run time to spread its epochs over
HANG_HEARTBEAT_MS = 5000
HANG_MAX_HEARTBEATS = 10_000  # bounds the log of a job hanging for days (~0.6 MB)
MASK = "******"
# Whole-word parts that make a name secret-looking; AK/SK only as a part (TASK is not a secret).
SECRET_PARTS = ("KEY", "SECRET", "TOKEN", "PASSWORD", "PASSWD", "PWD", "CREDENTIAL", "PRIVATE")
SECRET_WORDS = {"AK", "SK"}


class LogPreview(BaseModel):
    """The preview API's response body."""

    content: str
    current_size: int
    full_size: int


def secret_looking(name: str) -> bool:
    """True for names like HW_SECRET_KEY, API_TOKEN, DB_PASSWORD, MY_AK, OBS_SK."""
    upper = name.upper()
    words = set(re.split(r"[^A-Z0-9]+", upper))
    return bool(words & SECRET_WORDS) or any(part in upper for part in SECRET_PARTS)


def known_task(row: JobRow, task: str, status: dict[str, Any]) -> None:
    """Refuse a task the job (its `status` now) does not have. The real code is not documented; task ids come
    from status.tasks, so an unknown one is an invalid parameter, named as 2788 errors name theirs."""
    if task not in status["tasks"]:
        raise errors.invalid_param(
            "task_id", f"the training job {row.id} has no task {task} (its tasks: {', '.join(status['tasks'])})")


def preview(row: JobRow, task: str, t: int) -> dict[str, Any]:
    """The preview body of ``task`` at time ``t``; an unknown task is a ModelArts.2788."""
    known_task(row, task, row.status_at(t))
    if "execution" in row.doc:
        data, full = _executed_log(row, task)
    else:
        data = task_log(row, task, t).encode()
        full = len(data)
    shown = data
    if len(data) > PREVIEW_MAX_BYTES:
        shown = data[-PREVIEW_MAX_BYTES:]
        shown = shown[shown.find(b"\n") + 1:]  # whole lines only
    return LogPreview(content=shown.decode(), current_size=len(shown), full_size=full).model_dump()


def _executed_log(row: JobRow, task: str) -> tuple[bytes, int]:
    """Execution mode: the end of the real log file as far as the process has written it, and the
    file's size ('' and 0 before it ran)."""
    from ..execution.plan import task_log as log_path

    path = log_path(Path(row.doc["execution"]["root"]), task)
    try:
        with path.open("rb") as f:
            size = f.seek(0, 2)
            f.seek(max(0, size - 2 * PREVIEW_MAX_BYTES))  # only the end is ever shown
            data = f.read()
    except FileNotFoundError:
        return b"", 0
    # Invalid UTF-8 from the script is replaced, so the JSON answer always encodes.
    return data.decode("utf-8", errors="replace").encode(), size


def task_log(row: JobRow, task: str, t: int) -> str:
    """The whole log of ``task`` as written up to ``t`` ('' before the job runs)."""
    return "".join(f"{stamp(at)} {text}\n" for at, text in _lines(row, task, t))


def _lines(row: JobRow, task: str, t: int) -> list[tuple[int, str]]:
    """(written at ms, text) of every line written up to ``t``.

    The run's own schedule (header, epochs, exit) is fixed at creation; a terminate or auto stop only
    cuts it short and adds the kill, so the lines already written never change.
    """
    start = row.create_ms + row.creating_ms + row.pending_ms
    run_end = float("inf") if row.run_ms is None or row.outcome == "hang" else start + row.run_ms
    why, cut, killed = "", None, None  # the process stopped before its own end: terminate, or auto stop
    if row.terminate_ms is not None and row.terminate_ms < run_end:
        cut, killed = row.terminate_ms, row.terminate_ms + row.terminating_ms
        why = "SIGTERM received: the training job is being terminated"
    elif row.auto_stop_ms is not None and start + row.auto_stop_ms < run_end:
        cut = killed = start + row.auto_stop_ms
        why = "auto stop: the training job reached its run time limit"
    if t < start or (cut is not None and cut < start):
        return []  # not running yet, or terminated before it ran: no process, no log
    horizon = min(t, cut) if cut is not None else t
    index = int(task.rsplit("-", 1)[-1]) if task.rsplit("-", 1)[-1].isdigit() else 0
    alg = row.doc.get("algorithm") or {}
    out: list[tuple[int, str]] = [
        (start, f"[ModelArts Service Log] training job {row.name} ({row.id}): task {task} started "
                f"on node {index + 1} of {row.node_count}"),
    ]
    for name, value in _environments(row, task, index).items():
        out.append((start, f"[ModelArts Service Log] env {name}={MASK if secret_looking(name) else value}"))
    params = {str(p.get("name")): str(p.get("value")) for p in alg.get("parameters") or []
              if isinstance(p, dict) and p.get("name")}
    if params:
        shown = " ".join(f"{k}={MASK if secret_looking(k) else v}" for k, v in params.items())
        out.append((start, f"training with parameters: {shown}"))
    epochs = _epochs(params.get("epochs"))
    seed = f"{row.id}/{task}"
    if run_end == float("inf"):  # hang: one epoch a second, then heartbeats for as long as it hangs
        out += [(start + k * HANG_EPOCH_MS, _epoch(seed, k, epochs)) for k in range(1, epochs + 1)]
        beat0 = start + epochs * HANG_EPOCH_MS
        beats = min(HANG_MAX_HEARTBEATS, max(0, (horizon - beat0) // HANG_HEARTBEAT_MS))
        out += [(beat0 + b * HANG_HEARTBEAT_MS, f"waiting for the next batch (step {epochs * 100 + b})")
                for b in range(1, beats + 1)]
    else:
        phase = {"fail": "Failed", "abnormal": "Abnormal"}.get(row.outcome, "Completed")
        status = row._task_status(task, phase)  # the exit code and message the job reports
        # A failing run stops half way through its epochs; a completing one runs them all.
        shown = epochs if phase == "Completed" else max(1, epochs // 2)
        ran = int(run_end) - start
        out += [(start + ran * k // (shown + 1), _epoch(seed, k, epochs)) for k in range(1, shown + 1)]
        if phase == "Completed" and alg.get("id"):
            out.append((int(run_end), validation_line(params)))
        out += _exit_lines(int(run_end), task, phase, status)
    if cut is not None:
        out = [line for line in out if line[0] <= cut]
        out.append((cut, f"[ModelArts Service Log] {why}"))
        out += _exit_lines(killed, task, "Terminated", row._task_status(task, "Terminated"))
    out.sort(key=lambda line: line[0])  # stable: the lines of one moment keep their order
    return [line for line in out if line[0] <= t]


def _exit_lines(at: int, task: str, phase: str, status: dict[str, Any]) -> list[tuple[int, str]]:
    code, message = status["exit_code"], status["message"]
    if code == 0:
        return [(at, "training finished, outputs saved"),
                (at, f"[ModelArts Service Log] task {task} exited with code 0")]
    lines = []
    if phase == "Failed":  # the user's process crashed: its traceback comes first
        lines = [(at, "Traceback (most recent call last):"),
                 (at, '  File "/home/ma-user/modelarts/user-job-dir/train.py", line 42, in <module>'),
                 (at, f"RuntimeError: {message}")]
    return lines + [(at, f"ERROR exit code {code}: {message}")]


def _environments(row: JobRow, task: str, index: int) -> dict[str, str]:
    """What the task's process was given: the platform's variables, then the job's environments."""
    env = {"MA_JOB_NAME": row.name, "MA_TASK_NAME": task, "MA_NUM_HOSTS": str(row.node_count),
           "VC_TASK_INDEX": str(index)}
    sources = [row.doc.get("algorithm") or {}] + [t.get("algorithm") or {} for t in row.doc.get("tasks") or []]
    for alg in sources:
        value = alg.get("environments") or []
        for item in value if isinstance(value, list) else [value]:  # stored as an array of maps
            if isinstance(item, dict):
                env.update({str(k): str(v) for k, v in item.items()})
    return env


def _epochs(value: str | None) -> int:
    try:
        n = int(float(value)) if value is not None else DEFAULT_EPOCHS
    except ValueError:
        n = DEFAULT_EPOCHS
    return min(max(n, 1), MAX_EPOCHS)


def known_accuracy(params: dict[str, str]) -> float:
    """The validation accuracy an algorithm-management job reports: a known function of its parameters
    (best at lr=0.01, batch_size=64), so tests and demos of sweep objectives know the best point."""
    def number(name: str, default: float) -> float:
        try:
            value = float(params.get(name, default))
        except ValueError:
            return default
        return value if value > 0 else default
    lr, batch = number("lr", 0.01), number("batch_size", 64)
    acc = 0.95 - 0.05 * abs(math.log10(lr) + 2) - 0.02 * abs(math.log2(batch / 64))
    return round(min(0.99, max(0.0, acc)), 4)


def validation_line(params: dict[str, str]) -> str:
    acc = known_accuracy(params)
    return f"validation: val_accuracy={acc:.4f} val_loss={(1 - acc) * 2:.4f}"


def _epoch(seed: str, k: int, epochs: int) -> str:
    jitter = int(hashlib.sha256(f"{seed}/{k}".encode()).hexdigest()[:8], 16) / 0xFFFFFFFF * 0.05
    loss = 2.3 * 0.75 ** k + jitter
    acc = min(0.99, max(0.0, 1 - loss / 2.4))
    return f"epoch {k}/{epochs} loss={loss:.4f} accuracy={acc:.4f}"


def stamp(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")

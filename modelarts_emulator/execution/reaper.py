"""Every process a task started, found and ended: the task's process group, plus any process carrying its marker.

On the service a task is a container: when it is stopped (a terminate, a failed peer, the main process ending) every
process in it goes, whatever it did. Locally a task is a process group (``start_new_session``), and a child that
calls ``setsid()`` (a daemon, a data loader started with ``start_new_session=True``) leaves that group, so killing the
group alone lets it outlive the job. So each task's environment carries a marker (``MA_EMULATOR_TASK_MARK``, unique
per task run) that its descendants inherit, and ending a task signals its group and every process whose environment
(``/proc/<pid>/environ``, the environment it was started with) holds that marker.

Why not a cgroup: it would catch everything, but an unprivileged user rarely has a delegated cgroup v2 subtree to
create one in. Limits of the marker, said in docs/local-execution.md: a process started with a cleaned environment
(``env -i``, ``subprocess.Popen(env={})``) does not carry it and escapes; processes of other users are not readable;
without ``/proc`` (macOS) only the process group is ended.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
import uuid
from pathlib import Path

MARK_VAR = "MA_EMULATOR_TASK_MARK"
PROC = Path("/proc")


def new_mark(job_id: str, task: str) -> str:
    """A marker for one run of one task: unique, so ending it never touches another job's (or emulator's) processes."""
    return f"{job_id}/{task}/{uuid.uuid4().hex[:12]}"


def marked_pids(mark: str, proc_root: Path = PROC) -> list[int]:
    """The live processes whose starting environment holds ``MA_EMULATOR_TASK_MARK=<mark>`` (not this one)."""
    needle = f"{MARK_VAR}={mark}".encode()
    found = []
    try:
        entries = list(proc_root.iterdir())
    except OSError:  # no /proc: the process group is all we can end
        return []
    for entry in entries:
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:  # gone meanwhile, or another user's
            continue
        if needle in environ.split(b"\0"):
            found.append(int(entry.name))
    return found


def _signal(pgid: int | None, pids: list[int], sig: signal.Signals) -> None:
    if pgid is not None:
        try:
            os.killpg(pgid, sig)
        except (ProcessLookupError, PermissionError):
            pass
    for pid in pids:
        try:
            os.kill(pid, sig)
        except (ProcessLookupError, PermissionError):
            pass


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
        return True
    except (ProcessLookupError, PermissionError):
        return False


def end_task(proc: subprocess.Popen[bytes] | None, mark: str, grace_s: float, killed_code: int) -> int:
    """SIGTERM to the task's process group and its marked processes, SIGKILL to whatever is left after ``grace_s``;
    the main process's exit code (``killed_code`` when it never said). Also for a task whose main process already
    ended: what it left behind goes, as a container's processes go with it."""
    pgid = proc.pid if proc is not None else None
    for sig, wait in ((signal.SIGTERM, grace_s), (signal.SIGKILL, 5.0)):
        _signal(pgid, marked_pids(mark), sig)
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            if proc is not None and proc.poll() is None:
                time.sleep(0.02)
                continue
            # the main process is gone (reaped): wait only for its leftovers
            if not marked_pids(mark) and (pgid is None or not _group_alive(pgid)):
                return _code(proc, killed_code)
            time.sleep(0.02)
    if proc is not None:
        try:
            return proc.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            pass
    return _code(proc, killed_code)


def _code(proc: subprocess.Popen[bytes] | None, killed_code: int) -> int:
    return proc.returncode if proc is not None and proc.returncode is not None else killed_code

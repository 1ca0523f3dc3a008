"""``python -m modelarts_provider logs``: print, and follow, a training job's task logs through its stack.

    python -m modelarts_provider logs --stack STACK JOB [--task worker-0] [--follow] [--run N | --all] [--cwd DIR]

JOB is a job key of the stack config or a job name. Its id comes from the stack's outputs
(``jobs.<key>.id``) or else from its state (training jobs of either front door: job_id / jobId); the
client is built from the stack's ``modelarts:`` config (``pulumi config --show-secrets``) and the
HW_* / OS_* environment, exactly as the provider resolves it. Without ``--task`` every task's log is
printed (lines prefixed ``[task] `` when there are several). ``--follow`` prints only new lines until
the job ends; it reads the key's job from the state first (written after each step of an `up`), and when the
job ends or is deleted while the stack replaces it (its key points at a new job in the state), it says so in
one line and follows the new one. ``--run N`` prints the Nth recorded run of the key (the run history,
docs/run-history.md), ``--all`` every recorded run's log, oldest first, each after a ``=== KEY run N ===``
line. The log goes to stdout; notes and errors go to stderr, one line each. No credential is
ever printed: lines pass through ``logs.safe_line`` (the one masking step: the stack's config secrets,
read the way the program reads them, the client's credentials, and secret-looking values by shape) and
errors name keys, never values.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, TextIO


from pydantic import BaseModel, Field

from ..client.models import TaskLogPreview
from ..core.job_logs import client_secrets, one_line_error, safe_line
from ..wait_engine import REAL, Clock, Condition, Done, Failed, wait
from .stack_reader import (JobRef, LogsError, PulumiCli, find_job, prefetch_config, stack_config, stack_settings,
                           state_job, successor)

__all__ = ["register", "run", "find_job", "stack_settings", "LogFollower", "LogsError"]

WAITING_PHASES = frozenset({"Creating", "Pending"})  # no process yet, so no log
# How long --follow waits, after its job was deleted, for the key to point at a job replacing it.
REPLACEMENT_WAIT_S = 120.0


# --- printing ------------------------------------------------------------------------------------------

@dataclass
class _TaskState:
    offset: int = 0  # bytes of the whole log already taken in
    partial: bytes = b""  # an unfinished last line, held back until it ends


class LogFollower:
    """Prints each task's log once: what a preview adds beyond what was printed, whole lines only.

    The preview is the newest ``current_size`` bytes of a ``full_size``-byte log, so the bytes already
    seen are known even when the log outgrows the preview (the gap is reported, not guessed).
    """

    def __init__(self, tasks: list[str], secrets: list[str], out: TextIO, note: Callable[[str], None]) -> None:
        self.prefix = len(tasks) > 1
        self.secrets = secrets
        self.out = out
        self.note = note
        self.state = {task: _TaskState() for task in tasks}
        self.printed = 0

    def feed(self, task: str, preview: Any, *, final: bool) -> None:
        data = preview.text.encode()
        _, full = preview.sizes
        full = len(data) if full is None or full < len(data) else full
        begin = full - len(data)  # where this preview starts in the whole log
        st = self.state.setdefault(task, _TaskState())
        if full < st.offset:  # the log got shorter: a new log; start over
            st.offset, st.partial = begin, b""
        if st.offset < begin:
            self.note(f"{task}: {begin - st.offset} bytes of log not shown (older than the preview)")
            st.offset, st.partial = begin, b""
        buf = st.partial + data[st.offset - begin:]
        st.offset = full
        if final:
            done, st.partial = buf, b""
        else:
            cut = buf.rfind(b"\n") + 1
            done, st.partial = buf[:cut], buf[cut:]
        for line in done.decode(errors="replace").splitlines():
            self.out.write((f"[{task}] " if self.prefix else "") + safe_line(line, self.secrets) + "\n")
            self.printed += 1
        self.out.flush()


def _note(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


class FollowView(BaseModel):
    """One read of a followed job: its phase (None once it is deleted) and each task's log preview (none while
    it has no process yet). Recorded as the answers of a follow (scripts/record_waits.py)."""

    phase: str | None
    previews: dict[str, TaskLogPreview] = Field(default_factory=dict)


def follow_job(client: Any, ref: JobRef, job: Any, tasks: list[str], follower: LogFollower, note: Callable[[str], None],
               secrets: list[str], *, follow: bool, interval: float, clock: Clock = REAL) -> str | None:
    """Print the job's logs, as they grow with `follow`, until it ends: a condition on the wait engine, read
    every `interval` with no deadline (a log is followed as long as its job runs; Ctrl-C ends the command).
    Returns the phase it ended in (without `follow`: the phase now), or None once it is deleted. `job` is the
    job as just read: the first round uses it rather than asking again."""
    from ..client.models import TERMINAL_PHASES

    seen = {"job": job, "reads": 0}  # the job as last read (a transient error keeps it a round); reads so far
    waiting_noted: set[tuple[str, str]] = set()

    def read() -> FollowView:
        now = seen["job"] if seen["reads"] == 0 else _poll(client, ref, seen["job"], note, secrets)
        seen["reads"] += 1
        if now is None:
            return FollowView(phase=None)
        seen["job"] = now
        phase = now.phase or "unknown"
        if phase in WAITING_PHASES:  # no process yet: nothing to fetch
            return FollowView(phase=phase)
        return FollowView(phase=phase, previews={task: client.get_task_log_preview(ref.id, task) for task in tasks})

    def show(view: FollowView) -> None:
        if view.phase is None:
            return
        ended = view.phase in TERMINAL_PHASES
        for task in tasks:
            if view.phase in WAITING_PHASES:
                if (task, view.phase) not in waiting_noted:
                    waiting_noted.add((task, view.phase))
                    note(f"{task}: job is {view.phase}, "
                         + ("waiting for the log..." if follow else "no log yet (--follow waits for it)"))
            elif task in view.previews:
                follower.feed(task, view.previews[task], final=ended or not follow)

    def judge(view: FollowView) -> Done[str | None] | None:
        ended = view.phase is None or view.phase in TERMINAL_PHASES
        return Done(view.phase) if ended or not follow else None

    return wait(Condition("log follow", read, judge, too_late=lambda _view: Failed(""), answer=FollowView,
                          progress=show), timeout_s=math.inf, poll_s=interval, clock=clock)


def run(args: argparse.Namespace, *, out: TextIO = sys.stdout, note: Callable[[str], None] = _note) -> int:
    from ..client import ModelArtsClient, ModelArtsError
    from ..client.models import task_ids

    pulumi = PulumiCli(Path(args.cwd).resolve(), args.stack)
    prefetch_config(pulumi)  # the client's credentials: decrypted while the job is looked up
    if getattr(args, "all", False):
        return _all_runs(args, pulumi, out, note)
    ref = _ref(args, pulumi)
    raw, config_secrets = stack_config(pulumi, note)
    with ModelArtsClient(stack_settings(pulumi, dict(os.environ), raw)) as client:
        secrets = client_secrets(client) + config_secrets
        try:
            job = client.get_job_summary(ref.id)
            while True:
                if job is None:
                    raise LogsError(f"training job {ref.label} ({ref.id}) does not exist any more")
                tasks = [args.task] if args.task else task_ids(job)
                follower = LogFollower(tasks, secrets, out, note)
                ended = follow_job(client, ref, job, tasks, follower, note, secrets, follow=args.follow,
                                   interval=args.interval)
                if not args.follow:
                    return 0
                if ended is not None:
                    # Any end: a Completed run being replaced (create first) ends before its successor, and a
                    # replacement that creates first terminates its predecessor (the key already points at it).
                    picked = getattr(args, "run", None) is not None  # a recorded run: that one only
                    after = successor(pulumi, ref, 0, args.interval) if ref.key and not picked else None
                    if after is None:
                        note(f"{ref.label}: job ended {ended}")
                        return 0
                else:
                    # Deleted: a replacement that stops the old job first records the new one after.
                    note(f"{ref.label}: job deleted; waiting up to {REPLACEMENT_WAIT_S:g}s for a job replacing it")
                    after = successor(pulumi, ref, REPLACEMENT_WAIT_S, args.interval) if ref.key else None
                    if after is None:
                        raise LogsError(f"training job {ref.label} ({ref.id}) was deleted")
                note(f"{ref.label}: replaced by {after.label} ({after.id}); following it")
                ref = after
                job = client.get_job_summary(ref.id)
        except ModelArtsError as err:
            raise LogsError(one_line_error(err, secrets)) from None


def _ref(args: argparse.Namespace, pulumi: PulumiCli) -> JobRef:
    """The job to print: run N of the key's history (--run), else the one the key points at. --follow reads
    the state first: an `up` writes it after each step, its outputs only at the end, so during a
    replacement the state already points at the new run while the outputs still name the old one."""
    if getattr(args, "run", None) is not None:
        from .results import job_runs  # noqa: PLC0415 - the run history's models only for --run

        runs = job_runs(pulumi, args.job)
        if not 1 <= args.run <= len(runs):
            raise LogsError(f"{args.job} has {len(runs)} recorded run{'s' if len(runs) != 1 else ''}: --run takes 1 "
                            f"to {len(runs)} (`results {args.job} --history` lists them)")
        record = runs[args.run - 1]
        if not isinstance(record.get("jobId"), str):
            raise LogsError(f"{args.job} run {args.run} recorded no job id")
        return JobRef(record["jobId"], f"{args.job} run {args.run} ({record.get('name') or record['jobId']})")
    return (state_job(pulumi, args.job) if args.follow else None) or find_job(pulumi, args.job)


def _all_runs(args: argparse.Namespace, pulumi: PulumiCli, out: TextIO, note: Callable[[str], None]) -> int:
    """--all: every recorded run's log, oldest first, each after a header line; a run the service no longer
    holds (deleted beyond keepRuns, or before runs were kept) is named with where its logs were exported."""
    from ..client import ModelArtsClient, ModelArtsError
    from ..client.models import task_ids
    from .results import job_runs  # noqa: PLC0415

    runs = job_runs(pulumi, args.job)
    raw, config_secrets = stack_config(pulumi, note)
    with ModelArtsClient(stack_settings(pulumi, dict(os.environ), raw)) as client:
        secrets = client_secrets(client) + config_secrets
        for i, record in enumerate(runs, start=1):
            job_id = str(record.get("jobId") or "")
            label = f"{args.job} run {i} ({record.get('name') or job_id}, {record.get('phase') or '?'})"
            out.write(safe_line(f"=== {label} ===", secrets) + "\n")
            try:
                job = client.get_job_summary(job_id) if job_id else None
                if job is None:
                    note(f"{label}: not in the service any more (its outputs: {record.get('outputPath') or '-'})")
                    continue
                tasks = [args.task] if args.task else task_ids(job)
                follower = LogFollower(tasks, secrets, out, note)
                for task in tasks:
                    follower.feed(task, client.get_task_log_preview(job_id, task), final=True)
            except ModelArtsError as err:
                note(f"{label}: {one_line_error(err, secrets)}")
    return 0


def _poll(client: Any, ref: JobRef, last: Any, note: Callable[[str], None], secrets: list[str]) -> Any:
    """The job again, or None once it is deleted; a transient error (throttling, 5xx, network) keeps the
    last one for a round."""
    from ..client import ModelArtsError

    try:
        job = client.get_job_summary(ref.id)
    except ModelArtsError as err:
        if not err.retryable:
            raise
        note(f"{ref.label}: {one_line_error(err, secrets)}; retrying")
        return last
    return job  # None: deleted


# --- command line --------------------------------------------------------------------------------------

def _interval(text: str) -> float:
    value = float(text)
    if not 0 < value <= 300:
        raise argparse.ArgumentTypeError("must be more than 0 and at most 300 seconds")
    return value


def register(subparsers: Any) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "logs", help="print (and follow) a training job's task logs",
        description="Print a training job's task logs; the job is found through a stack's outputs or state.")
    p.add_argument("job", metavar="JOB", help="job key (stack config) or job name")
    p.add_argument("--stack", required=True, help="Pulumi stack whose job it is (e.g. local)")
    p.add_argument("--task", help="task id, e.g. worker-0 (default: every task of the job)")
    p.add_argument("--follow", "-f", action="store_true", help="print new lines until the job ends (during a "
                                                                   "replacement: the new run)")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--run", type=int, metavar="N", help="the Nth recorded run of the key, 1 = the first "
                                                             "(`results KEY --history` numbers them)")
    which.add_argument("--all", action="store_true", help="every recorded run's log, oldest first")
    p.add_argument("--cwd", default=".", help="the Pulumi project directory (default: .)")
    p.add_argument("--interval", type=_interval, default=2.0, help="seconds between polls with --follow")
    p.set_defaults(handler=main_logs)
    return p


def main_logs(args: argparse.Namespace) -> int:
    try:
        return run(args)
    except LogsError as err:
        _note(f"logs: {err}")
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `... | head`: the reader has all it wanted
        sys.stderr.close()
        return 0

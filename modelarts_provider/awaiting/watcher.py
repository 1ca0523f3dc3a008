"""Watch many jobs inside one provider call until each reached its target, failed, or ran out of time.

One call waits for all: the dynamic provider serves 4 calls at once and the engine 8 steps, so a wait
per job would run jobs in waves. Each job keeps its own target, poll interval and deadline (counted
from the start of the wait). Polling is either

- `list`: pages of the list API (50 jobs a call, newest first; jobs just submitted are on the first
  pages), with a GET for any job the pages did not show; or
- `get`: one GET per due job, `concurrency` at a time;

and `auto` (the default) lists when more than `LIST_FROM` jobs are due at once. benchmarks/ measures
both (calls per job and wall time, B4): it forces one with the environment variable
MODELARTS_AWAIT_STRATEGY=list|get (read when a Watcher is made without a strategy; other values: auto).

Progress lines: a job's phase change (`a: Pending -> Running`) and its reaching the target, one line each;
when more than LINES_PER_ROUND jobs change in one round (the first poll of a 1,000-job sweep), one line
per kind of change instead (`120 jobs changed phase: 100 Pending -> Running, 20 Running -> Completed`), so
a big sweep stays readable; with `summary_from` jobs or more, a count per phase every 30 s.

Every poll runs under its jobs' deadline and the engine's Cancel (client/call_limits.py): a server that drips
its answer or a connection that stalls cannot hold the wait past a job's deadline (plus `FINAL_LOOK_S` for the
last look) nor past the first Ctrl-C by more than a moment.

A job past its deadline is terminated (cost safety) and reported; a failed job is reported with its
phase, each task's exit code and message, and the tail of its failing tasks' logs. Transient poll
errors (429, 5xx, network) are tolerated until the job's deadline; any other error ends the wait.
"""

from __future__ import annotations

import math
import os
from collections import Counter
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from statistics import median_high
from dataclasses import dataclass, field
from typing import Any, Literal, Optional

from ..client import call_limits
from ..client.errors import ModelArtsError
from ..client.models import TrainingJob
from ..core.rules import WaitFor
from ..wait_engine import REAL, Clock, Done, Failed, wait
from ..wait_engine import Condition as WaitCondition  # (.conditions' Condition judges one job)
from ..wait_engine.clock import on_real_clock
from .conditions import Condition, Outcome, Verdict, before, exists, first_decisive, not_failed, reaches, still_running

Strategy = Literal["auto", "list", "get"]
STRATEGY_ENV = "MODELARTS_AWAIT_STRATEGY"  # measurement hook (benchmarks B4)
LIST_FROM = 2
PAGE = 50
LINES_PER_ROUND = 20  # more phase changes (or reached targets) in one round: one line for them all
_GROUPED = {"phase": "changed phase", "reached": "reached their target", "timeout": "timed out"}
TRANSIENT = "transient"  # a poll that failed transiently: no news about the job
FINAL_LOOK_S = 2.0  # a poll started at or after a job's deadline (its last look) may take this long
TERMINATE_S = 5.0  # and the terminate of a job past its deadline this long
# The last jobs of a sweep are polled this long after the end their completed points predict (_align): the service
# shows a job Completed a moment after its run ends.
ALIGN_MARGIN_S = 0.2


# One round's answers: each polled job's view (None: gone; TRANSIENT: no news this time), by job id.
Round = dict[str, Optional[TrainingJob] | Literal["transient"]]


@dataclass(frozen=True)
class Watched:
    key: str
    job_id: str
    name: str
    target: WaitFor
    timeout_s: float
    poll_s: float
    workspace_id: str | None = None  # the list API lists one workspace at a time
    group: str | None = None  # the sweep it is a point of: its points run about as long (the last poll's timing)


@dataclass
class Result:
    watched: Watched
    outcome: Outcome
    job: TrainingJob | None
    note: str = ""  # e.g. "terminated", or why terminating failed

    @property
    def phase(self) -> str | None:
        return self.job.phase if self.job is not None else None


@dataclass
class _State:
    watched: Watched
    condition: Condition
    deadline: float
    next_poll: float
    job: TrainingJob | None = None
    phase: str | None = None
    errors: list[str] = field(default_factory=list)
    aligned: bool = False  # its poll was moved to its predicted end once (_align): never again


def default_strategy() -> Strategy:
    """`auto`, unless MODELARTS_AWAIT_STRATEGY forces `list` or `get` (benchmarks/ measure both)."""
    value = os.environ.get(STRATEGY_ENV, "").strip().lower()
    return value if value in ("list", "get") else "auto"  # type: ignore[return-value]


class WaitCancelled(Exception):
    """The engine cancelled (the user's first Ctrl-C): the wait stopped; ``waiting`` names the jobs it left."""

    def __init__(self, waiting: list[str]) -> None:
        self.waiting = waiting
        one = len(waiting) == 1
        super().__init__(f"stopped waiting; {len(waiting)} job{'' if one else 's'} keep{'s' if one else ''} running: "
                         + ", ".join(waiting))


class WaitAborted(Exception):
    """The wait cannot go on (the engine is gone, or polling hit a non-transient error)."""


class Watcher:
    def __init__(self, client: Any, say: Callable[[str], None], *, strategy: Strategy | None = None,
                 concurrency: int = 8, summary_every_s: float = 30.0, summary_from: int = 5,
                 clock: Clock = REAL,
                 alive: Callable[[], bool] = lambda: True,
                 cancelled: Callable[[], bool] = lambda: False,
                 on_poll: Callable[[list[tuple[Watched, Any]]], None] | None = None) -> None:
        self.client = client
        self.say = say
        self.strategy: Strategy = strategy or default_strategy()
        self.concurrency = concurrency
        self.summary_every_s = summary_every_s
        self.summary_from = summary_from
        self.clock = clock
        self.alive = alive
        self.cancelled = cancelled  # checked at least once a second: a Ctrl-C stops the wait within seconds
        self.on_poll = on_poll  # after each poll: the polled jobs and their views (a search's progress)
        self._round: list[tuple[str, str, str]] = []  # this round's (kind, line, what changed) progress lines

    # --- polling --------------------------------------------------------------------------------

    def _limits(self, deadline: float | None) -> Any:
        """The scope of a poll's calls (this thread's): cut at `deadline` (time.monotonic()) or on Cancel."""
        return call_limits.limits(deadline=deadline, abort=self.cancelled)

    def _get(self, job_id: str, deadline: float | None = None) -> Any:
        try:
            with self._limits(deadline):
                return self.client.get_job(job_id)
        except ModelArtsError as err:
            if err.retryable or self.cancelled():  # a cut poll: no news (the loop then stops or judges)
                return TRANSIENT
            raise WaitAborted(str(err)) from None

    def _get_many(self, ids: list[str], deadline: float | None = None) -> dict[str, Any]:
        get = partial(self._get, deadline=deadline)
        if len(ids) <= 1 or self.concurrency <= 1:
            return {i: get(i) for i in ids}
        with ThreadPoolExecutor(max_workers=min(self.concurrency, len(ids))) as pool:
            return dict(zip(ids, pool.map(get, ids)))

    def _list_many(self, jobs: list[tuple[str, str | None]], deadline: float | None = None) -> dict[str, Any]:
        found: dict[str, Any] = {}
        by_workspace: dict[str | None, set[str]] = {}
        for job_id, workspace in jobs:
            by_workspace.setdefault(workspace, set()).add(job_id)
        for workspace, wanted in by_workspace.items():
            # Pages, newest first, until every wanted job was seen or a page more than they fill.
            budget = (math.ceil(len(wanted) / PAGE) + 1) * PAGE
            try:
                with self._limits(deadline):
                    for seen, job in enumerate(self.client.iter_jobs(workspace_id=workspace), start=1):
                        if job.id in wanted:
                            found[job.id] = job
                            wanted.discard(job.id)
                        if not wanted or seen >= budget:
                            break
            except ModelArtsError as err:
                if self.cancelled():
                    return found
                if not err.retryable:
                    raise WaitAborted(str(err)) from None
        missing = [job_id for job_id, _ in jobs if job_id not in found]
        found.update(self._get_many(missing, deadline))  # older jobs, or gone: a GET tells
        return found

    def fetch(self, jobs: list[tuple[str, str | None]], deadline: float | None = None) -> dict[str, Any]:
        """The latest view of each (job id, workspace): a TrainingJob, None (gone) or a transient miss.
        `deadline` (time.monotonic()): no call of this fetch goes on past it."""
        use_list = self.strategy == "list" or (self.strategy == "auto" and len(jobs) > LIST_FROM)
        return (self._list_many(jobs, deadline) if use_list
                else self._get_many([job_id for job_id, _ in jobs], deadline))

    def _poll_deadline(self, due: list[_State], now: float) -> float:
        """When this round's calls must end (time.monotonic()): the earliest deadline of the jobs polled, or,
        for a last look at a job already at its deadline, `FINAL_LOOK_S` from now."""
        until = max(min(s.deadline for s in due), now + FINAL_LOOK_S) if due else now + FINAL_LOOK_S
        return on_real_clock(self.clock, until)

    # --- the loop: one condition on the wait engine (wait_engine/engine.py) ----------------------------

    def run(self, jobs: Iterable[Watched]) -> list[Result]:
        start = self.clock.now()
        states = {
            w.key: _State(w, first_decisive(exists(w.name, w.job_id), not_failed(), reaches(w.target),
                                             before(start + w.timeout_s, w.timeout_s, w.target, w.name, w.job_id)),
                          deadline=start + w.timeout_s, next_poll=start)
            for w in jobs
        }
        self._states, self._results, self._pending = states, {}, dict(states)
        self._ran_ms: dict[str, list[int]] = {}  # per sweep, how long its completed points ran (their `duration`)
        self._round_started = start  # when the last round of polls began (_align)
        self._last_summary, self._stop = start, None
        if states:
            wait(self.condition(), timeout_s=math.inf, poll_s=self._until_due, clock=self.clock, cancel=self._stopping)
        return [self._results[k] for k in states]

    def condition(self) -> WaitCondition[Round, None]:
        """The wait for every job at once: a read is one round of polls of the jobs due (job id -> its view),
        the judgement settles the jobs that reached, failed or ran out of time; done when none is left."""
        return WaitCondition("jobs", self._read_round, self._judge_round, too_late=lambda _round: Failed(""),
                             on_cancel=self._stopped, answer=Round)

    def _stopping(self) -> bool:
        """The engine's Cancel, or the engine gone (latched: each is seen once, then the wait ends on it)."""
        if self._stop is None:
            if self.cancelled():
                self._stop = "cancelled"
            elif not self.alive():
                self._stop = "gone"
        return self._stop is not None

    def _stopped(self, _last: Round | None) -> Failed:
        if self._stop == "gone":
            return Failed("", WaitAborted("the Pulumi engine that started this wait is gone; stopping the wait "
                                          "(the jobs keep running and stay in the state)"))
        return Failed("", WaitCancelled(sorted(s.watched.name for s in self._pending.values())))

    def _until_due(self, _polls: int) -> float:
        """How long until the next job is due (its poll interval or its deadline), or the next summary line."""
        wake = min(min(s.next_poll, s.deadline) for s in self._pending.values())
        if len(self._states) >= self.summary_from:
            wake = min(wake, self._last_summary + self.summary_every_s)
        return max(0.0, wake - self.clock.now())

    def _read_round(self) -> Round:
        now = self._round_started = self.clock.now()
        due = [s for s in self._pending.values() if s.next_poll <= now or s.deadline <= now]
        if not due:
            return {}
        return self.fetch([(s.watched.job_id, s.watched.workspace_id) for s in due], self._poll_deadline(due, now))

    def _judge_round(self, fresh: Round) -> Done[None] | None:
        if self.cancelled():
            return None  # a round cut by the Cancel is no news: the engine stops on it
        now = self.clock.now()
        due = [s for s in self._pending.values() if s.watched.job_id in fresh]
        for s in due:
            outcome = self._judge(s, fresh[s.watched.job_id], now)
            if outcome is not None:
                self._results[s.watched.key] = self._settle(s, outcome)
                del self._pending[s.watched.key]
            else:
                s.next_poll = now + s.watched.poll_s
        self._align(self._round_started)  # the views' durations were counted during the round
        if due:
            self._flush()
            if self.on_poll is not None:  # after the phase lines: a job's `Running` line comes first
                self.on_poll([(s.watched, fresh[s.watched.job_id]) for s in due])
        if len(self._states) >= self.summary_from and (now - self._last_summary >= self.summary_every_s
                                                       or not self._pending):
            self.say(self.summary(self._states.values(), self._results))
            self._last_summary = now
        return None if self._pending else Done(None)

    def _judge(self, s: _State, fresh: Any, now: float) -> Outcome | None:
        if isinstance(fresh, str):  # TRANSIENT
            if now >= s.deadline:
                # Too late whatever the service would say. A job never answered for is not gone
                # (exists() would say so of "no view"): only the deadline judges it.
                w = s.watched
                judge = s.condition if s.job is not None else before(s.deadline, w.timeout_s, w.target, w.name,
                                                                     w.job_id)
                return judge(s.job, now)
            return None
        s.job = fresh
        phase = fresh.phase if fresh is not None else None
        if fresh is not None and phase != s.phase:
            change = f"{s.phase} -> {phase}" if s.phase else f"{phase}"
            self._round.append(("phase", f"{s.watched.name}: {change}", change))
            s.phase = phase
        return s.condition(fresh, now)

    def _align(self, asked: float) -> None:
        """The last jobs of a sweep polled when they should end, not up to a poll interval later.

        A sweep's points run about as long as each other. Once some completed, each running point left is predicted
        to end when it has run as long as they did (their median `duration`, the service's own count of the time run,
        as of the round that read it: `asked`, when it started).
        When every job still waited for is such a point, to complete, and each predicted end comes before the next
        poll due, that poll is moved to the latest of those ends (plus ALIGN_MARGIN_S): earlier, never later, so
        nothing is seen later than the poll interval says; and it replaces the poll it moves, so when the prediction
        holds the wait ends with no more calls than it would have made. Once per job: a prediction that failed (a
        point running longer) falls back to the interval for good."""
        pending = list(self._pending.values())
        if not pending:
            return
        typical = {group: median_high(ran) for group, ran in self._ran_ms.items()}  # once a round, not once a job
        ends = []
        for s in pending:
            w, job = s.watched, s.job
            ran_ms = typical.get(w.group) if w.group else None
            if s.aligned or w.target != "completed" or ran_ms is None or job is None or job.phase != "Running" \
                    or job.status.duration is None:
                return
            left_s = (ran_ms - job.status.duration) / 1000
            if left_s <= 0:  # as long as its sweep's points ran, or longer: no prediction
                return
            ends.append(asked + left_s + ALIGN_MARGIN_S)
        at = max(ends)
        if at < min(s.next_poll for s in pending):
            for s in pending:
                s.next_poll, s.aligned = at, True

    def _settle(self, s: _State, outcome: Outcome) -> Result:
        result = Result(s.watched, outcome, s.job)
        job = s.job
        if s.watched.group and job is not None and job.phase == "Completed" and job.status.duration:
            self._ran_ms.setdefault(s.watched.group, []).append(job.status.duration)
        # A job never seen (every poll failed) may be running too: cost safety says terminate it.
        if outcome.verdict is Verdict.TIMED_OUT and (s.job is None or still_running(s.job)):
            try:
                with call_limits.limits(deadline=on_real_clock(self.clock, self.clock.now() + TERMINATE_S)):
                    self.client.terminate_job(s.watched.job_id)
                result.note = "it was terminated"
                self._round.append(("timeout", f"{s.watched.name}: timed out, terminated", "terminated"))
            except ModelArtsError as err:
                result.note = f"terminating it failed: {err}"
        elif outcome.verdict is Verdict.REACHED:
            self._round.append(("reached", f"{s.watched.name}: reached {s.watched.target} ({s.phase})",
                                str(s.watched.target)))
        return result

    def _flush(self) -> None:
        """Say this round's progress lines: each as it came, or one line per kind when there are too many."""
        events, self._round = self._round, []
        counts = Counter(kind for kind, _, _ in events)
        grouped = {kind for kind, n in counts.items() if n > LINES_PER_ROUND}
        for kind, text, _ in events:
            if kind not in grouped:
                self.say(text)
        for kind in sorted(grouped, key=list(_GROUPED).index):
            changes = Counter(change for k, _, change in events if k == kind)
            parts = ", ".join(f"{n} {change}" for change, n in changes.most_common())
            self.say(f"{counts[kind]} jobs {_GROUPED[kind]}: {parts}")

    @staticmethod
    def summary(states: Iterable[_State], results: dict[str, Result]) -> str:
        states = list(states)
        counts = Counter(s.phase or "unknown" for s in states)
        order = ["Creating", "Pending", "Running", "Completed", "Failed", "Abnormal", "Terminating", "Terminated"]
        parts = [f"{counts[p]} {p}" for p in order if counts.get(p)]
        parts += [f"{n} {p}" for p, n in counts.items() if p not in order]
        done = sum(1 for r in results.values() if r.outcome.verdict is Verdict.REACHED)
        return f"{len(states)} jobs: {', '.join(parts)} ({done} done)"

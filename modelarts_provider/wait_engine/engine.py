"""One wait loop for every wait of the package: a condition (read the thing, judge the answer) on a clock.

A wait is data: a `Condition` says how to read what is waited for (`read`: one API answer, or one round of
answers), what to tell of each answer (`progress`: a line when it changed) and how to judge it: `Done(value)` ends the wait, `Failed(reason)` ends it with an error,
None waits on. `wait()` is the only loop: it reads, judges, ends at the deadline (`too_late`, judged on the last
answer), stops on the engine's Cancel (`on_cancel`, before a read and while it sleeps), and sleeps the poll
interval (a number, or a function of the polls so far: backoff, a watcher's next due job) on its `Clock`.

- Every read runs in a call scope (client/call_limits.py): its calls end at the wait's deadline plus
  `LAST_LOOK_S` (a poll at the deadline is the last look) and as soon as the Cancel is set, so a server that
  drips its answer cannot hold a wait past either.
- A wait that listens for Cancel sleeps at most `CANCEL_CHECK_S` at a time: a Ctrl-C stops it within a second.
- Observers (`observing`) see each wait's start, every answer with its time on the wait's clock, and its end:
  testkit/wait_recorder.py records workflows on the local clouds with them; a `Source` (`replaying`) answers in
  place of the service: tests/waits replays each recording through the wait's own code on a FakeClock.
"""

from __future__ import annotations

import contextlib
import math
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from ..client import call_limits
from .clock import REAL, Clock, on_real_clock

A = TypeVar("A")  # what one read answers
R = TypeVar("R")  # what the wait returns

LAST_LOOK_S = 2.0  # a read started at or after the deadline may take this long
CANCEL_CHECK_S = 1.0  # a wait that listens for Cancel looks at it at least this often while it sleeps


@dataclass(frozen=True)
class Done(Generic[R]):
    value: R


@dataclass(frozen=True)
class Failed:
    """The wait cannot end well; `error` (when set) is raised as it is, else the wait's `error(reason)`."""

    reason: str
    error: BaseException | None = None


Judgement = Done[R] | Failed | None  # None: not yet, wait on


@dataclass
class Condition(Generic[A, R]):
    """What a wait waits for. `kind` names it in recordings; `answer` is the type of one read's answer (a
    pydantic-able type: recordings store answers as JSON and replay them as this type). Everything the judgement
    needs is in the answer (or the condition's own state): a replay answers in place of `read`, which then
    never runs."""

    kind: str
    read: Callable[[], A]
    judge: Callable[[A], Judgement[R]]
    too_late: Callable[[A], Failed]
    on_cancel: Callable[[A | None], Failed] | None = None  # None: as too_late (the last answer; None before one)
    answer: Any = Any
    progress: Callable[[A], None] | None = None  # told each answer before it is judged (lines when it changed)


class WaitFailed(Exception):
    """A wait that ended without reaching its condition; the message is one line."""


class Observer(Protocol):
    def started(self, condition: Condition[Any, Any], timeout_s: float, poll_s: float | None, clock: Clock) -> None: ...

    def answered(self, condition: Condition[Any, Any], at: float, answer: Any) -> None: ...

    def ended(self, condition: Condition[Any, Any], polls: int, outcome: str, message: str) -> None: ...


class Source(Protocol):
    """Answers in place of a condition's own read (a replay of a recording)."""

    def read(self, condition: Condition[A, Any]) -> A: ...


# Per thread: a block observes or replays the waits of the thread that opened it (the waits run in their caller's
# thread), never another thread's wait that happens to run meanwhile (the provider's orphan watchdog).
_LOCAL = threading.local()


def _observers() -> list[Observer]:
    if not hasattr(_LOCAL, "observers"):
        _LOCAL.observers = []
    return _LOCAL.observers  # type: ignore[no-any-return]


def _sources() -> list[Source]:
    if not hasattr(_LOCAL, "sources"):
        _LOCAL.sources = []
    return _LOCAL.sources  # type: ignore[no-any-return]


@contextlib.contextmanager
def observing(observer: Observer) -> Iterator[Observer]:
    """Every wait of this thread tells `observer` what it saw while the block runs (the recorder)."""
    _observers().append(observer)
    try:
        yield observer
    finally:
        _observers().remove(observer)


@contextlib.contextmanager
def replaying(source: Source) -> Iterator[Source]:
    """Every wait of this thread reads from `source` instead of the service while the block runs: the wait's
    own code (its judgements, lines, errors) runs on recorded answers (tests/waits)."""
    _sources().append(source)
    try:
        yield source
    finally:
        _sources().remove(source)


def _read(condition: Condition[A, Any]) -> A:
    sources = _sources()
    return sources[-1].read(condition) if sources else condition.read()


def _tell(event: str, *args: Any) -> None:
    for observer in list(_observers()):
        getattr(observer, event)(*args)


def wait(condition: Condition[A, R], *, timeout_s: float, poll_s: float | Callable[[int], float],
         clock: Clock = REAL, cancel: Callable[[], bool] | None = None,
         error: Callable[[str], BaseException] = WaitFailed) -> R:
    """Read and judge until the condition is done (its value returned) or failed, too late or cancelled
    (raised: the Failed's own error, else `error(reason)`). `timeout_s` may be math.inf (no deadline)."""
    start = clock.now()
    deadline = start + timeout_s
    interval = poll_s if callable(poll_s) else (lambda _polls, s=poll_s: s)
    listening = cancel if cancel is not None else (lambda: False)
    on_cancel = condition.on_cancel or condition.too_late
    polls = 0
    last: A | None = None
    _tell("started", condition, timeout_s, None if callable(poll_s) else poll_s, clock)

    def end(judged: Failed | Done[R], outcome: str) -> R:
        _tell("ended", condition, polls, outcome, judged.reason if isinstance(judged, Failed) else "")
        if isinstance(judged, Done):
            return judged.value
        raise judged.error if judged.error is not None else error(judged.reason)

    while True:
        if listening():
            return end(on_cancel(last), "cancelled")
        cut_at = None if math.isinf(deadline) else on_real_clock(clock, max(deadline, clock.now() + LAST_LOOK_S))
        try:
            with call_limits.limits(deadline=cut_at, abort=cancel):
                answer = _read(condition)
        except Exception:
            if not listening():
                raise
            cut = True  # a read cut by the Cancel (or failing meanwhile): the wait stopped, not the service
        else:
            cut = False
        if cut:
            return end(on_cancel(last), "cancelled")
        polls += 1
        _tell("answered", condition, clock.now() - start, answer)
        if condition.progress is not None:
            condition.progress(answer)
        judged = condition.judge(answer)
        if judged is not None:
            return end(judged, "done" if isinstance(judged, Done) else "failed")
        if clock.now() >= deadline:
            return end(condition.too_late(answer), "too late")
        if listening():
            return end(on_cancel(answer), "cancelled")
        last = answer
        _pause(clock, max(0.0, interval(polls)), listening if cancel is not None else None)


def _pause(clock: Clock, seconds: float, cancel: Callable[[], bool] | None) -> None:
    """Sleep on the wait's clock; in slices when Cancel may end the wait meanwhile."""
    if cancel is None:
        clock.sleep(seconds)
        return
    until = clock.now() + seconds
    while not cancel():
        left = until - clock.now()
        if left <= 0:
            return
        clock.sleep(min(left, CANCEL_CHECK_S))

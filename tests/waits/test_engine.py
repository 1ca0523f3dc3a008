"""The wait engine on a FakeClock: deadline, Cancel, backoff, the calls' scope, observers and sources."""

from __future__ import annotations

import math
import time
from typing import Any

import pytest

from modelarts_provider.client import call_limits
from modelarts_provider.wait_engine import (CANCEL_CHECK_S, Condition, Done, FakeClock, Failed, WaitFailed, observing,
                                        replaying, wait)


def counter(answers: list[Any]) -> Any:
    """A read answering `answers` in turn (the last repeats), counting its calls."""
    def read() -> Any:
        read.calls += 1  # type: ignore[attr-defined]
        return answers[min(read.calls, len(answers)) - 1]  # type: ignore[attr-defined]
    read.calls = 0  # type: ignore[attr-defined]
    return read


def until(value: str, read: Any, **kw: Any) -> Condition[Any, Any]:
    return Condition("test", read, judge=lambda a: Done(a) if a == value else (Failed(f"broke: {a}") if a == "x"
                                                                                  else None),
                     too_late=lambda a: Failed(f"too late: {a}"), **kw)


def test_done_returns_the_value_after_as_many_polls_as_it_took() -> None:
    clock, read = FakeClock(), counter(["a", "a", "b"])
    assert wait(until("b", read), timeout_s=60, poll_s=5, clock=clock) == "b"
    assert read.calls == 3 and clock.sleeps == [5, 5] and clock.t == 10


def test_failed_raises_the_reason_as_the_wait_s_error_and_a_given_error_as_it_is() -> None:
    with pytest.raises(KeyError, match="broke: x"):
        wait(until("b", counter(["a", "x"])), timeout_s=60, poll_s=5, clock=FakeClock(), error=KeyError)
    boom = RuntimeError("the listing's own error")
    cond = Condition("test", counter(["a"]), judge=lambda a: Failed("", boom), too_late=lambda a: Failed(""))
    with pytest.raises(RuntimeError) as e:
        wait(cond, timeout_s=60, poll_s=5, clock=FakeClock())
    assert e.value is boom


def test_the_deadline_is_judged_on_the_last_answer_after_a_last_look_at_it() -> None:
    clock, read = FakeClock(), counter(["a", "a", "a", "c"])
    with pytest.raises(WaitFailed, match="^too late: a$"):
        wait(until("b", read), timeout_s=10, poll_s=5, clock=clock)
    assert read.calls == 3 and clock.t == 10  # 0, 5 and the last look at 10
    # reached at the last look: arrived
    assert wait(until("b", counter(["a", "a", "b"])), timeout_s=10, poll_s=5, clock=FakeClock()) == "b"


def test_backoff_is_a_function_of_the_polls_so_far() -> None:
    clock = FakeClock()
    assert wait(until("b", counter(["a", "a", "a", "b"])), timeout_s=math.inf, poll_s=lambda n: 2.0 * n,
                clock=clock) == "b"
    assert clock.sleeps == [2.0, 4.0, 6.0]


def test_a_cancel_before_any_read_stops_the_wait_without_reading() -> None:
    read = counter(["a"])
    with pytest.raises(WaitFailed, match="^stopped at None$"):
        wait(until("b", read, on_cancel=lambda last: Failed(f"stopped at {last}")), timeout_s=60, poll_s=5,
             clock=FakeClock(), cancel=lambda: True)
    assert read.calls == 0


def test_a_cancel_while_sleeping_stops_the_wait_within_a_second_naming_the_last_answer() -> None:
    clock, read = FakeClock(), counter(["a", "a2"])
    with pytest.raises(WaitFailed, match="^stopped at a2$"):
        wait(until("b", read, on_cancel=lambda last: Failed(f"stopped at {last}")), timeout_s=600, poll_s=30,
             clock=clock, cancel=lambda: clock.t >= 32.5)
    assert read.calls == 2 and clock.t == 33  # asleep in slices of CANCEL_CHECK_S: woke 0.5 s after the Ctrl-C
    assert max(clock.sleeps) == CANCEL_CHECK_S


def test_without_a_cancel_the_wait_sleeps_its_interval_at_once_and_too_late_stands_for_a_cancel() -> None:
    clock = FakeClock()
    wait(until("b", counter(["a", "b"])), timeout_s=600, poll_s=30, clock=clock)
    assert clock.sleeps == [30]
    with pytest.raises(WaitFailed, match="^too late: a$"):  # no on_cancel: the too-late message
        wait(until("b", counter(["a"])), timeout_s=600, poll_s=30, clock=FakeClock(), cancel=iter([False, True]).__next__)


def test_reads_run_in_a_call_scope_cut_at_the_deadline_plus_a_last_look_and_on_cancel() -> None:
    seen: list[Any] = []
    flag = lambda: False  # noqa: E731

    def read() -> str:
        seen.append(call_limits._scope())
        return "b"

    clock = FakeClock(t=1000.0)
    before = time.monotonic()
    wait(until("b", read), timeout_s=60, poll_s=5, clock=clock, cancel=flag)
    after = time.monotonic()
    (deadline, aborts), = seen
    assert before + 60 <= deadline <= after + 60  # on the real clock, whatever the wait's clock says
    assert aborts == (flag,)
    seen.clear()
    wait(until("b", read), timeout_s=math.inf, poll_s=5, clock=clock)
    assert seen == [(None, ())]


def test_observers_see_each_answer_at_its_time_and_sources_answer_in_place_of_the_read() -> None:
    class Notes:
        def __init__(self) -> None:
            self.events: list[tuple[Any, ...]] = []

        def started(self, condition: Any, timeout_s: float, poll_s: Any, clock: Any) -> None:
            self.events.append(("started", condition.kind, timeout_s, poll_s))

        def answered(self, condition: Any, at: float, answer: Any) -> None:
            self.events.append(("answered", at, answer))

        def ended(self, condition: Any, polls: int, outcome: str, message: str) -> None:
            self.events.append(("ended", polls, outcome, message))

    class Answers:
        def __init__(self) -> None:
            self.left = ["z", "b"]

        def read(self, condition: Any) -> Any:
            return self.left.pop(0)

    read = counter(["never"])
    with observing(Notes()) as notes, replaying(Answers()):
        assert wait(until("b", read), timeout_s=60, poll_s=5, clock=FakeClock(t=7)) == "b"
    assert read.calls == 0
    assert notes.events == [("started", "test", 60, 5), ("answered", 0.0, "z"), ("answered", 5.0, "b"),
                            ("ended", 2, "done", "")]


def test_a_replay_or_an_observer_covers_the_waits_of_its_own_thread_only() -> None:
    """A provider process runs other waits meanwhile (its orphan watchdog): they read the service, not a test's
    recording, and a recorder does not see them."""
    import threading

    class Notes:
        events: list[str] = []

        def started(self, *_a: Any) -> None:
            self.events.append("started")

        def answered(self, *_a: Any) -> None:
            self.events.append("answered")

        def ended(self, *_a: Any) -> None:
            self.events.append("ended")

    class Refuses:
        def read(self, condition: Any) -> Any:
            raise AssertionError(f"read {condition.kind} from another thread's replay")

    other = counter(["b"])
    got: list[Any] = []
    with observing(Notes()) as notes, replaying(Refuses()):
        thread = threading.Thread(target=lambda: got.append(wait(until("b", other), timeout_s=60, poll_s=5,
                                                                 clock=FakeClock())))
        thread.start()
        thread.join(10)
    assert got == ["b"] and other.calls == 1 and notes.events == []


def test_progress_is_told_each_answer_before_it_is_judged() -> None:
    told: list[str] = []
    cond = Condition("test", counter(["a", "b"]), judge=lambda a: Done(told[:]) if a == "b" else None,
                     too_late=lambda a: Failed(""), progress=told.append)
    assert wait(cond, timeout_s=60, poll_s=5, clock=FakeClock()) == ["a", "b"]

"""The clock a wait runs on: the real one in the product, a fake one in replays, the emulated one in recordings.

A wait asks its clock what time it is (`now()`, seconds, any origin) and to pass time (`sleep(seconds)`); it
never calls time.sleep or time.monotonic itself (tests/architecture), so the same wait runs in real time, in no
time at all on a `FakeClock` (tests replay recorded workflows), or on the local ModelArts' emulated clock (the
recorder moves it forward instead of sleeping).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol


class Clock(Protocol):
    def now(self) -> float: ...

    def sleep(self, seconds: float) -> None: ...


class RealClock:
    """time.monotonic and time.sleep: the one place of the package that sleeps (client/ keeps its transport's)."""

    def now(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        time.sleep(max(0.0, seconds))


REAL = RealClock()


@dataclass
class FakeClock:
    """Time that passes only when a wait sleeps: a replay takes no time and is the same on any machine."""

    t: float = 0.0
    sleeps: list[float] = field(default_factory=list)

    def now(self) -> float:
        return self.t

    def __call__(self) -> float:  # also a plain `() -> float` clock (progress lines' rate limit)
        return self.t

    def sleep(self, seconds: float) -> None:
        assert seconds >= 0, seconds
        self.sleeps.append(seconds)
        self.t += seconds


@dataclass
class FnClock:
    """A clock made of two functions (a test that does something at each sleep)."""

    now_fn: Callable[[], float]
    sleep_fn: Callable[[float], None]

    def now(self) -> float:
        return self.now_fn()

    def sleep(self, seconds: float) -> None:
        self.sleep_fn(seconds)


def on_real_clock(clock: Clock, at: float) -> float:
    """`at` on `clock` as a time.monotonic() value: when the calls of a wait must end (client/call_limits.py
    cuts on the real clock whatever clock the wait runs on)."""
    return time.monotonic() + (at - clock.now())

"""Record a thread's sleeps instead of sleeping them: what a client would wait is asserted, not how fast the machine
is. Only the calling thread's sleeps are recorded; other threads (the client's call watchdog ticks every 0.1 s in its
own) sleep for real, so their ticks neither land in the record nor spin."""

from __future__ import annotations

import threading
import time

import pytest


def record_sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    slept: list[float] = []
    caller = threading.get_ident()
    real_sleep = time.sleep

    def sleep(seconds: float) -> None:
        if threading.get_ident() == caller:
            slept.append(seconds)
        else:
            real_sleep(seconds)

    monkeypatch.setattr(time, "sleep", sleep)
    return slept

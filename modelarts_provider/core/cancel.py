"""The engine's Cancel (the user's first Ctrl-C), as every wait of this process consults it (issue 43).

On the first Ctrl-C the engine calls Cancel on every provider and then waits for the steps in flight, so a wait
that does not look at it holds the whole command until its own deadline (a job's stop: 900 s). Both front doors
record the Cancel here: the dynamic-provider server through provider_base.listen_for_cancel(), the provider plugin
first-hand (plugin/provider.py). A provider process is cancelled once and for good (it serves one engine run).

Every wait is made of the same two steps, and both end at once on Cancel:

- `look(get, deadline)`: one poll, its calls cut at the wait's deadline (plus a last look) or at Cancel by the
  call watchdog (client/call_limits.py), whatever the server does (a slow drip, a stalled connection);
- `pause(seconds)`: the sleep between two polls, woken by Cancel.

Both raise `WaitStopped`; each wait turns it into its own one-line error naming what it left (the job, pool or
network keeps its state: the next command waits again). The awaiting watcher takes `cancelled` as its check.
Kept small on purpose: one wait engine for every wait can take these two steps over.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TypeVar

from ..client import call_limits

T = TypeVar("T")

LAST_LOOK_S = 2.0  # a poll started at (or just before) a wait's deadline may take this long

_CANCELLED = threading.Event()


class WaitStopped(Exception):
    """The engine cancelled while a wait ran: the wait ended at once."""


def cancelled() -> bool:
    """The engine asked this provider process to cancel (the user's first Ctrl-C)."""
    return _CANCELLED.is_set()


def request_cancel() -> None:
    """Record the engine's Cancel: every wait of this process stops."""
    _CANCELLED.set()


def look(get: Callable[[], T], deadline: float) -> T:
    """One poll of a wait whose deadline is `deadline` (time.monotonic()): `get()`'s calls are cut at that deadline
    (or `LAST_LOOK_S` from now, whichever is later) and at the engine's Cancel; WaitStopped when cancelled."""
    if cancelled():
        raise WaitStopped
    try:
        with call_limits.limits(deadline=max(deadline, time.monotonic() + LAST_LOOK_S), abort=cancelled):
            return get()
    except Exception:
        if cancelled():  # a call cut by the Cancel (or failing meanwhile): the wait stopped, not the service
            raise WaitStopped from None
        raise


def pause(seconds: float) -> None:
    """The pause between two polls; WaitStopped as soon as the engine cancels (before it, or during it)."""
    if _CANCELLED.wait(max(seconds, 0.0)):
        raise WaitStopped

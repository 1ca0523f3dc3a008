"""Waiting for a pool to be usable: Running with every declared node available (not merely Running: a
pool is Running from its first node on), printing the node counts whenever they change. Abnormal, an
abnormal node or the deadline ends the wait with the pool's status message."""

from __future__ import annotations

import time
from typing import Any, Callable

from ..client import call_limits
from ..client.pool_models import Pool
from ..core.provider_base import cancelled


class PoolNotUsable(Exception):
    """The pool did not reach its declared nodes; the message is one line and names the status message."""


def usable(pool: Pool, want: dict[str, int]) -> bool:
    s = pool.status
    return (s.phase == "Running" and s.counts("available") == want
            and not s.counts("creating") and not s.counts("abnormal") and not s.counts("deleting"))


def wait_usable(get: Callable[[], Pool | None], label: str, want: dict[str, int], timeout_s: float,
                poll_s: float, say: Callable[[str], Any]) -> Pool:
    deadline = time.monotonic() + timeout_s
    shown = ""
    while True:
        # A poll hanging on a slow server ends at the deadline (and a last look) or at the first Ctrl-C.
        with call_limits.limits(deadline=max(deadline, time.monotonic() + 2.0), abort=cancelled):
            pool = get()
        if pool is None:
            raise PoolNotUsable(f"pool {label} disappeared while waiting for its nodes")
        line = pool.summary()
        if line != shown:
            say(f"pool {label}: {line}")
            shown = line
        if usable(pool, want):
            return pool
        message = pool.status.message or "no status message"
        if pool.status.phase in ("Abnormal", "Error"):
            raise PoolNotUsable(f"pool {label} is {pool.status.phase}: {message}")
        if pool.status.counts("abnormal"):
            raise PoolNotUsable(f"pool {label} has abnormal nodes ({line}): {message}")
        if time.monotonic() > deadline:
            raise PoolNotUsable(f"pool {label} not usable after {timeout_s:g} s ({line}): {message}")
        if cancelled():
            raise PoolNotUsable(f"pool {label}: waiting stopped (cancelled) at {line}")
        time.sleep(poll_s)

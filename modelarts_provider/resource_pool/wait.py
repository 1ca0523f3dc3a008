"""Waiting for a pool to be usable: Running with every declared node available and every declared job type
(scope) Enabled (not merely Running: a pool is Running from its first node on, and a job of a type still
Enabling does not run), printing the node counts whenever they change.

A pool that cannot get there by waiting ends the wait at once, not at the deadline: a failure phase
(Abnormal, Error, CreationFailed, ScalingFailed) or nodes abnormal or failed to create (bucket
``creationFailed``). The error names the reason the pool's order gives (``os.modelarts/order.name``, read
with ``reason``), else the pool's status message. The deadline ends the wait with the status message too.
"""

from __future__ import annotations

import time
from typing import Any, Callable

from ..client.pool_models import Pool
from ..core.cancel import WaitStopped, look, pause


class PoolNotUsable(Exception):
    """The pool did not reach its declared nodes; the message is one line and names the reason."""


def usable(pool: Pool, want: dict[str, int], scopes: list[str] | None = None) -> bool:
    s = pool.status
    return (s.phase == "Running" and s.counts("available") == want
            and not any(s.counts(b) for b in ("creating", "abnormal", "creationFailed", "deleting"))
            and s.scopes_enabled(scopes or []))


def _failure(pool: Pool, line: str, label: str, reason: Callable[[Pool], str | None]) -> str:
    why = reason(pool) or pool.status.message or "no status message"
    if pool.status.phase in ("Abnormal", "Error", "CreationFailed", "ScalingFailed"):
        return f"pool {label} is {pool.status.phase}: {why}"
    if pool.status.counts("creationFailed"):
        return f"pool {label} has nodes that failed to create ({line}): {why}"
    return f"pool {label} has abnormal nodes ({line}): {why}"


def wait_usable(get: Callable[[], Pool | None], label: str, want: dict[str, int], timeout_s: float,
                poll_s: float, say: Callable[[str], Any], *, scopes: list[str] | None = None,
                reason: Callable[[Pool], str | None] = lambda _: None) -> Pool:
    deadline = time.monotonic() + timeout_s
    shown = ""
    while True:
        # A poll hanging on a slow server ends at the deadline (and a last look) or at the first Ctrl-C, and so
        # does the pause between two polls (core/cancel.py).
        try:
            pool = look(get, deadline)
        except WaitStopped:
            raise PoolNotUsable(f"pool {label}: waiting stopped (cancelled) at {shown or 'its first look'}") from None
        if pool is None:
            raise PoolNotUsable(f"pool {label} disappeared while waiting for its nodes")
        line = pool.summary()
        waiting = [s.scope_type for s in pool.status.scope if s.scope_type in (scopes or []) and s.state != "Enabled"]
        if waiting and pool.status.phase == "Running":
            line += "; job types " + ", ".join(f"{s.scope_type} {s.state}" for s in pool.status.scope
                                               if s.scope_type in waiting)
        if line != shown:
            say(f"pool {label}: {line}")
            shown = line
        if usable(pool, want, scopes):
            return pool
        if pool.status.failed():
            raise PoolNotUsable(_failure(pool, line, label, reason))
        if time.monotonic() > deadline:
            message = pool.status.message or "no status message"
            raise PoolNotUsable(f"pool {label} not usable after {timeout_s:g} s ({line}): {message}")
        try:
            pause(poll_s)
        except WaitStopped:
            raise PoolNotUsable(f"pool {label}: waiting stopped (cancelled) at {line}") from None

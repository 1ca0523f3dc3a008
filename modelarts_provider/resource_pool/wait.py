"""Waiting for a pool to be usable: Running with every declared node available and every declared job type
(scope) Enabled (not merely Running: a pool is Running from its first node on, and a job of a type still
Enabling does not run), printing the node counts whenever they change.

A pool that cannot get there by waiting ends the wait at once, not at the deadline: a failure phase
(Abnormal, Error, CreationFailed, ScalingFailed) or nodes abnormal or failed to create (bucket
``creationFailed``). The error names the reason the pool's order gives (``os.modelarts/order.name``, read
with ``reason``), else the pool's status message. The deadline ends the wait with the status message too.
"""

from __future__ import annotations

from typing import Any, Callable

from pydantic import BaseModel

from ..client.pool_models import Pool
from ..wait_engine import REAL, Clock, Condition, Done, Failed, cancelled, wait


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


class PoolView(BaseModel):
    """One read of the pool: the pool (None: gone) and, when it failed, why its order says it did."""

    pool: Pool | None
    order_failure: str | None = None


def _line(pool: Pool, scopes: list[str] | None) -> str:
    line = pool.summary()
    waiting = [s.scope_type for s in pool.status.scope if s.scope_type in (scopes or []) and s.state != "Enabled"]
    if waiting and pool.status.phase == "Running":
        line += "; job types " + ", ".join(f"{s.scope_type} {s.state}" for s in pool.status.scope
                                           if s.scope_type in waiting)
    return line


def usable_condition(read: Callable[[], PoolView], label: str, want: dict[str, int], timeout_s: float,
                     say: Callable[[str], Any], scopes: list[str] | None = None) -> Condition[PoolView, Pool]:
    """Until the pool is usable; its node counts said whenever they change."""
    shown = [""]

    def progress(view: PoolView) -> None:
        line = _line(view.pool, scopes) if view.pool is not None else shown[0]
        if line != shown[0]:
            say(f"pool {label}: {line}")
            shown[0] = line

    def judge(view: PoolView) -> Done[Pool] | Failed | None:
        pool = view.pool
        if pool is None:
            return Failed(f"pool {label} disappeared while waiting for its nodes")
        if usable(pool, want, scopes):
            return Done(pool)
        if pool.status.failed():
            return Failed(_failure(pool, _line(pool, scopes), label, lambda _p: view.order_failure))
        return None

    def too_late(view: PoolView) -> Failed:
        pool = view.pool
        assert pool is not None  # a gone pool failed the wait already
        return Failed(f"pool {label} not usable after {timeout_s:g} s ({_line(pool, scopes)}): "
                      f"{pool.status.message or 'no status message'}")

    def on_cancel(view: PoolView | None) -> Failed:
        at = f" at {_line(view.pool, scopes)}" if view is not None and view.pool is not None else ""
        return Failed(f"pool {label}: waiting stopped (cancelled){at}")

    return Condition("pool usable", read, judge, too_late, on_cancel, answer=PoolView, progress=progress)


def wait_usable(get: Callable[[], Pool | None], label: str, want: dict[str, int], timeout_s: float,
                poll_s: float, say: Callable[[str], Any], *, scopes: list[str] | None = None,
                reason: Callable[[Pool], str | None] = lambda _: None, clock: Clock = REAL) -> Pool:
    # A poll hanging on a slow server ends at the deadline (and a last look) or at the first Ctrl-C (the engine).
    def read() -> PoolView:
        pool = get()
        return PoolView(pool=pool, order_failure=reason(pool) if pool is not None and pool.status.failed() else None)

    return wait(usable_condition(read, label, want, timeout_s, say, scopes), timeout_s=timeout_s, poll_s=poll_s,
                clock=clock, cancel=lambda: cancelled(), error=PoolNotUsable)

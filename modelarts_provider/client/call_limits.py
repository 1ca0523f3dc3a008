"""Every API call's overall deadline, and calls cut short when their caller stops (issue 43, finding 4).

A socket's read timeout bounds one read, not one call: a server (or a proxy) that drips its answer a byte at a
time, a TLS handshake that stalls after the TCP connect, a half-open connection that still takes bytes, keep one
call going for ever while every read finishes in time. So each call (``Transport.request``, its retries
included) runs as a ``Call`` with

- a deadline: its own (``Transport``: the retry budget plus one read timeout), or the earlier one of the scope it
  runs in (``limits(deadline=...)``: a wait's own deadline), and
- an abort test (``limits(abort=...)``: the engine's Cancel, for waits),

and the connections it takes from the pool are attached to it (``attach`` / ``detach``, from the pool classes in
transport.py). One watchdog thread looks at the calls in flight every ``TICK_S``: the socket of a call past its
deadline, or whose abort test says so, is shut down, which ends a blocked read, write or handshake at once; the
call then fails (transport.py: ``CallCut``) and is not retried. Nothing here knows HTTP; nothing is a timer per
call (a thread per call would be 256 threads under load).
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

TICK_S = 0.1  # how late a cut may come: well within the second a Ctrl-C must take

Abort = Callable[[], bool]


@dataclass(eq=False)
class Call:
    """One call in flight: when it must end, what may end it earlier, the connections it holds."""

    deadline: float  # time.monotonic()
    aborts: tuple[Abort, ...] = ()
    conns: set[Any] = field(default_factory=set)
    cut: str | None = None  # why the watchdog ended it: "deadline" | "aborted"
    shut: bool = False  # a socket of it was shut: what it read may be cut short (a close-delimited body)

    def why_cut(self) -> str | None:
        """Why the call must end now (None: it may go on)."""
        if self.cut is not None:
            return self.cut
        if any(_safe(a) for a in self.aborts):
            return "aborted"
        if time.monotonic() >= self.deadline:
            return "deadline"
        return None


def _safe(abort: Abort) -> bool:
    try:
        return bool(abort())
    except Exception:  # noqa: BLE001 - an abort test that fails never cuts a call
        return False


_local = threading.local()
_lock = threading.Lock()
_calls: set[Call] = set()
_owner: dict[int, Call] = {}  # id(conn) -> the call holding it
_watchdog_started = False


def _scope() -> tuple[float | None, tuple[Abort, ...]]:
    return getattr(_local, "scope", (None, ()))


@contextlib.contextmanager
def limits(*, deadline: float | None = None, abort: Abort | None = None) -> Iterator[None]:
    """Calls made by this thread inside the block end by `deadline` (time.monotonic()) at the latest, and as soon
    as `abort()` is true. Scopes nest: the earliest deadline and every abort test apply."""
    outer_deadline, outer_aborts = _scope()
    inner = deadline if outer_deadline is None else (outer_deadline if deadline is None
                                                     else min(deadline, outer_deadline))
    _local.scope = (inner, outer_aborts + ((abort,) if abort is not None else ()))
    try:
        yield
    finally:
        _local.scope = (outer_deadline, outer_aborts)


def current() -> Call | None:
    """The call this thread is making (None outside Transport.request)."""
    return getattr(_local, "call", None)


@contextlib.contextmanager
def call(own_deadline_s: float) -> Iterator[Call]:
    """Run one call: its deadline is `own_deadline_s` from now or the scope's, whichever comes first."""
    scope_deadline, aborts = _scope()
    deadline = time.monotonic() + own_deadline_s
    if scope_deadline is not None:
        deadline = min(deadline, scope_deadline)
    c = Call(deadline, aborts)
    previous = current()
    _local.call = c
    with _lock:
        _calls.add(c)
    _start_watchdog()
    try:
        yield c
    finally:
        with _lock:
            _calls.discard(c)
            for conn in c.conns:
                _owner.pop(id(conn), None)
            c.conns.clear()
        _local.call = previous


def attach(conn: Any) -> None:
    """A connection this thread's call took from the pool: cut with the call."""
    c = current()
    if c is None:
        return
    with _lock:
        c.conns.add(conn)
        _owner[id(conn)] = c
    if c.why_cut() is not None:
        _cut(c)


def detach(conn: Any) -> None:
    """A connection back in the pool: another call may take it; no longer cut with this one."""
    with _lock:
        c = _owner.pop(id(conn), None)
        if c is not None:
            c.conns.discard(conn)


def _shut(conn: Any) -> bool:
    """Shut the connection's TCP socket down: a read, write or TLS handshake blocked on it in another thread
    returns at once. By its descriptor (`raw_fd`, transport.py), and only while the connection still holds that
    descriptor (its socket has it, or handed it to the TLS socket of a handshake under way)."""
    sock = getattr(conn, "sock", None)
    fd = getattr(conn, "raw_fd", None)
    if sock is None or fd is None:
        return False
    try:
        if sock.fileno() not in (fd, -1):
            return False
        raw = socket.socket(fileno=fd)
    except (OSError, ValueError):
        return False
    try:
        raw.shutdown(socket.SHUT_RDWR)  # the TLS object's own shutdown would start a close handshake
    except OSError:
        pass
    finally:
        raw.detach()  # the descriptor stays the connection's, closed by it
    return True


def _cut(c: Call) -> None:
    why = c.why_cut()
    if why is None:
        return
    c.cut = why
    with _lock:
        conns = list(c.conns)
    for conn in conns:
        # Marked before the shutdown: the read it ends returns at once on the caller's thread, which must find the
        # call marked (headers cut mid-way read as a whole 200 with an empty, close-delimited body).
        c.shut = True
        _shut(conn)


def _watch() -> None:
    while True:
        time.sleep(TICK_S)
        with _lock:
            calls = list(_calls)
        for c in calls:
            if c.why_cut() is not None:
                _cut(c)  # again at each tick: a connection attached meanwhile (a retry) is cut too


def _start_watchdog() -> None:
    global _watchdog_started
    if _watchdog_started:
        return
    with _lock:
        if _watchdog_started:
            return
        _watchdog_started = True
    threading.Thread(target=_watch, name="call-deadlines", daemon=True).start()

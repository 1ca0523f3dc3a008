"""Whether the engine that started this process is still there, and the watchdog that ends the process once it is
gone (a SIGKILLed `pulumi up` stops none of its plugins nor its language host)."""

from __future__ import annotations

import math
import os
import threading

from .deferred_tags import TAG_WRITES
from ..wait_engine import Condition, Done, Failed, wait

_WATCHDOG_STARTED = threading.Event()
_SHELLS = frozenset({"sh", "dash", "bash"})


def _parent_of(pid: int) -> int | None:
    """The parent pid of a process (Linux /proc), or None when it is gone or unknown."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            # pid (comm) state ppid ...: comm may hold spaces, so split after its closing paren
            return int(f.read().rsplit(b")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return None


def _program(pid: int) -> str:
    """The executable's name (for a `#!/bin/sh` script: the shell, not the script)."""
    try:
        return os.path.basename(os.readlink(f"/proc/{pid}/exe"))
    except OSError:
        return ""


# The engine starts the dynamic provider through a /bin/sh launcher that does not exec, and the stack program
# through the Python language host: the engine is then that launcher's or host's parent. Both links are watched.
_LANGUAGE_HOSTS = ("pulumi-language-python", "pulumi-python-host")  # upstream's name; ours (scripts/python-launcher)


def _in_between(pid: int) -> bool:
    program = _program(pid)
    return program in _SHELLS or program.startswith(_LANGUAGE_HOSTS)


_PARENT_PID = os.getppid()
_ENGINE_PID = _parent_of(_PARENT_PID) if _in_between(_PARENT_PID) else None


def engine_alive() -> bool:
    """The engine that launched this process (a provider, or the stack program) is still there (as parent or
    grandparent)."""
    if os.getppid() != _PARENT_PID:
        return False
    return _ENGINE_PID is None or _parent_of(_PARENT_PID) == _ENGINE_PID


def start_orphan_watchdog(every_s: float = 1.0) -> None:
    """Exit this process once the engine that started it is gone.

    The engine starts plugins and the language host in their own process groups; when `pulumi up` is
    SIGKILLed nobody stops them. A provider would otherwise serve nothing forever (or go on waiting, and
    terminate jobs on its own when their deadline passes); the stack program waits forever on registrations
    nobody answers, and its language host with it. Called from configure() in a provider process, and by the
    stack program's main().
    """
    if _WATCHDOG_STARTED.is_set():
        return
    _WATCHDOG_STARTED.set()

    def watch() -> None:
        wait(Condition("engine gone", engine_alive, judge=lambda alive: None if alive else Done(None),
                       too_late=lambda _alive: Failed("")), timeout_s=math.inf, poll_s=every_s)
        TAG_WRITES.flush()  # the jobs just created get their owner tags all the same (core/deferred_tags.py)
        os._exit(3)  # nothing to tell: the engine's end of our stderr is gone with it

    threading.Thread(target=watch, name="orphan-watchdog", daemon=True).start()

"""The SDK's debug lines leave the stack program from a thread of their own, in order (issue 59).

The Python SDK logs four debug lines per resource it registers ("registering resource", "resource registration
prepared", "... successful"), each a synchronous RPC to the engine made on the program's one event-loop thread, which
waits for the engine's answer (1-3 ms; longer while the engine writes its checkpoints). The engine shows them only
under `pulumi up --debug`, yet every `up` pays for them: a 96-job sweep sent about 400 and its event loop waited
about 0.2 s of its declaration for them, before its first job was registered (docs/benchmarks.md).

So the lines without a resource (the SDK's own) are handed to one sender thread, which sends them in the order they
were logged; `pulumi up --debug` shows the same lines. Before the process ends (its exit steps: stack/fast_exit.py
runs them too) the lines handed over are sent. A line attached to a resource, and every other severity, goes as the
SDK sends it.
"""

from __future__ import annotations

import atexit
import queue
import threading
from collections.abc import Callable
from typing import Any

# At exit, the longest the sender is given to send the lines still queued (each is one local RPC).
FLUSH_S = 5.0

_Send = Callable[[str], None]


class DebugSender:
    """One thread that sends the queued lines in order; `flush` waits until every line handed over was sent."""

    def __init__(self, send: _Send) -> None:
        self._send = send
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="pulumi-debug-lines", daemon=True)
        self._thread.start()

    def put(self, line: str) -> None:
        self._queue.put(line)

    def _run(self) -> None:
        while True:
            line = self._queue.get()
            try:
                if line is not None:
                    self._send(line)
            except Exception:  # noqa: BLE001 - a debug line the engine did not take is not worth failing the up
                pass
            finally:
                self._queue.task_done()

    def flush(self, timeout_s: float = FLUSH_S) -> None:
        done = threading.Event()
        threading.Thread(target=lambda: (self._queue.join(), done.set()), daemon=True).start()
        done.wait(timeout_s)


def install(log_module: Any = None) -> DebugSender | None:
    """Route the SDK's resource-less debug lines through one sender thread (once per process). `log_module`: the
    SDK's `pulumi.log` (tests pass a stand-in)."""
    if log_module is None:
        import pulumi.log as log_module  # noqa: PLC0415 - the SDK's module, patched where it lives
    current = log_module.debug
    if getattr(current, "debug_sender", None) is not None:
        return current.debug_sender  # type: ignore[no-any-return]
    sdk_debug = current
    sender = DebugSender(lambda line: sdk_debug(line))

    def debug(msg: str, resource: Any = None, stream_id: Any = None, ephemeral: Any = None) -> None:
        if resource is None and stream_id is None and ephemeral is None:
            sender.put(msg)
        else:
            sdk_debug(msg, resource, stream_id, ephemeral)

    debug.debug_sender = sender  # type: ignore[attr-defined]
    log_module.debug = debug
    atexit.register(sender.flush)
    return sender

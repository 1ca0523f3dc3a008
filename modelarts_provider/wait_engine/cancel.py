"""The engine's Cancel: the one flag every wait of a provider process stops on (the user's first Ctrl-C).

The stack program's provider learns of it when the engine calls Cancel on the dynamic provider's gRPC server
(core/provider_server.py: listen_for_cancel), the plugin first-hand (plugin/provider.py: cancel); both set it
here. A wait given `cancel=cancelled` checks it before each read and while it sleeps, and the calls it makes
are cut as soon as it is set (client/call_limits.py: the wait's scope carries it as the abort test).
"""

from __future__ import annotations

import threading

_CANCELLED = threading.Event()


def cancelled() -> bool:
    """The engine asked this provider process to cancel (the user's first Ctrl-C)."""
    return _CANCELLED.is_set()


def request_cancel() -> None:
    """Every wait of this process that listens for Cancel stops (within a second: CANCEL_CHECK_S)."""
    _CANCELLED.set()

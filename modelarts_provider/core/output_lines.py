"""The progress lines a provider says: masked, one write per line (calls run on many threads), to stderr (the
dynamic provider: the engine relays it) or to the plugin's engine log."""

from __future__ import annotations

import sys
import threading
from typing import Callable

from .masking import Secrets, mask

_OUTPUT_LOCK = threading.Lock()
# Where say() writes when not to stderr: the provider plugin's engine log (plugin/diagnostics.py).
_OUTPUT: Callable[[str, str], None] | None = None


def set_output(output: Callable[[str, str], None] | None) -> None:
    """Send say()'s lines to `output(line, severity)` instead of stderr (None: stderr again)."""
    global _OUTPUT
    _OUTPUT = output


def say(message: str, secrets: Secrets | None = None) -> None:
    """One line to the provider's stderr, which the engine relays into `pulumi up` for a dynamic provider (the
    provider plugin sends it to the engine's log instead: the engine hides a plugin's stderr).

    Every line passes the masking step (`secrets`, else the running call's own). One write per line under a lock: provider calls run on many threads, and two `print`s could
    otherwise interleave into one merged line. A line starting with "warning:" is a warning.
    """
    message = mask(message, secrets)
    output = _OUTPUT
    if output is not None:
        # The engine prints a warning's severity itself ("warning: ..."): the line's own prefix goes.
        warning = message.lower().startswith("warning:")
        output((message[len("warning:"):].lstrip() if warning else message).rstrip("\n"), "warning" if warning else "info")
        return
    with _OUTPUT_LOCK:
        sys.stderr.write(message.rstrip("\n") + "\n")
        sys.stderr.flush()

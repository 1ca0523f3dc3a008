"""The URN of the resource whose provider call runs in this context, on both front doors.

The provider plugin receives each call's URN first-hand and sets it around the call (plugin/provider.py); the
dynamic-provider server's handlers are wrapped once (provider_server.clean_errors) to set it from the request.
Lines are attached to it (plugin/diagnostics.py), and ownership compares the stack it names: a copied state
carries the original stack's owner marks, its URNs name the copy (core/ownership.py).
"""

from __future__ import annotations

import contextvars
import sys

CURRENT_URN: contextvars.ContextVar[str] = contextvars.ContextVar("modelarts_current_urn", default="")


def current_urn() -> str:
    return CURRENT_URN.get() or _served_request_urn()


def _served_request_urn() -> str:
    """The URN of the engine's request this thread serves, read from the SDK handler's frame (`request`): the
    dynamic-provider server's first calls run before its handlers are wrapped (they are wrapped while the first
    call configures the provider), so they set no URN; a copied stack's `destroy` starts with such a call."""
    frame = sys._getframe(1)
    while frame is not None:
        urn = getattr(frame.f_locals.get("request"), "urn", None)
        if isinstance(urn, str) and urn.startswith("urn:pulumi:"):
            return urn
        frame = frame.f_back
    return ""


def stack_of_urn(urn: str) -> str | None:
    """`project/stack` of `urn:pulumi:<stack>::<project>::<type>::<name>`."""
    if not urn.startswith("urn:pulumi:") or "::" not in urn:
        return None
    head = urn.split("::")
    stack = head[0][len("urn:pulumi:"):]
    return f"{head[1]}/{stack}" if len(head) > 2 and stack and head[1] else None


def current_stack() -> str | None:
    """`project/stack` of the resource whose call runs now, when the call named it."""
    return stack_of_urn(current_urn())

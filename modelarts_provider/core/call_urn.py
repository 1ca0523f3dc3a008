"""The URN of the resource whose provider call runs in this context, on both front doors.

The provider plugin receives each call's URN first-hand and sets it around the call (plugin/provider.py); the
dynamic-provider server's handlers are wrapped once (provider_base.clean_errors) to set it from the request.
Lines are attached to it (plugin/diagnostics.py), and ownership compares the stack it names: a copied state
carries the original stack's owner marks, its URNs name the copy (core/ownership.py).
"""

from __future__ import annotations

import contextvars

CURRENT_URN: contextvars.ContextVar[str] = contextvars.ContextVar("modelarts_current_urn", default="")


def current_urn() -> str:
    return CURRENT_URN.get()


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

"""Conditions more than one wait uses."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .engine import Condition, Done, Failed


def gone(read: Callable[[], Any], too_late: str, *, answer: Any = Any) -> Condition[Any, None]:
    """Until the service no longer has the object (`read` answers None): deletes are asynchronous."""
    return Condition("gone", read, judge=lambda live: Done(None) if live is None else None,
                     too_late=lambda _live: Failed(too_late), answer=answer)

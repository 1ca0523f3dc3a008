"""What a catalog failure adds after the unknown value: the close matches (did you mean ...?), else some of
the known values; and what it says instead of a secret value. Shared by the catalog checks of flavors,
engines and algorithms (catalog_check.py) and of search algorithms (search_check.py)."""

from __future__ import annotations

import difflib
from typing import Any

# How many known values a message lists when none is close.
LISTED = 8
# What a message says instead of a secret value (no close matches either: they would tell it).
SECRET_SHOWN = "(a secret value, not shown)"


def close_matches(value: str, known: Any, *, cutoff: float = 0.6, margin: float = 0.05) -> list[str]:
    """The known values closest to `value` (difflib, case-insensitive): the best, and up to two more
    nearly as close (within `margin` of its score), so a one-letter typo gets one answer, not three."""
    scored = sorted(((difflib.SequenceMatcher(None, value.lower(), k.lower()).ratio(), k) for k in known),
                    key=lambda x: (-x[0], x[1]))
    scored = [(r, k) for r, k in scored if r >= cutoff]
    return [k for r, k in scored[:3] if r >= scored[0][0] - margin] if scored else []


def did_you_mean(value: str, known: list[str] | set[str] | frozenset[str], what: str) -> str:
    """'; did you mean x?' with the close matches, else the known values (some of them)."""
    close = close_matches(value, known)
    if close:
        return "; did you mean " + (close[0] if len(close) == 1 else ", ".join(close[:-1]) + " or " + close[-1]) + "?"
    if not known:
        return f"; the catalog lists no {what}"
    listed = sorted(known)
    more = f" ({len(listed)} in all)" if len(listed) > LISTED else ""
    return f"; known {what}: {', '.join(listed[:LISTED])}{more}"

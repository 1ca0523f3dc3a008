"""printable(): every line the results, status and failure reports print passes through here.

One place, so that masking what is printed (secret values, issue 20) applies to all of it. Today it
drops control characters (a log line or a job name must not move the terminal's cursor).
"""

from __future__ import annotations

import re

from ..core.masking import Secrets, mask

_CONTROL = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|[\x00-\x08\x0b-\x1f\x7f]")


def printable(text: str, secrets: Secrets | None = None) -> str:
    """`text` fit to print: control characters (ANSI sequences included) removed, newlines kept, and the one
    masking step (masking.py: the secrets of what it shows, else the running call's, and secret-looking shapes)."""
    return mask(_CONTROL.sub("", text), secrets)


def duration_text(seconds: float | None) -> str:
    """A run's duration as a person reads it: 42s, 3m05s, 2h07m ("-" when unknown). Here, not in table.py: `status`
    prints durations without loading the results' models (issue 56: under a second)."""
    if seconds is None:
        return "-"
    s = int(round(seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"

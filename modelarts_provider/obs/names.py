"""OBS naming rules, checked before any API call."""

from __future__ import annotations

import ipaddress
import re

__all__ = ["BUCKET_RULE", "bucket_name_problem"]

# the stack config's words for the pattern (messages.py), and OBS's further rules
BUCKET_RULE = ("3-63 characters: lowercase letters, digits, dots, hyphens; starts and ends with a letter "
               "or digit; no '..', '.-' or '-.'; not an IP address")
_BUCKET_RE = re.compile(r"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]\Z")


def bucket_name_problem(name: object) -> str | None:
    """None when ``name`` is a valid OBS bucket name; else a one-line reason naming the rule."""
    if not isinstance(name, str):
        return f"expected a bucket name ({BUCKET_RULE}), got {type(name).__name__}"
    valid = bool(_BUCKET_RE.match(name)) and not any(s in name for s in ("..", ".-", "-."))
    if valid:
        try:
            ipaddress.IPv4Address(name)
            valid = False
        except ValueError:
            pass
    return None if valid else f"{name!r} is not a valid bucket name: {BUCKET_RULE}"

"""The command-line tools' one error: a one-line reason the command cannot go on (no secrets)."""

from __future__ import annotations


class LogsError(Exception):
    """A one-line reason the command cannot go on (no secrets)."""

"""The error a provider call raises when it cannot proceed."""

from __future__ import annotations

from .masking import Secrets, mask


class ProviderError(Exception):
    """A provider call that cannot proceed; the message is one line, names the job, no secrets (it passes
    the masking step: `secrets`, else the running call's own (masking.binding), and secret-looking shapes)."""

    def __init__(self, message: object = "", secrets: Secrets | None = None) -> None:
        super().__init__(mask(str(message), secrets))

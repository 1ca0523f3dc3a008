"""The owner token a live job carries in its annotations: the one part of the owner mark the client reads
itself (an ambiguous create is resolved by name and this token, so a colleague's job of the same name is
never taken for ours). What the mark means and who writes it: core/ownership.py, which builds on this."""

from __future__ import annotations

from collections.abc import Mapping

PREFIX = "modelarts-pulumi/"
TOKEN_ANNOTATION = PREFIX + "token"


def token_on(annotations: Mapping[str, str] | None) -> str | None:
    """The owner token a live job carries, if any."""
    return (annotations or {}).get(TOKEN_ANNOTATION)

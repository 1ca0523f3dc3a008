"""diff(): every CreateNetwork field replaces (nothing of a network changes in place); options do not."""

from __future__ import annotations

from typing import Any

from .args import OPTIONS, REPLACING, NetworkArgs


def replaced_fields(olds: dict[str, Any], news: dict[str, Any]) -> list[str]:
    return [k for k in REPLACING if olds.get(k) != news.get(k)]


def option_changes(olds: dict[str, Any], news: dict[str, Any]) -> list[str]:
    """Provider options that changed; the state holds their defaults, a declaration may leave them out."""
    fields = NetworkArgs.model_fields
    return [k for k in OPTIONS
            if olds.get(k, fields[k].default) != news.get(k, fields[k].default)]

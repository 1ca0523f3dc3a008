"""diff(): every CreateNetwork field replaces (nothing of a network changes in place); options do not."""

from __future__ import annotations

from typing import Any

from .args import REPLACING


def replaced_fields(olds: dict[str, Any], news: dict[str, Any]) -> list[str]:
    return [k for k in REPLACING if olds.get(k) != news.get(k)]


def option_changes(olds: dict[str, Any], news: dict[str, Any]) -> list[str]:
    return [k for k in ("timeout_seconds", "poll_interval_seconds") if olds.get(k) != news.get(k)]

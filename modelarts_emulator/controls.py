"""Test controls behind ``/_emulator/*``: per-operation request counters and fault injection.

Counters count every API request that reached an operation (including refused and faulted ones),
so a test can assert that a command made no API calls at all. Controls themselves are not counted.
"""

from __future__ import annotations

import threading

from .wire import FaultRule

OPERATIONS = ("create", "get", "terminate", "delete", "update", "search", "logs", "iam_token",
              "flavors", "engines", "algorithm")  # the last three: catalog reads (catalog_api.py)


class Counters:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counts = dict.fromkeys(OPERATIONS, 0)

    def incr(self, operation: str) -> None:
        with self._lock:
            self._counts[operation] = self._counts.get(operation, 0) + 1

    def snapshot(self) -> dict[str, int]:
        with self._lock:
            out = dict(self._counts)
        out["total"] = sum(out.values())
        return out

    def reset(self) -> None:
        with self._lock:
            self._counts = dict.fromkeys(OPERATIONS, 0)


class Faults:
    """Rules applied, in order, to the next ``times`` matching calls each."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._rules: list[list] = []  # [rule, remaining]

    def replace(self, rules: list[FaultRule]) -> None:
        with self._lock:
            self._rules = [[r, r.times] for r in rules]

    def clear(self) -> None:
        self.replace([])

    def take(self, operation: str) -> FaultRule | None:
        """The first live rule matching ``operation`` (consuming one of its uses), or None."""
        with self._lock:
            for entry in self._rules:
                rule, remaining = entry
                if remaining > 0 and rule.operation in (operation, "any"):
                    entry[1] = remaining - 1
                    return rule
        return None

    def remaining(self) -> list[dict]:
        with self._lock:
            return [{**r.model_dump(), "remaining": n} for r, n in self._rules if n > 0]

"""Request counters and fault injection (the ``/_obs/counters`` and ``/_obs/faults`` controls).

A fault rule applies to the next ``times`` requests of one operation (or ``any``), after letting
``after`` of them through: ``{"operation": "put_object", "kind": "status", "status": 503,
"after": 5, "times": 100}`` lets five uploads succeed and answers the next hundred with 503;
``"kind": "reset"`` closes the connection with an RST and no answer instead. The request a fault
hits is never applied (the body is read and dropped).
"""

from __future__ import annotations

import threading
from collections import Counter
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Operation = Literal[
    "list_buckets", "create_bucket", "head_bucket", "delete_bucket", "list_objects",
    "bucket_config", "delete_objects", "put_object", "upload_part", "copy_object", "get_object",
    "head_object", "delete_object", "multipart", "other", "any",
]


class FaultRule(BaseModel):
    model_config = ConfigDict(extra="forbid")

    operation: Operation = "any"
    kind: Literal["status", "reset"] = "status"
    status: Literal[400, 403, 404, 409, 429, 500, 502, 503, 504] = 503
    retry_after: float | None = Field(default=None, ge=0)
    after: int = Field(default=0, ge=0)  # matching requests let through first
    times: int = Field(default=1, ge=1)


class FaultRules(BaseModel):
    model_config = ConfigDict(extra="forbid")

    rules: list[FaultRule]


class _Armed:
    def __init__(self, rule: FaultRule) -> None:
        self.rule = rule
        self.skip = rule.after
        self.left = rule.times


def operation_of(method: str, bucket: str | None, key: str | None, query: dict[str, str]) -> str:
    """The S3 operation a path-style request is (for counters and fault matching)."""
    method = method.upper()
    if not bucket:
        return "list_buckets" if method == "GET" else "other"
    if not key:
        sub = set(query) - {"list-type", "prefix", "delimiter", "max-keys", "marker",
                            "continuation-token", "start-after", "encoding-type", "fetch-owner"}
        if method == "POST" and "delete" in query:
            return "delete_objects"
        if sub:
            return "bucket_config"
        return {"PUT": "create_bucket", "HEAD": "head_bucket", "DELETE": "delete_bucket",
                "GET": "list_objects"}.get(method, "other")
    if "uploads" in query or (method == "POST" and "uploadId" in query):
        return "multipart"
    if method == "PUT":
        return "upload_part" if "uploadId" in query else "put_object"
    return {"GET": "get_object", "HEAD": "head_object", "DELETE": "delete_object"}.get(method, "other")


class Controls:
    """Counters and armed fault rules, shared by the server's threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counts: Counter[str] = Counter()
        self._rules: list[_Armed] = []

    def count(self, operation: str) -> None:
        with self._lock:
            self._counts[operation] += 1
            self._counts["total"] += 1

    def counters(self) -> dict[str, int]:
        with self._lock:
            return {"total": 0, **dict(self._counts)}

    def set_rules(self, rules: list[FaultRule]) -> None:
        with self._lock:
            self._rules = [_Armed(r) for r in rules]

    def clear(self) -> None:
        with self._lock:
            self._counts.clear()
            self._rules = []

    def fault_for(self, operation: str) -> FaultRule | None:
        """The rule this request triggers, if any (consumes one use of it)."""
        with self._lock:
            for armed in self._rules:
                if armed.rule.operation not in ("any", operation) or armed.left <= 0:
                    continue
                if armed.skip > 0:
                    armed.skip -= 1
                    continue
                armed.left -= 1
                return armed.rule
            return None

    def faults_left(self) -> int:
        with self._lock:
            return sum(a.left for a in self._rules)

"""``ObsError``: one line naming the operation, bucket/key and the S3 error code; never a secret."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from ..client.errors import error_line

__all__ = ["ObsError", "ObsConfigError", "CLIENT_CONNECTION", "CLIENT_TIMEOUT", "bare_status_code"]

CLIENT_CONNECTION = "Client.ConnectionError"
CLIENT_TIMEOUT = "Client.Timeout"
_WS = re.compile(r"\s+")


def bare_status_code(status: int | str) -> str:
    """An answer without an error body (a HEAD, a web server's page) named by its status in S3's words."""
    return {"404": "NotFound", "403": "AccessDenied", "400": "BadRequest"}.get(str(status), f"HTTP{status}")


def _one_line(text: str, limit: int = 300) -> str:
    text = _WS.sub(" ", text).strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


class ObsConfigError(ValueError):
    """Missing or unusable OBS settings; the message names keys, never values."""


class ObsError(Exception):
    """An OBS call that failed (after the retries that were safe).

    ``str(err)``: ``OBS put_object my-bucket/code/train.py: SlowDown (HTTP 503): Please reduce your
    request rate [request 0000018A...]``. Attributes: op, bucket, key, code, status, request_id.
    """

    def __init__(self, op: str, bucket: str | None, key: str | None, code: str, *,
                 status: int | None = None, message: str = "", request_id: str | None = None,
                 secrets: Iterable[str | None] = ()) -> None:
        self.op, self.bucket, self.key, self.code = op, bucket, key, code
        self.status, self.request_id = status, request_id
        for s in secrets:
            if s and len(s) >= 4:
                message = message.replace(s, "***")
        self.message = _one_line(message)
        super().__init__(self._format())

    def _format(self) -> str:
        where = "/".join(p for p in (self.bucket, self.key) if p)
        head = f"OBS {self.op}" + (f" {where}" if where else "") + f": {self.code}"
        return error_line(head, self.status, self.message, self.request_id)

    @property
    def not_found(self) -> bool:
        """OBS said, in its own documented codes, that the bucket or object does not exist. A bare 404
        (a HEAD answer has no body, a wrong endpoint's web server) is not enough to call a thing gone."""
        return self.code in NOT_FOUND_CODES

    def __reduce__(self) -> Any:  # picklable across processes with its fields, never secrets
        return (_rebuild, (self.__dict__.copy(),))


NOT_FOUND_CODES = frozenset({"NoSuchBucket", "NoSuchKey"})


def _rebuild(state: dict[str, Any]) -> ObsError:
    err = ObsError.__new__(ObsError)
    err.__dict__.update(state)
    Exception.__init__(err, err._format())
    return err

"""Client errors: one exception type (``ModelArtsError``) with a one-line message, no secrets.

``str(err)`` reads like::

    ModelArts.2755 algorithm not found (HTTP 400): Check whether the training project information in the request is valid. [request 5f0c...]

Waiting for jobs is not the client's: the awaiting resource (modelarts_provider.awaiting) polls many
jobs at once and reports failures itself.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any, Callable, Iterable, Optional

if TYPE_CHECKING:  # pragma: no cover
    import requests


__all__ = [
    "ModelArtsError",
    "JOB_NOT_FOUND",
    "DUPLICATE_NAME",
    "CLIENT_CONNECTION",
    "CLIENT_TIMEOUT",
    "CLIENT_CANCELLED",
    "CLIENT_BAD_RESPONSE",
    "CLIENT_AMBIGUOUS_CREATE",
    "GATEWAY_NO_API",
    "ALGORITHM_NOT_FOUND",
    "redact",
]

JOB_NOT_FOUND = "ModelArts.2775"
DUPLICATE_NAME = "ModelArts.2751"
CANNOT_TERMINATE = "ModelArts.2796"
ALGORITHM_NOT_FOUND = "ModelArts.2755"  # "algorithm not found." (the create API's documented example)
GATEWAY_NO_API = "APIGW.0101"  # the gateway's "API does not exist or has not been published"

# error codes of failures detected by the client itself (no usable HTTP response)
CLIENT_CONNECTION = "Client.ConnectionError"
CLIENT_TIMEOUT = "Client.Timeout"
CLIENT_CANCELLED = "Client.Cancelled"  # a call cut because its caller stopped waiting (the engine's Cancel)
CLIENT_BAD_RESPONSE = "Client.BadResponse"
CLIENT_AMBIGUOUS_CREATE = "Client.AmbiguousCreate"
CLIENT_AUTH = "Client.AuthError"

_MAX_PART = 500
_WS = re.compile(r"\s+")

# The product's one masking step (core/masking.py). The client sits below core and cannot import it: core hands
# it in when it makes the client's settings (ProviderSettings.to_client_settings); a program that builds its
# ClientSettings itself (the client alone) replaces the client's own secrets only.
_mask: Callable[[str], str] = str


def mask_errors_with(mask: Callable[[str], str]) -> None:
    """Every error message made from now on passes `mask` (after the client's own secrets are replaced)."""
    global _mask
    _mask = mask


def redact(text: str, secrets: Iterable[Optional[str]] = ()) -> str:
    """Replace every occurrence of each (non-trivial) secret value with ``***``, then pass the text through
    the one masking step (the running provider call's secrets, secret-looking shapes) handed in by core."""
    for s in secrets:
        if s and len(s) >= 4:
            text = text.replace(s, "***")
    return _mask(text)


def _one_line(value: Any, limit: int = _MAX_PART) -> str:
    text = _WS.sub(" ", str(value)).strip()
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return text



def error_line(head: str, status: int | None, detail: str | None, request_id: str | None) -> str:
    """The one line a cloud API error reads as, ModelArts or OBS: ``HEAD (HTTP n): detail [request id]``,
    each part left out when unknown (the request id is what the cloud's support asks for)."""
    if status is not None:
        head += f" (HTTP {status})"
    if detail:
        head += f": {detail}"
    if request_id:
        head += f" [request {request_id}]"
    return head

class ModelArtsError(Exception):
    """Any failure of a ModelArts call.

    Attributes: ``status`` (HTTP status or None), ``error_code``, ``error_msg``, ``error_solution``,
    ``request_id``, ``method`` and ``path`` of the request (never headers, bodies or secrets).
    """

    def __init__(
        self,
        error_msg: str,
        *,
        status: Optional[int] = None,
        error_code: Optional[str] = None,
        error_solution: Optional[str] = None,
        request_id: Optional[str] = None,
        method: Optional[str] = None,
        path: Optional[str] = None,
        secrets: Iterable[Optional[str]] = (),
        endpoint_problem: bool = False,
    ) -> None:
        secrets = [s for s in secrets if s]
        self.status = status
        # The endpoint itself is wrong (no API there, nothing listening): retrying cannot help.
        self.endpoint_problem = endpoint_problem
        self.error_code = _one_line(redact(error_code, secrets), 100) if error_code else None
        self.error_msg = _one_line(redact(error_msg or "", secrets))
        self.error_solution = (
            _one_line(redact(error_solution, secrets)) if error_solution else None
        )
        self.request_id = _one_line(request_id, 100) if request_id else None
        self.method = method
        self.path = path
        super().__init__(self._format())

    def _format(self) -> str:
        head = " ".join(p for p in (self.error_code, self.error_msg.rstrip(".")) if p)
        # a message of dots only leaves no head: no leading space before "(HTTP ...)"
        return error_line(head, self.status, self.error_solution, self.request_id).strip()

    @property
    def message(self) -> str:
        return str(self)

    @property
    def retryable(self) -> bool:
        """True for throttling, server errors and connection problems (not a wrong endpoint)."""
        if getattr(self, "endpoint_problem", False):
            return False
        if self.status is None:
            return self.error_code in (CLIENT_CONNECTION, CLIENT_TIMEOUT)
        return self.status == 429 or self.status >= 500

    @property
    def is_not_found(self) -> bool:
        """The job does not exist: only the documented ModelArts.2775 says so.

        Any other 404 (e.g. the gateway's APIGW.0101 "The API does not exist or has not been
        published", from a wrong endpoint or path prefix) says nothing about the job: it is an error.
        """
        return self.error_code == JOB_NOT_FOUND

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(status={self.status!r}, error_code={self.error_code!r}, "
            f"error_msg={self.error_msg!r}, request_id={self.request_id!r})"
        )

    def __reduce__(self):  # picklable across processes (keeps the fields, never secrets)
        return (_rebuild, (type(self), self.__dict__.copy()))

    @classmethod
    def from_response(
        cls,
        response: "requests.Response",
        *,
        secrets: Iterable[Optional[str]] = (),
    ) -> "ModelArtsError":
        """Build the error from an HTTP error response (ModelArts, API gateway or IAM body)."""
        code, msg, solution, body_request_id = parse_error_body(response.content)
        request_id = (
            response.headers.get("X-Request-Id")
            or response.headers.get("x-request-id")
            or body_request_id
        )
        if not msg:
            msg = response.reason or "HTTP error"
        method = response.request.method if response.request is not None else None
        path = _path_of(response.request.url) if response.request is not None else None
        return cls(
            msg,
            status=response.status_code,
            error_code=code,
            error_solution=solution,
            request_id=request_id,
            method=method,
            path=path,
            secrets=secrets,
        )


def _rebuild(cls, state):
    obj = cls.__new__(cls)
    obj.__dict__.update(state)
    Exception.__init__(obj, obj._format())
    return obj


def _path_of(url: Optional[str]) -> Optional[str]:
    if not url:
        return None
    from urllib.parse import urlsplit

    return urlsplit(url).path


def parse_error_body(
    content: Optional[bytes],
) -> tuple[Optional[str], Optional[str], Optional[str], Optional[str]]:
    """(error_code, error_msg, error_solution, request_id) from any known error body shape."""
    if not content:
        return None, None, None, None
    try:
        body = json.loads(content)
    except (ValueError, UnicodeDecodeError):
        text = content[:300].decode("utf-8", "replace")
        return None, _one_line(text) or None, None, None
    if not isinstance(body, dict):
        return None, None, None, None
    code = body.get("error_code")
    msg = body.get("error_msg")
    solution = body.get("error_solution")
    request_id = body.get("request_id")
    err = body.get("error")
    if isinstance(err, dict):  # IAM: {"error": {"code": 401, "message": "...", "title": "..."}}
        code = code or (f"IAM.{err['code']}" if "code" in err else err.get("title"))
        msg = msg or err.get("message") or err.get("title")
    return (
        str(code) if code is not None else None,
        str(msg) if msg is not None else None,
        str(solution) if solution else None,
        str(request_id) if request_id else None,
    )

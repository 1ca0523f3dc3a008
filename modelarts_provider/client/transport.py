"""HTTP transport: one pooled ``requests.Session``, timeouts, urllib3 ``Retry`` per call class.

* One session, one ``HTTPAdapter`` (pool sized for the provider's concurrent threads); requests'
  ``Session.request`` is safe to call from several threads as long as session state is not mutated
  (we never do after construction; cookies are disabled).
* Every request has ``(connect_timeout, read_timeout)``.
* Retries are urllib3 ``Retry`` objects (``BoundedRetry``), chosen per call:
  - ``idempotent=True`` (GET, PUT, DELETE, terminate, searches, IAM token): 429 and 5xx, connection
    errors, resets and read timeouts are retried with exponential backoff + jitter, ``Retry-After``
    honoured, the whole call bounded by ``retry_total_s``;
  - ``idempotent=False`` (create): only failures where nothing reached the server (connect errors)
    and 429 (the gateway refused it before the service saw it) are retried; a reset, read timeout or
    5xx surfaces to the caller, which must resolve the ambiguity (``api.create_job``).
* A refused connection to an address that has not answered yet in this process is not retried: it
  is a wrong endpoint or a service that is not running (``is_refused``), not a blip; once an address
  answered, a refusal (a restart) is retried like any connection error.
* 401 with an IAM token: the token is invalidated and the request re-sent once with a new token.
* Every call has an overall deadline (call_limits.py): the retry budget plus one connect and read timeout, or
  the earlier deadline of the scope it runs in (a wait's); a call past it, or whose scope's abort test says so
  (the engine's Cancel, in a wait), has its socket shut and fails with ``CallCut``, whatever the server does
  (a slow drip, a stalled TLS handshake, a half-open connection). A cut call is not retried.
"""

from __future__ import annotations

import email.utils
import logging
import random
import re
import threading
import time
from dataclasses import dataclass
from typing import Any, Iterable, Optional, Union

from urllib.parse import urlsplit

import requests
from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.exceptions import MaxRetryError, NewConnectionError, ResponseError
from urllib3.util.retry import Retry

from .call_limits import attach as attach_call, call as limited_call, current as current_call, detach as detach_call
from .errors import CLIENT_CANCELLED, CLIENT_CONNECTION, CLIENT_TIMEOUT, ModelArtsError

__all__ = ["RetryPolicy", "BoundedRetry", "CallCut", "CreateRetry", "Transport", "is_refused", "is_unsent_error",
           "origin"]

log = logging.getLogger("modelarts_provider.client.http")

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
_FLOAT_RE = re.compile(r"^\s*[0-9]+(\.[0-9]+)?\s*$")


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 4  # per call, after the first attempt
    backoff_factor: float = 0.5  # sleeps ~0.5, 1, 2, 4 ... s
    backoff_max: float = 8.0
    backoff_jitter: float = 0.5
    retry_after_max: float = 60.0  # a longer Retry-After ends the retries (the error surfaces)
    total_s: float = 60.0  # no retry is started that would end after this budget


class BoundedRetry(Retry):
    """urllib3 ``Retry`` with a wall-clock budget, backoff from the first retry, float Retry-After.

    ``deadline`` (``time.monotonic()`` value) is set per call by :meth:`for_call`; an ``increment``
    whose next sleep would pass it raises ``MaxRetryError`` (for status retries urllib3 then returns
    the last response, so the caller sees the server's error body).
    """

    deadline: Optional[float] = None
    refused_is_final: bool = False  # a refused connection ends the call (see the module docstring)

    def new(self, **kw: Any) -> "BoundedRetry":
        r = super().new(**kw)
        r.deadline = self.deadline
        r.refused_is_final = self.refused_is_final
        return r

    def for_call(self, budget_s: float, *, refused_is_final: bool = False) -> "BoundedRetry":
        r = self.new()
        r.deadline = time.monotonic() + budget_s
        r.refused_is_final = refused_is_final
        return r

    def get_backoff_time(self) -> float:
        consecutive = 0
        for h in reversed(self.history):
            if h.redirect_location is not None:
                break
            consecutive += 1
        if consecutive == 0:
            return 0.0
        value = self.backoff_factor * (2 ** (consecutive - 1))
        if self.backoff_jitter:
            value += random.random() * self.backoff_jitter
        return float(max(0.0, min(self.backoff_max, value)))

    def parse_retry_after(self, retry_after: str) -> float:
        if _FLOAT_RE.match(retry_after):
            seconds = max(float(retry_after), 0.0)
            return min(seconds, self.retry_after_max)
        return super().parse_retry_after(retry_after)

    def _planned_sleep(self, response: Any) -> float:
        if response is not None and self.respect_retry_after_header:
            try:
                after = self.get_retry_after(response)
            except Exception:  # invalid header: fall back to backoff
                after = None
            if after is not None:
                return after
        return self.get_backoff_time()

    def _requested_delay(self, response: Any) -> Optional[float]:
        """The server's Retry-After in seconds (uncapped), or None."""
        raw = response.headers.get("Retry-After") if response is not None else None
        if raw is None:
            return None
        if _FLOAT_RE.match(raw):
            return float(raw)
        parsed = email.utils.parsedate_tz(raw)
        if parsed is None:
            return None
        return max(email.utils.mktime_tz(parsed) - time.time(), 0.0)

    def increment(self, method=None, url=None, response=None, error=None, _pool=None, _stacktrace=None):
        if response is not None and error is None:
            delay = self._requested_delay(response)
            if delay is not None and delay > self.retry_after_max:
                # the server asks for a longer pause than we are willing to block for
                raise MaxRetryError(_pool, url, ResponseError(f"Retry-After {delay:g}s is too long"))
        if self.refused_is_final and error is not None and is_refused(error):
            raise MaxRetryError(_pool, url, error)
        running = current_call()
        if running is not None and running.why_cut() is not None:  # cut (deadline, cancel): no retry
            raise MaxRetryError(_pool, url, error or ResponseError(f"call {running.why_cut()}"))
        new = super().increment(method, url, response, error, _pool, _stacktrace)
        if self.deadline is not None and time.monotonic() + new._planned_sleep(response) > self.deadline:
            reason = error or ResponseError(
                f"retry budget exhausted (last status {getattr(response, 'status', None)})"
            )
            raise MaxRetryError(_pool, url, reason)
        log.info("retrying %s %s (%s)", method, _path(url), _retry_reason(response, error))
        return new


class CreateRetry(BoundedRetry):
    """Retry for non-idempotent calls: only statuses in ``status_forcelist`` (429), never 503 just
    because it carries Retry-After (urllib3's default), and never read errors (``read=False``)."""

    def is_retry(self, method: str, status_code: int, has_retry_after: bool = False) -> bool:
        return bool(self.status_forcelist and status_code in self.status_forcelist)


def _retry_reason(response: Any, error: Any) -> str:
    if error is not None:
        return type(error).__name__
    return f"HTTP {getattr(response, 'status', '?')}"


def _path(url: Optional[str]) -> str:
    if not url:
        return ""
    return url.split("?", 1)[0]


class CallCut(requests.exceptions.Timeout):
    """A call ended by its overall deadline or its scope's abort test (call_limits.py), not by the server."""

    def __init__(self, why: str, seconds: float) -> None:
        self.why = why  # "deadline" | "aborted"
        self.seconds = seconds
        super().__init__(f"no complete answer within {seconds:.3g} s (the call's deadline)" if why == "deadline"
                         else "stopped: the caller stopped waiting (cancelled)")


class _Watched:
    """A pool whose connections are attached to the call using them (call_limits.py), so it can be cut."""

    def _get_conn(self, timeout: float | None = None) -> Any:
        conn = super()._get_conn(timeout)  # type: ignore[misc]
        attach_call(conn)
        return conn

    def _put_conn(self, conn: Any) -> None:
        if conn is not None:
            detach_call(conn)
        super()._put_conn(conn)  # type: ignore[misc]


class _RawFd:
    """A connection that remembers its TCP socket's descriptor: during a TLS handshake the socket object it
    holds has handed its descriptor to the TLS socket being made, which only the descriptor still reaches."""

    raw_fd: int | None = None

    def _new_conn(self) -> Any:
        sock = super()._new_conn()  # type: ignore[misc]
        self.raw_fd = sock.fileno()
        return sock


class _WatchedHTTPConnection(_RawFd, HTTPConnection):
    pass


class _WatchedHTTPSConnection(_RawFd, HTTPSConnection):
    pass


class _WatchedHTTPPool(_Watched, HTTPConnectionPool):
    ConnectionCls = _WatchedHTTPConnection


class _WatchedHTTPSPool(_Watched, HTTPSConnectionPool):
    ConnectionCls = _WatchedHTTPSConnection


_WATCHED_POOLS = {"http": _WatchedHTTPPool, "https": _WatchedHTTPSPool}


class _SelectableRetryAdapter(HTTPAdapter):
    """HTTPAdapter whose ``max_retries`` can be chosen per call (thread-local), same pool."""

    def __init__(self, default_retry: Retry, **kw: Any) -> None:
        self._local = threading.local()
        self._default_retry = default_retry
        super().__init__(max_retries=default_retry, **kw)

    @property
    def max_retries(self) -> Retry:  # type: ignore[override]
        r = getattr(self._local, "retry", None)
        return r if r is not None else self._default_retry

    @max_retries.setter
    def max_retries(self, value: Retry) -> None:
        self._default_retry = value

    def use(self, retry: Optional[Retry]) -> None:
        self._local.retry = retry

    def init_poolmanager(self, *args: Any, **kw: Any) -> None:
        super().init_poolmanager(*args, **kw)
        self.poolmanager.pool_classes_by_scheme = _WATCHED_POOLS

    def proxy_manager_for(self, proxy: str, **kw: Any) -> Any:
        manager = super().proxy_manager_for(proxy, **kw)
        manager.pool_classes_by_scheme = _WATCHED_POOLS
        return manager

    def __getstate__(self):  # pragma: no cover - adapters are not pickled in practice
        state = super().__getstate__()
        state.pop("_local", None)
        return state


def origin(url: str) -> str:
    """scheme://host:port of a URL: what a refused connection is about."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def is_refused(exc: BaseException) -> bool:
    """A connection refused (nothing listens at the address), anywhere in a requests/urllib3 chain."""
    seen: set[int] = set()
    todo: list[Any] = [exc]
    while todo:
        e = todo.pop()
        if not isinstance(e, BaseException) or id(e) in seen:
            continue
        seen.add(id(e))
        if isinstance(e, ConnectionRefusedError):
            return True
        todo += [e.__cause__, e.__context__, getattr(e, "reason", None), *e.args[:1]]
    return False


def is_unsent_error(exc: BaseException) -> bool:
    """True when the request certainly never reached the server (connect failure/timeout)."""
    if isinstance(exc, requests.exceptions.ConnectTimeout):
        return True
    if isinstance(exc, requests.exceptions.ProxyError):
        return True
    if isinstance(exc, requests.exceptions.SSLError):
        return True
    if isinstance(exc, requests.exceptions.ConnectionError):
        inner = exc.args[0] if exc.args else None
        if isinstance(inner, MaxRetryError):
            inner = inner.reason
        return isinstance(inner, NewConnectionError)
    return False


class _NoCookies(requests.cookies.RequestsCookieJar):
    def set_cookie(self, *args: Any, **kwargs: Any) -> None:  # never store server cookies
        return None


class Transport:
    """The shared HTTP layer of a client (thread-safe)."""

    def __init__(
        self,
        *,
        verify: Union[bool, str] = True,
        connect_timeout: float = 5.0,
        read_timeout: float = 30.0,
        retry: RetryPolicy = RetryPolicy(),
        pool_maxsize: int = 16,
        user_agent: str = "modelarts-pulumi-client/0.1",
        secrets: "Iterable[str] | None" = None,
    ) -> None:
        self.timeout = (connect_timeout, read_timeout)
        self.policy = retry
        self._secrets_provider = None
        common = dict(
            backoff_factor=retry.backoff_factor,
            backoff_max=retry.backoff_max,
            backoff_jitter=retry.backoff_jitter,
            retry_after_max=retry.retry_after_max,
            respect_retry_after_header=True,
            raise_on_status=False,
            raise_on_redirect=False,
            redirect=0,
        )
        n = retry.max_retries
        self.idempotent_retry = BoundedRetry(
            total=n, connect=n, read=n, status=n, other=0,
            allowed_methods=None,  # the caller decides idempotency, not the HTTP method
            status_forcelist=RETRY_STATUSES, **common,
        )
        self.create_retry = CreateRetry(
            total=n, connect=n, read=False, status=n, other=0,
            allowed_methods=None,
            status_forcelist=frozenset({429}), **common,
        )
        self.adapter = _SelectableRetryAdapter(
            self.idempotent_retry, pool_connections=4, pool_maxsize=pool_maxsize, pool_block=False
        )
        s = requests.Session()
        s.mount("https://", self.adapter)
        s.mount("http://", self.adapter)
        s.verify = verify
        s.trust_env = True  # proxies from the environment; CA bundle is explicit via `verify`
        s.cookies = _NoCookies()
        s.headers.update({"User-Agent": user_agent, "Accept": "application/json"})
        self.session = s
        self._static_secrets = [x for x in (secrets or []) if x]
        self._answered: set[str] = set()  # origins that gave an HTTP response in this process

    def set_secret_provider(self, provider) -> None:
        """A callable returning the current secret values (for redaction of error texts)."""
        self._secrets_provider = provider

    def secrets(self) -> list[str]:
        out = list(self._static_secrets)
        if self._secrets_provider is not None:
            out.extend(s for s in self._secrets_provider() if s)
        return out

    def close(self) -> None:
        self.session.close()

    def connections_opened(self) -> int:
        """TCP connections opened so far by this transport's pools (for tests and benchmarks)."""
        return connections_opened(self.session)

    def request(
        self,
        method: str,
        url: str,
        *,
        auth: Optional[requests.auth.AuthBase],
        idempotent: bool,
        json_body: Any = None,
        params: Optional[dict] = None,
        timeout: Optional[tuple[float, float]] = None,
        content_type: Optional[str] = None,
    ) -> requests.Response:
        """Send one logical call (with its retries). Returns any HTTP response, errors included.
        `content_type` replaces application/json as the JSON body's media type (it is signed as sent).

        Raises ``requests.RequestException`` when no response was obtained (callers classify it).
        """
        final = self.never_answered(url)
        started = time.monotonic()
        headers = {"Content-Type": content_type} if content_type else None
        with limited_call(self.call_deadline_s(timeout)) as running:
            try:
                response = self._send(method, url, auth, self._retry(idempotent, final), json_body, params, timeout,
                                      headers)
                if response.status_code == 401 and hasattr(auth, "invalidate"):
                    used = response.request.headers.get("X-Auth-Token") if response.request is not None else None
                    auth.invalidate(used)  # type: ignore[union-attr]
                    log.info("401 with an IAM token: renewing the token and re-sending %s %s once", method,
                             _path(url))
                    response = self._send(method, url, auth, self._retry(idempotent, final), json_body, params,
                                          timeout, headers)
                if running.shut:  # an answer read to a shut socket's end: cut short, whatever it looks like
                    raise requests.exceptions.ConnectionError("the call's connection was shut")
            except requests.RequestException:
                why = running.why_cut()
                if why is not None:
                    raise CallCut(why, running.deadline - started) from None
                raise
        log.debug(
            "%s %s -> %s in %.3fs [request %s]", method, _path(url), response.status_code,
            time.monotonic() - started, response.headers.get("X-Request-Id", "-"),
        )
        return response

    def call_deadline_s(self, timeout: Optional[tuple[float, float]] = None) -> float:
        """How long one call may take at most, retries included: the retry budget (no retry starts after it)
        plus one connect and read timeout for the attempt that started last."""
        connect, read = timeout or self.timeout
        return self.policy.total_s + connect + read

    def _retry(self, idempotent: bool, refused_is_final: bool) -> BoundedRetry:
        return (self.idempotent_retry if idempotent else self.create_retry).for_call(
            self.policy.total_s, refused_is_final=refused_is_final)

    def never_answered(self, url: str) -> bool:
        """No HTTP response came from this URL's address yet in this process."""
        return origin(url) not in self._answered

    def _send(self, method, url, auth, retry, json_body, params, timeout, headers=None) -> requests.Response:
        self.adapter.use(retry)
        try:
            response = self.session.request(
                method,
                url,
                auth=auth,
                json=json_body,
                params=params,
                headers=headers,
                timeout=timeout or self.timeout,
                allow_redirects=False,
            )
            self._answered.add(origin(url))
            return response
        finally:
            self.adapter.use(None)

    def error_from_exception(self, exc: BaseException, method: str, url: str, *,
                             setting: str = "the endpoint") -> ModelArtsError:
        """A ModelArtsError for a request that produced no response (no secret in the text).

        `setting` names what sets the URL (e.g. `modelarts:endpoint`), for the hint of a refused
        connection to an address that never answered (not retried: see the module docstring)."""
        path = _path(url)
        if isinstance(exc, CallCut):
            return ModelArtsError(
                f"{method} {path} {exc}", error_code=CLIENT_TIMEOUT if exc.why == "deadline" else CLIENT_CANCELLED,
                error_solution="the server did not finish its answer in time (a slow or stalled connection); "
                               "the call was cut" if exc.why == "deadline" else None,
                method=method, path=path, secrets=self.secrets())
        if is_refused(exc) and self.never_answered(url):
            return ModelArtsError(
                f"{method} {path} failed: connection refused",
                error_code=CLIENT_CONNECTION,
                error_solution=f"nothing listens at {origin(url)}: fix {setting}, or start the service there "
                               "(not retried)",
                method=method, path=path, secrets=self.secrets(), endpoint_problem=True,
            )
        if isinstance(exc, requests.exceptions.Timeout):
            code, what = CLIENT_TIMEOUT, "timed out"
        else:
            code, what = CLIENT_CONNECTION, "failed"
        detail = _exc_summary(exc)
        return ModelArtsError(
            f"{method} {path} {what}: {detail}",
            error_code=code,
            error_solution="check the endpoint, the network and the service status; the call was retried",
            method=method,
            path=path,
            secrets=self.secrets(),
        )


def connections_opened(session: requests.Session) -> int:
    """Sum of urllib3 ``num_connections`` over every pool of every adapter of ``session``."""
    total = 0
    unique = {id(a): a for a in session.adapters.values()}  # one adapter may be mounted twice
    for adapter in unique.values():
        pools = adapter.poolmanager.pools
        for key in pools.keys():
            pool = pools.get(key)
            if pool is not None:
                total += pool.num_connections
    return total


def _exc_summary(exc: BaseException) -> str:
    """The innermost cause of a requests/urllib3 exception, one short line, without URLs' queries."""
    inner: Optional[BaseException] = exc
    seen = 0
    while inner is not None and seen < 6:
        nxt = None
        if inner.args and isinstance(inner.args[0], BaseException):
            nxt = inner.args[0]
        elif isinstance(inner, MaxRetryError) and inner.reason is not None:
            nxt = inner.reason
        elif inner.__cause__ is not None:
            nxt = inner.__cause__
        if nxt is None:
            break
        inner = nxt
        seen += 1
    text = f"{type(inner).__name__}: {inner}" if inner is not None else type(exc).__name__
    text = re.sub(r"\?[^ ')\"]*", "", text)  # never echo query strings
    return text[:300]

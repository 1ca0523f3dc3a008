"""The urllib3 Retry configuration: exponential backoff with jitter, Retry-After, time budget,
and which calls may be retried."""

from __future__ import annotations

import time

import pytest
from urllib3.exceptions import MaxRetryError, ProtocolError, ReadTimeoutError
from urllib3.response import HTTPResponse

from modelarts_provider.client.transport import RetryPolicy, Transport


def _resp(status: int, retry_after: str | None = None) -> HTTPResponse:
    headers = {"Retry-After": retry_after} if retry_after is not None else {}
    return HTTPResponse(body=b"", headers=headers, status=status, preload_content=False)


def test_backoff_is_exponential_with_jitter_and_capped():
    t = Transport(retry=RetryPolicy(max_retries=10, backoff_factor=0.5, backoff_max=3.0, backoff_jitter=0.25, total_s=1e9))
    r = t.idempotent_retry.for_call(1e9)
    sleeps = []
    for _ in range(5):
        r = r.increment("GET", "/x", response=_resp(503))
        sleeps.append(r.get_backoff_time())
    for got, base in zip(sleeps, [0.5, 1.0, 2.0, 3.0, 3.0]):
        assert base <= got <= min(base + 0.25, 3.0) + 1e-9


def test_retry_after_seconds_float_and_date_are_honoured():
    r = Transport().idempotent_retry.for_call(100)
    assert r.get_retry_after(_resp(429, "2")) == 2.0
    assert r.get_retry_after(_resp(429, "0.5")) == 0.5
    date = time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime(time.time() + 5))
    assert 3 <= r.get_retry_after(_resp(503, date)) <= 6


def test_time_budget_ends_retries():
    t = Transport(retry=RetryPolicy(backoff_factor=1.0, max_retries=10, total_s=1.5))
    r = t.idempotent_retry.for_call(1.5)
    with pytest.raises(MaxRetryError):
        for _ in range(10):
            r = r.increment("GET", "/x", response=_resp(503))


def test_create_retry_only_429_and_never_read_errors():
    t = Transport()
    create = t.create_retry.for_call(60)
    assert create.is_retry("POST", 429) and not create.is_retry("POST", 503, True)
    assert not create.is_retry("POST", 500)
    with pytest.raises((ReadTimeoutError, ProtocolError)):
        create.increment("POST", "/x", error=ReadTimeoutError(None, "/x", "read timed out"))
    idem = t.idempotent_retry.for_call(60)
    assert idem.is_retry("POST", 503) and idem.is_retry("GET", 429)
    assert idem.increment("POST", "/x", error=ProtocolError("Connection reset by peer")) is not None

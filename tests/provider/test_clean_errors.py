"""A dynamic provider's own errors reach the engine as they are: no grpc `Exception calling application:`
prefix (provider_server.clean_errors); an unexpected exception keeps grpc's answer, which names it."""

from __future__ import annotations

from typing import Any

import grpc
import pytest

from modelarts_provider.core.provider_server import clean_errors
from modelarts_provider.core.provider_error import ProviderError


class Aborted(Exception):
    pass


class Context:
    def __init__(self) -> None:
        self.aborted: tuple[Any, str] | None = None

    def abort(self, code: Any, details: str) -> None:
        self.aborted = (code, details)
        raise Aborted  # as grpc's context.abort does


def _handler(behavior: Any) -> Any:
    return grpc.unary_unary_rpc_method_handler(behavior, request_deserializer=None, response_serializer=None)


def _called(behavior: Any, raises: type[BaseException]) -> Context:
    """Call `behavior` wrapped by clean_errors; it raises `raises`; the context it answered on."""
    ctx = Context()
    with pytest.raises(raises):
        clean_errors(_handler(behavior)).unary_unary(object(), ctx)
    return ctx


def test_our_error_is_answered_with_its_own_message() -> None:
    def create(_request: Any, _context: Any) -> Any:
        raise ProviderError("pool own: not usable after 60 s (Creating: 0/2 nodes available)")

    ctx = _called(create, Aborted)
    assert ctx.aborted == (grpc.StatusCode.UNKNOWN, "pool own: not usable after 60 s (Creating: 0/2 nodes available)")


def test_an_unexpected_exception_and_an_answer_pass_through() -> None:
    def broken(_request: Any, _context: Any) -> Any:
        raise KeyError("x")

    ctx = _called(broken, KeyError)
    assert ctx.aborted is None
    wrapped = clean_errors(_handler(lambda r, c: "answer"))
    assert wrapped.unary_unary(object(), ctx) == "answer"
    assert clean_errors(wrapped) is wrapped  # wrapped once

"""The dynamic-provider server runs more than 4 provider calls at once (core/provider_server.widen_server_threads).

A real gRPC server started as the SDK starts it (ThreadPoolExecutor(max_workers=4)); its one method waits
until 8 calls are inside it at once. With the SDK's 4 threads the 8 never meet (each gives up after a
while); widened, they all do. No timing is asserted: the barrier is what is measured.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent import futures

import grpc
import pytest

from modelarts_provider.core.provider_server import CALLS_IN_FLIGHT, widen_server_threads

AT_ONCE = 8
METHOD = "/test.Meet/Meet"


def _server(barrier: threading.Barrier) -> tuple[grpc.Server, int]:
    def meet(request: bytes, context: grpc.ServicerContext) -> bytes:
        try:
            barrier.wait(timeout=3)
            return b"met"
        except threading.BrokenBarrierError:
            return b"alone"

    handler = grpc.method_handlers_generic_handler("test.Meet", {
        "Meet": grpc.unary_unary_rpc_method_handler(meet, request_deserializer=bytes, response_serializer=bytes)})
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))  # as pulumi.dynamic starts it
    server.add_generic_rpc_handlers((handler,))
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    return server, port


def _calls(port: int) -> list[bytes]:
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        call = channel.unary_unary(METHOD, request_serializer=bytes, response_deserializer=bytes)
        with futures.ThreadPoolExecutor(max_workers=AT_ONCE) as pool:
            return list(pool.map(lambda _: call(b"", timeout=30), range(AT_ONCE)))


@pytest.fixture
def barrier() -> Iterator[threading.Barrier]:
    b = threading.Barrier(AT_ONCE)
    yield b
    b.abort()


def test_the_sdk_server_alone_runs_4_calls_at_once(barrier: threading.Barrier) -> None:
    server, port = _server(barrier)
    try:
        assert b"met" not in _calls(port)  # what the provider's creates met before (queued 4 at a time)
    finally:
        server.stop(0)


def test_widened_it_runs_them_all_at_once(barrier: threading.Barrier) -> None:
    server, port = _server(barrier)
    try:
        assert widen_server_threads() >= 1
        assert _calls(port) == [b"met"] * AT_ONCE
        assert widen_server_threads() == 0  # already wide: nothing to do
    finally:
        server.stop(0)
    assert CALLS_IN_FLIGHT >= AT_ONCE


def test_a_server_started_before_the_imports_were_frozen_is_still_found_and_widened(
        barrier: threading.Barrier) -> None:
    """In a provider process the SDK's server is up before the first call imports this package, whose import
    freezes what is alive (core/collector.py): gc.get_objects() does not list frozen objects."""
    import gc

    server, port = _server(barrier)
    try:
        gc.freeze()
        assert widen_server_threads() >= 1
        assert _calls(port) == [b"met"] * AT_ONCE
        assert gc.get_freeze_count() > 0  # what was frozen is frozen again after the search
    finally:
        server.stop(0)

"""Start the provider plugin: a gRPC server on a free local port, printed on stdout for the engine.

`pulumi.provider.experimental.server` does the protocol; this adds one thing: a provider call that fails
reaches the engine as its message (the providers' errors are written for people), not as gRPC's
"Unexpected <class ...>" with a traceback.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import grpc
import grpc.aio
from pulumi.provider.experimental.property_value import PropertyValue
from pulumi.provider.experimental.server import ProviderServicer
from pulumi.runtime._grpc_settings import _GRPC_CHANNEL_OPTIONS
from pulumi.runtime.proto import provider_pb2_grpc

from ..core.engine_watch import start_orphan_watchdog
from ..core.recorded_failure import RecordedFailure, init_failed_status
from .diagnostics import route_to_engine
from .provider import VERSION, ModelArtsPlugin

# The calls whose failures are the provider's own errors.
CALLS = ("Check", "Diff", "Create", "Read", "Update", "Delete", "Configure", "GetSchema")


def _one_line(method: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
    async def call(self: Any, request: Any, context: grpc.aio.ServicerContext) -> Any:
        try:
            return await method(self, request, context)
        except RecordedFailure as err:  # failed, with outputs to record (core/recorded_failure.py)
            await context.abort_with_status(init_failed_status(
                str(err).strip(), err.resource_id, PropertyValue.marshal_map(err.converted or {})))
        except Exception as err:  # noqa: BLE001 - every failure goes back to the engine, as one line
            message = str(err).strip() or type(err).__name__  # as written (a wait's report has a line per job)
            await context.abort(grpc.StatusCode.UNKNOWN, message)
    return call


class Servicer(ProviderServicer):
    pass


for _name in CALLS:
    setattr(Servicer, _name, _one_line(getattr(ProviderServicer, _name)))


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description="modelarts Pulumi provider plugin (gRPC server)")
    parser.add_argument("engine", help="the engine's address")
    parser.add_argument("--logflow", action="store_true")
    parser.add_argument("--logtostderr", action="store_true")
    parser.add_argument("-v", type=int, default=0)
    engine = parser.parse_known_args(args)[0].engine

    async def serve() -> None:
        server = grpc.aio.server(options=_GRPC_CHANNEL_OPTIONS)
        provider_pb2_grpc.add_ResourceProviderServicer_to_server(
            Servicer(args, VERSION, ModelArtsPlugin(), engine_address=engine), server)
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        sys.stdout.write(f"{port}\n")
        sys.stdout.flush()
        await server.wait_for_termination()

    route_to_engine(engine)  # progress and warnings through the engine's diagnostics: it hides our stderr
    start_orphan_watchdog()  # a killed engine leaves no provider behind (or waiting, terminating jobs)
    try:
        asyncio.run(serve())
    except KeyboardInterrupt:
        pass

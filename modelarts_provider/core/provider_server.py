"""The gRPC server a provider runs in: which front door serves (the dynamic-provider server or the engine through
the plugin), the engine's Cancel reaching the waits, enough threads for the calls in flight, and our errors answered
as their own one-line message."""

from __future__ import annotations

import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from .call_urn import CURRENT_URN
from .collector import live_objects
from .masking import mask
from .recorded_failure import RecordedFailure, init_failed_status
from ..wait_engine.cancel import request_cancel  # the engine's Cancel

_SERVING = threading.Event()  # serve_engine_calls() ran in this process
_CANCEL_METHOD = "/pulumirpc.ResourceProvider/Cancel"


def listen_for_cancel() -> None:
    """Make the engine's Cancel call reach this process's waits.

    On the first Ctrl-C the engine calls Cancel on every provider, then waits for the steps in flight. The
    SDK's dynamic-provider server answers Cancel and does nothing, so a JobsAwait went on waiting until
    training ended. Its gRPC server registered that answer before any of our code was loaded, so the one
    registered handler of Cancel is wrapped here, once: it records the request, then answers as before.
    Everything else of the server is untouched. (The real provider of issue 25 gets Cancel first-hand.)
    Called from configure(), i.e. only in a provider process.
    """
    import grpc

    def recording(handler: Any) -> Any:
        answer = handler.unary_unary

        def cancel(request: Any, context: Any) -> Any:
            request_cancel()
            return answer(request, context)

        return grpc.unary_unary_rpc_method_handler(cancel, request_deserializer=handler.request_deserializer,
                                                   response_serializer=handler.response_serializer)

    def wrapped(method: str, handler: Any) -> Any:
        if method == _CANCEL_METHOD:
            return recording(handler)
        return clean_errors(handler) if method.startswith(_PROVIDER_SERVICE) else handler

    for obj in _grpc_servers():
        registered = getattr(obj, "registered_method_handlers", {})
        for method in list(registered):
            registered[method] = wrapped(method, registered[method])
        for generic in getattr(obj, "generic_handlers", []):
            handlers = getattr(generic, "_method_handlers", None)
            if isinstance(handlers, dict):
                for method in list(handlers):
                    handlers[method] = wrapped(method, handlers[method])


# The module the engine runs a dynamic provider as (`python -m pulumi.dynamic`: pulumi-resource-pulumi-python).
DYNAMIC_SERVER_MODULE = "pulumi.dynamic.__main__"


def serving_engine() -> bool:
    """Whether this call comes from the engine: it named its URN (core/call_urn.py; the plugin always does), or
    this process is the dynamic-provider server (whose first call runs before its handlers are wrapped).
    Provider code called directly (library use, unit tests) has no stack state to read."""
    return bool(CURRENT_URN.get()) or dynamic_server()


def dynamic_server() -> bool:
    """Whether this process is the dynamic-provider server (the Python stack program's door)."""
    spec = getattr(sys.modules.get("__main__"), "__spec__", None)
    return getattr(spec, "name", None) == DYNAMIC_SERVER_MODULE


def _grpc_servers() -> list[Any]:
    """The gRPC servers' states of this process (the dynamic-provider server's, in a provider process)."""
    return [obj for obj in live_objects()
            if type(obj).__name__ == "_ServerState" and type(obj).__module__ == "grpc._server"]


# Provider calls in flight at once, on both front doors (the plugin's own server has as many threads). A
# create is one POST: with the dynamic-provider server's 4 threads, a sweep's creates queued 4 at a time
# behind the service's latency (512 jobs x 100 ms / 4 = 12.8 s), and a JobsAwait or a pool's wait held one
# of the 4 for its whole wait. The engine runs every ready step at once unless told `--parallel N`, the
# user's knob; the service's throttling (429) is retried with backoff (client/transport.py).
CALLS_IN_FLIGHT = 256


def widen_server_threads(workers: int = CALLS_IN_FLIGHT) -> int:
    """Let the dynamic-provider server run up to `workers` calls at once; the number of servers widened.

    The SDK starts its server with ThreadPoolExecutor(max_workers=4) before any of our code is loaded. A
    ThreadPoolExecutor reads `_max_workers` at each submit to decide whether to start another thread, so
    raising it on the live executor is enough; threads are still started only as calls arrive."""
    widened = 0
    for state in _grpc_servers():
        pool = getattr(state, "thread_pool", None)
        if isinstance(pool, ThreadPoolExecutor) and getattr(pool, "_max_workers", workers) < workers:
            pool._max_workers = workers  # type: ignore[attr-defined]
            widened += 1
    return widened


_PROVIDER_SERVICE = "/pulumirpc.ResourceProvider/"
PROVIDER_KEY = "__provider"  # the SDK's dynamic-provider server hands every call the pickled provider under it


def _ours(err: BaseException) -> bool:
    """An error this product raises on purpose: its message is one line for the user, already masked."""
    return type(err).__module__.startswith("modelarts_provider.")


def clean_errors(handler: Any) -> Any:
    """The handler, answering with an error's own message where the SDK's server would prefix it, and
    setting the call's URN (core/call_urn.py) around it.

    When a dynamic provider's create/update/delete raises, grpc's server answers `Exception calling
    application: <message>` and logs a traceback; the engine prints that prefix before our one-line
    message. Our own errors (ProviderError and the like) are answered as they are (context.abort with
    the message); anything else keeps grpc's answer, which names the unexpected exception."""
    import grpc

    behavior = getattr(handler, "unary_unary", None)
    if behavior is None or getattr(behavior, "_clean_errors", False):
        return handler

    def call(request: Any, context: Any) -> Any:
        # The call's URN for this call only (core/call_urn.py): the SDK's handlers do not pass it on.
        urn = getattr(request, "urn", "")
        reset = CURRENT_URN.set(urn if isinstance(urn, str) else "")
        try:
            return behavior(request, context)
        except Exception as err:  # noqa: BLE001 - only ours is answered here, the rest is re-raised
            if not _ours(err):
                raise
            if isinstance(err, RecordedFailure):  # failed, with outputs to record (core/recorded_failure.py)
                context.abort_with_status(init_failed_status(str(err), err.resource_id, _recorded(request, err)))
            context.abort(grpc.StatusCode.UNKNOWN, mask(str(err)) or type(err).__name__)
        finally:
            CURRENT_URN.reset(reset)

    call._clean_errors = True  # type: ignore[attr-defined]  # wrapped once, however often configure runs
    return grpc.unary_unary_rpc_method_handler(call, request_deserializer=handler.request_deserializer,
                                               response_serializer=handler.response_serializer)


def _recorded(request: Any, err: RecordedFailure) -> Any:
    """The outputs of a RecordedFailure as the SDK's server serializes a create's or update's (its `__provider`
    from the request, as the server adds it to every result)."""
    import asyncio

    from pulumi.runtime import rpc

    loop = asyncio.new_event_loop()
    try:
        struct = loop.run_until_complete(rpc.serialize_properties(err.outs, {}))
    finally:
        loop.close()
    given = getattr(request, "news", None) if hasattr(request, "olds") else getattr(request, "properties", None)
    if given is not None and PROVIDER_KEY in given.fields:
        struct.fields[PROVIDER_KEY].CopyFrom(given.fields[PROVIDER_KEY])
    return struct


def serve_engine_calls() -> None:
    """Once per process, from a provider's configure(): the engine's Cancel reaches the waits, our errors are
    answered as their own message, and the server runs as many calls at once as the engine sends."""
    if _SERVING.is_set():
        return
    _SERVING.set()
    listen_for_cancel()
    widen_server_threads()

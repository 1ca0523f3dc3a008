"""Progress and warning lines of the provider plugin, shown through the engine's own diagnostics channel.

The engine hides a (non-dynamic) plugin's stderr, so `say()` (core/output_lines.py) and the package's logging
warnings would reach nobody. As a plugin, every such line is sent to the engine's log service (the address
the engine starts the plugin with), attached to the resource whose call printed it: `pulumi up` shows it
under that resource, as it shows a dynamic provider's lines. Lines pass the masking step before (say()
masks; log records are masked here). A line the engine cannot take goes to stderr, as before.
"""

from __future__ import annotations

import logging
import sys
from typing import Any

import grpc
from pulumi.runtime.proto import engine_pb2, engine_pb2_grpc

from ..core.call_urn import CURRENT_URN
from ..core.masking import mask
from ..core.output_lines import set_output
SEVERITIES = {"info": engine_pb2.INFO, "warning": engine_pb2.WARNING, "error": engine_pb2.ERROR}


class EngineLog:
    def __init__(self, engine_address: str) -> None:
        self._stub: Any = engine_pb2_grpc.EngineStub(grpc.insecure_channel(engine_address))

    def __call__(self, message: str, severity: str = "info") -> None:
        try:
            self._stub.Log(engine_pb2.LogRequest(severity=SEVERITIES.get(severity, engine_pb2.INFO),
                                                 message=message, urn=CURRENT_URN.get()), timeout=10)
        except grpc.RpcError:
            sys.stderr.write(message.rstrip("\n") + "\n")


class _ToEngine(logging.Handler):
    def __init__(self, log: EngineLog) -> None:
        super().__init__(logging.WARNING)
        self._log = log

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self._log(mask(self.format(record)), "warning" if record.levelno < logging.ERROR else "error")
        except Exception:  # noqa: BLE001 - logging never fails the call that logged
            self.handleError(record)


def route_to_engine(engine_address: str) -> None:
    """From now on, this process's progress lines and the package's warnings go to the engine."""
    log = EngineLog(engine_address)
    set_output(log)
    package = logging.getLogger("modelarts_provider")
    package.addHandler(_ToEngine(log))
    package.propagate = False

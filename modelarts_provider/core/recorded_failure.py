"""A create or update that fails the `up` and still records what it saw: the engine's "created, but failed to
initialize" (the provider protocol's ErrorResourceInitFailed).

A JobsAwait whose wait ends with a failed job has also seen the other jobs complete: their phases, objectives,
curves and run records. A plain error records nothing of that (the state keeps the previous outputs, the program
exports nothing), so one failed job hid the results of every other. Raised instead, this error carries the outputs:
the engine records them with the error's message as the resource's init error, fails the step and the `up`, and
at the next `up` calls update again even when nothing changed (a resource with init errors is not settled), which
judges the failed job again.

Both front doors answer it the same way: the dynamic-provider server's handlers (provider_server.clean_errors) and
the provider plugin's server (plugin/serve.py), each serializing the outputs in its own naming.
"""

from __future__ import annotations

from typing import Any

from .provider_error import ProviderError


class RecordedFailure(ProviderError):
    """The call failed with `message` (one report, already written for people), and `outs` are the resource's
    outputs to record (the providers' own values, as a successful call returns them) under `resource_id`."""

    def __init__(self, message: str, resource_id: str, outs: dict[str, Any]) -> None:
        super().__init__(message)
        self.resource_id = resource_id
        self.outs = outs
        # The outputs in a front door's own form, where it converts them itself (the plugin: property values in
        # the schema's naming); None: `outs` as they are.
        self.converted: Any = None

    def with_converted(self, converted: Any) -> RecordedFailure:
        self.converted = converted
        return self


def init_failed_status(message: str, resource_id: str, properties: Any) -> Any:
    """The gRPC status (a grpc.Status) that tells the engine: the resource `resource_id` exists with these
    `properties` (a protobuf Struct), and failed for `message` (recorded as its init error)."""
    import grpc  # noqa: PLC0415 - only in a provider process, only on this failure
    # The SDK's own copy of google.rpc.Status (google.rpc's would register the same symbol twice in a process
    # that loaded both).
    from pulumi.runtime.proto import provider_pb2, status_pb2  # noqa: PLC0415

    code = grpc.StatusCode.UNKNOWN  # the engine reads the details, not the code (any code but OK fails the call)
    detail = provider_pb2.ErrorResourceInitFailed(id=resource_id, properties=properties, reasons=[message])
    status = status_pb2.Status(code=code.value[0], message=message)
    status.details.add().Pack(detail)
    answer = grpc.Status()
    answer.code, answer.details = code, message
    answer.trailing_metadata = (("grpc-status-details-bin", status.SerializeToString()),)
    return answer

"""A trivial dynamic resource, importable (so pickled by reference), that makes no API call."""

from __future__ import annotations

from typing import Any

import pulumi
from pulumi.dynamic import CreateResult, ResourceProvider


class EchoProvider(ResourceProvider):
    def create(self, props: dict[str, Any]) -> CreateResult:
        return CreateResult(id_="echo", outs={"message": props["message"], "echoed": props["message"].upper()})


class Echo(pulumi.dynamic.Resource):
    echoed: pulumi.Output[str]

    def __init__(self, name: str, message: pulumi.Input[str], opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__(EchoProvider(), name, {"message": message, "echoed": None}, opts)

"""The baseline: a trivial dynamic resource (importable, so pickled by reference) that makes no API call.
Same engine, same dynamic-provider process and thread pool as TrainingJob; only the provider work differs."""

from __future__ import annotations

from typing import Any

import pulumi
from pulumi.dynamic import CreateResult, ReadResult, ResourceProvider


class TrivialProvider(ResourceProvider):
    def create(self, props: dict[str, Any]) -> CreateResult:
        return CreateResult(id_=f"trivial-{props['index']}", outs=dict(props))

    def read(self, id_: str, props: dict[str, Any]) -> ReadResult:
        return ReadResult(id_, props)


PROVIDER = TrivialProvider()


class Trivial(pulumi.dynamic.Resource):
    def __init__(self, name: str, index: int, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__(PROVIDER, name, {"index": index}, opts)


PROGRAM = '''
import pulumi
from benchmarks.trivial import Trivial

n = pulumi.Config("bench").require_int("n")
pulumi.export("count", len([Trivial(f"t{i}", i) for i in range(n)]))
'''

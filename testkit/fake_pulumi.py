"""A stand-in for the `pulumi` CLI wrapper (`PulumiCli`) the stack commands read from: it answers
`pulumi stack output --json` and `pulumi stack export` with given documents, so the commands' reading of a
stack is tested without the engine."""

from __future__ import annotations

from typing import Any


class FakePulumi:
    def __init__(self, outputs: Any, export: Any = None, *, stack: str = "dev") -> None:
        self.stack = stack
        self.docs = {"output": outputs, "export": export}

    def json(self, *args: str) -> Any:
        """`json("stack", "output", ...)` / `json("stack", "export")`: the document given for it."""
        return self.docs[args[1]]

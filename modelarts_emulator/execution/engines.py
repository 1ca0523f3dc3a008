"""Which Python runs a job's script in execution mode: the interpreter the user maps to the job's engine.

On the service a job's engine (``PyTorch``, ``TensorFlow``, ``MindSpore`` and a version) is an image with that
framework; locally the user names an interpreter that has it (a virtualenv or conda env):
``--engine-python PyTorch=/opt/torch/bin/python`` (any version of the engine) or
``--engine-python 'PyTorch:pytorch_1.8.0-cuda_10.2-py_3.7-ubuntu_18.04-x86_64=/opt/torch18/bin/python'`` (that
version only; it wins), repeatable, or ``--engine-pythons FILE`` (a JSON object of the same ``NAME[:VERSION]`` keys).
An unmapped engine runs with the emulator's own Python, and the task's log says so.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Interpreter:
    python: str
    note: str  # the task log's line saying which Python runs the script and why


class EnginePythons:
    def __init__(self, mapping: dict[str, str] | None = None) -> None:
        self.mapping = dict(mapping or {})

    @classmethod
    def parse(cls, pairs: list[str], file: Path | None = None) -> "EnginePythons":
        """``NAME[:VERSION]=PYTHON`` pairs (later ones win) over the entries of ``file``; a bad pair: ValueError
        naming the option and the form it takes."""
        mapping: dict[str, str] = {}
        if file is not None:
            loaded = json.loads(Path(file).read_text())
            if not isinstance(loaded, dict) or not all(isinstance(v, str) for v in loaded.values()):
                raise ValueError(f"--engine-pythons {file}: a JSON object of NAME[:VERSION] -> python path")
            mapping.update(loaded)
        for pair in pairs:
            key, eq, python = pair.rpartition("=")
            if not eq or not key or not python:
                raise ValueError(f"--engine-python takes NAME[:VERSION]=PYTHON, e.g. PyTorch=/venv/bin/python "
                                 f"(got {pair!r})")
            mapping[key] = python
        return cls(mapping)

    def resolve(self, name: str | None, version: str | None) -> Interpreter:
        own = sys.executable
        if name:
            for key in (f"{name}:{version}", name):
                python = self.mapping.get(key)
                if python:
                    return Interpreter(python, f"engine {name} {version or ''}".rstrip()
                                       + f" runs with {python} (--engine-python {key}=...)")
        shown = f"engine {name} {version or ''}".rstrip() if name else "this job's engine"
        return Interpreter(own, f"{shown} is not mapped to an interpreter: the script runs with the local "
                                f"ModelArts' own Python ({own}); map one with --engine-python "
                                f"{name or 'NAME'}=/path/to/python")

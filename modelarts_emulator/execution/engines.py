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
import os
import shutil
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
        """``NAME[:VERSION]=PYTHON`` pairs (later ones win) over the entries of ``file``. Anything wrong is a
        ValueError of one line naming the option: a malformed pair or file, or an interpreter that does not exist
        or is not executable (checked here, at the emulator's start, not when a job first runs there)."""
        mapping: dict[str, str] = {}
        if file is not None:
            try:
                loaded = json.loads(Path(file).read_text())
            except (OSError, ValueError) as err:
                raise ValueError(f"--engine-pythons {file}: cannot read it as JSON ({_one_line(err)})") from None
            if not isinstance(loaded, dict) or not all(isinstance(k, str) and k and isinstance(v, str) and v
                                                       for k, v in loaded.items()):
                raise ValueError(f"--engine-pythons {file}: a JSON object of NAME[:VERSION] -> python path")
            mapping.update({k: _checked(v, f"--engine-pythons {file} ({k})") for k, v in loaded.items()})
        for pair in pairs:
            key, eq, python = pair.rpartition("=")
            if not eq or not key or not python or key.startswith(":") or key.endswith(":"):
                raise ValueError(f"--engine-python takes NAME[:VERSION]=PYTHON, e.g. PyTorch=/venv/bin/python "
                                 f"(got {pair!r})")
            mapping[key] = _checked(python, f"--engine-python {pair}")
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


def _checked(python: str, option: str) -> str:
    """The interpreter as given, once it is known to be an executable file (a bare name is looked up on PATH)."""
    found = python if os.sep in python else shutil.which(python)
    if found is None or not os.path.exists(found):
        raise ValueError(f"{option}: {python} does not exist")
    if os.path.isdir(found) or not os.access(found, os.X_OK):
        raise ValueError(f"{option}: {python} is not an executable file")
    return python


def _one_line(err: BaseException) -> str:
    return " ".join(str(err).split())

"""Execution mode's options checked before the emulator starts, so that a mistake is one line at start-up rather
than a traceback, or a job that fails later because its interpreter is missing."""

from __future__ import annotations

from ..config import EmulatorConfig
from .engines import EnginePythons
from .gpus import inventory


def check_execution_options(cfg: EmulatorConfig) -> None:
    """ValueError (one line, naming the option) for a malformed or unusable ``--engine-python``/``--engine-pythons``
    mapping or ``--gpus`` value."""
    EnginePythons.parse(cfg.engine_python, cfg.engine_pythons)
    if cfg.gpus not in ("auto", "none"):  # auto runs nvidia-smi: left to the start itself
        inventory(cfg.gpus)

"""A test module's own local ModelArts, declared in one line:

    emu = fresh_emulator(phase_seconds=0.2, run_seconds=600)

is a per-test fixture `emu`: a new emulator subprocess (free port, own database under the test's tmp_path) with
those times, stopped after the test. It asks for `pulumi_engine`, so a test using it is marked `engine`
(tests/conftest.py); a module whose tests run without the engine uses tests/conftest.py's `module_emu`/`emu`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest


def fresh_emulator(name: str = "emu", **flags: Any) -> Callable[..., Iterator[Any]]:
    """A function-scoped fixture called `name`: a fresh emulator started with `flags` (running_emulator's)."""

    @pytest.fixture(name=name)
    def _emulator(tmp_path: Path, pulumi_engine: Path) -> Iterator[Any]:
        from modelarts_emulator.testing import running_emulator

        with running_emulator(tmp_path / "emulator", **flags) as emu:
            yield emu

    return _emulator

"""Fault suite fixtures: a fast emulator per test (faults are per-emulator state)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from testkit.faults import FAST_EMULATOR


@pytest.fixture
def emu(tmp_path: Path, pulumi_engine: Path) -> Iterator[object]:
    from modelarts_emulator.testing import running_emulator

    with running_emulator(tmp_path / "emulator", **FAST_EMULATOR) as e:
        yield e

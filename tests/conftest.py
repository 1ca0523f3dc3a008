"""Shared fixtures: an isolated offline Pulumi environment and a local ModelArts emulator."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.harness import PULUMI_VERSION, engine_bin_dir, pulumi_env as _pulumi_env


@pytest.fixture(scope="session")
def pulumi_engine() -> Path:
    """The pinned engine must be installed (./dev test does it); fail loudly rather than skip."""
    cli = shutil.which("pulumi", path=str(engine_bin_dir())) or shutil.which("pulumi")
    assert cli, f"pulumi v{PULUMI_VERSION} not found: run ./dev test (it installs the engine) or scripts/install_engine.sh"
    return Path(cli)


@pytest.fixture
def pulumi_env(tmp_path: Path, pulumi_engine: Path) -> dict[str, str]:
    return _pulumi_env(tmp_path)


@pytest.fixture
def emulator(tmp_path: Path) -> Iterator[object]:
    """A fresh emulator subprocess on a free port with its own database, fast phases."""
    from modelarts_emulator.testing import running_emulator

    with running_emulator(tmp_path / "emulator", phase_seconds=0.2, run_seconds=2) as emu:
        yield emu

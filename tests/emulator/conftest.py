"""Fixtures: one emulator subprocess per module, reset before each test (jobs, and the clock).

Its phases last far longer than a test (HELD): a test moves a job on with ``api.advance(seconds)``.
"""

from __future__ import annotations

import pytest

from modelarts_emulator.testing import RunningEmulator, running_emulator
from tests.emulator.helpers import HELD, Api


@pytest.fixture(scope="module")
def module_emu(tmp_path_factory) -> RunningEmulator:
    with running_emulator(tmp_path_factory.mktemp("emu"), **HELD) as emu:
        yield emu


@pytest.fixture
def emu(module_emu: RunningEmulator) -> RunningEmulator:
    module_emu.reset()
    return module_emu


@pytest.fixture
def api(emu: RunningEmulator) -> Api:
    return Api(emu)

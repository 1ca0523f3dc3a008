"""Shared fixtures: an isolated offline Pulumi environment and a local ModelArts emulator.

Tiers: a test that runs the Pulumi engine is marked `engine` (set here from its fixtures: anything that
needs `pulumi_engine`); `./dev test --fast` runs the others (`-m "not engine"`). A test outside the engine
tier that starts the engine anyway fails at once (testkit/harness.py: `engine_allowed`), so the fast
tier never quietly grows slow and no engine test hides in it.
"""

from __future__ import annotations

import gc
import os
import shutil
import tempfile
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from testkit import harness, rewritten_tests
from testkit.harness import PULUMI_VERSION, engine_bin_dir, pulumi_env as _pulumi_env

ENGINE_FIXTURES = frozenset({"pulumi_engine", "pulumi_env"})


def pytest_configure(config: pytest.Config) -> None:
    gc.freeze()  # pytest and its plugins are in for the run: collections skip them (core/collector.py)
    # What runs the CLI with this process's environment (./dev, the docs' `pulumi ... --help`) gets a Pulumi home
    # of the session's own, never the engine cache's (`./dev test` exports that one), whose logs/ every CLI start
    # lists: harness.pulumi_home says why. A test's stack has its own beside its backend.
    _SESSION_DIRS.append(Path(tempfile.mkdtemp(prefix="pulumi-home-")))
    os.environ["PULUMI_HOME"] = str(harness.pulumi_home(_SESSION_DIRS[-1]))
    if not hasattr(config, "workerinput"):
        # The session's first process (xdist's controller, or the only one): its workers inherit this folder,
        # where the harness keeps what it made with the CLI once for all of them (stack templates, ciphertexts).
        _SESSION_DIRS.append(Path(tempfile.mkdtemp(prefix="test-shared-")))
        os.environ[harness.SHARED_CACHE_ENV] = str(_SESSION_DIRS[-1])
        if config.getoption("numprocesses", None):
            # xdist's workers are about to collect every test module each: rewrite their asserts once for all
            rewritten_tests.prebuild(Path(__file__).parent)


def pytest_unconfigure(config: pytest.Config) -> None:
    for base in _SESSION_DIRS:
        shutil.rmtree(base, ignore_errors=True)


_SESSION_DIRS: list[Path] = []


def pytest_collection_finish(session: pytest.Session) -> None:
    gc.freeze()  # so are the test modules and the collected items


# tryfirst: xdist's own hook (a plugin registered before this conftest, so called before it otherwise) reads the
# xdist_group marks to group tests by worker; the fixed-ports group added below was not seen, and two tests on
# ./dev's fixed ports ran at once on two workers (one of them failed: Address already in use).
@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if ENGINE_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.engine)
        if item.get_closest_marker("fixed_ports"):
            # One xdist group: every test on the local clouds' fixed ports runs on one worker, one at a time.
            item.add_marker(pytest.mark.xdist_group("fixed-ports"))
    # Workers take tests in this order. Engine tests first, so the long ones start early and the last minute is
    # spent on short tests that keep both cores busy to the end, not on one long one; among them the xdist
    # groups first (each runs its tests one after another on one worker: the longest chains), then the rest in
    # a fixed order spread across files (a hash of the test's id), not file by file: a file's tests are alike,
    # and the fault tests that mostly wait (a 503 retried for a minute, a dripping server) side by side left
    # the cores idle while every worker waited.
    items.sort(key=lambda item: (item.get_closest_marker("engine") is None,
                                 item.get_closest_marker("xdist_group") is None,
                                 zlib.crc32(item.nodeid.encode()) if item.get_closest_marker("engine") else 0))


@pytest.fixture(autouse=True)
def _engine_guard(request: pytest.FixtureRequest) -> Iterator[None]:
    harness.engine_allowed = request.node.get_closest_marker("engine") is not None
    yield
    harness.engine_allowed = True


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


@pytest.fixture(scope="module")
def emulator_times() -> dict[str, float]:
    """The clock of `module_emu`: phases no test outlives (HELD), moved on with the clock control. A module
    needing other times overrides this fixture."""
    from tests.emulator.helpers import HELD

    return dict(HELD)


@pytest.fixture(scope="module")
def module_emu(tmp_path_factory: pytest.TempPathFactory, emulator_times: dict[str, float]) -> Iterator[object]:
    """One emulator subprocess per module (starting one per test would cost a second each)."""
    from modelarts_emulator.testing import running_emulator

    with running_emulator(tmp_path_factory.mktemp("emu"), **emulator_times) as emu:
        yield emu


@pytest.fixture(scope="module")
def billing(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    """The local billing service (BSS's rating API, billing_emulator) on a free port, one per module."""
    from billing_emulator.testing import running_billing

    with running_billing(tmp_path_factory.mktemp("billing")) as bss:
        yield bss


@pytest.fixture
def emu(module_emu: Any) -> Any:
    """`module_emu` reset before the test (its records and the clock): no test sees another's."""
    module_emu.reset()
    return module_emu

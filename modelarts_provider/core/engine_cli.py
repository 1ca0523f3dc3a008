"""Which `pulumi` the command-line tools (logs, results, status) and the providers (a state read, the stacks of a
backend) run: the one on PATH when it is the version this package is built against, else the one `./dev setup`
(scripts/install_engine.sh) built into its cache, so the tools work from any shell and for any stack."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path


def pinned_version() -> str:
    """The engine's version: the pulumi SDK's this package pins (scripts/versions.env says the same)."""
    # Imported here: importlib.metadata costs 80 ms, and the command-line tools that read a checkpoint themselves
    # never ask for the engine (issue 56: under a second).
    from importlib.metadata import PackageNotFoundError, version  # noqa: PLC0415

    try:
        return version("pulumi")
    except PackageNotFoundError:  # pragma: no cover - the SDK is a dependency
        return ""


def engine_bin(env: Mapping[str, str] | None = None) -> Path:
    """Where scripts/install_engine.sh puts the engine (MODELARTS_ENGINE_CACHE, else XDG_CACHE_HOME or ~/.cache)."""
    env = os.environ if env is None else env
    cache = env.get("MODELARTS_ENGINE_CACHE") or str(
        Path(env.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "modelarts-pulumi")
    return Path(cache) / f"engine-v{pinned_version()}" / "bin"


@lru_cache(maxsize=8)
def _version_of(path: str) -> str:
    try:
        return subprocess.run([path, "version"], capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return ""


def _same_file(a: str, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def find_pulumi(env: Mapping[str, str] | None = None) -> str:
    """The pulumi CLI to run: PATH's of the pinned version, else the set-up's, else PATH's (any version), else
    the bare name (running it then fails as "not found", which the caller reports)."""
    env = os.environ if env is None else env
    on_path = shutil.which("pulumi", path=env.get("PATH"))
    built = engine_bin(env) / "pulumi"
    if on_path and _same_file(on_path, built):
        return on_path  # the set-up's own (./dev puts it on PATH): its version is the pinned one, not asked again
    if on_path and _version_of(on_path) == f"v{pinned_version()}":
        return on_path
    if built.is_file() and os.access(built, os.X_OK):
        return str(built)
    return on_path or "pulumi"

"""The test modules with pytest's assertions rewritten, compiled once for all of a session's xdist workers.

Each worker collects every test module, and pytest rewrites the asserts of each (parse, rewrite, compile) unless
it finds the rewritten module cached in `__pycache__`. With PYTHONDONTWRITEBYTECODE set (CI sets it) it never
writes that cache, so in a fresh clone every worker rewrote every module: 4 of the 6 CPU-s each of the 5 workers
spent collecting, at the start of the run when nothing else is ready to run. `prebuild` writes the cache once,
split across the cores, before the workers start; pytest reads a cached module whether or not it may write one.

It writes exactly what pytest would (pytest is pinned in pyproject.toml; this uses its assertion module's
helpers, which are not public API): the same file name, the same header (the source's mtime and size, which
pytest checks before using it) and the module rewritten as pytest rewrites it with the default ini
(`enable_assertion_pass_hook` off). tests/architecture/test_rewritten_tests.py checks pytest takes it.
"""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from _pytest.assertion import rewrite


def cached_path(module: Path) -> Path:
    """Where pytest looks for `module`'s rewritten code."""
    return rewrite.get_cache_dir(module) / (module.name[:-3] + rewrite.PYC_TAIL)


def is_cached(module: Path) -> bool:
    return rewrite._read_pyc(module, cached_path(module)) is not None


def rewrite_one(path: str) -> bool:
    """Write `path`'s rewritten code where pytest reads it; False when a current one was there already."""
    module = Path(path)
    if is_cached(module):
        return False
    source_stat, code = rewrite._rewrite_test(module, None)  # type: ignore[arg-type]  # None: the default ini
    pyc = cached_path(module)
    pyc.parent.mkdir(exist_ok=True)
    partial = pyc.with_name(f"{pyc.name}.{os.getpid()}")
    with open(partial, "wb") as fp:
        rewrite._write_pyc_fp(fp, source_stat, code)
    os.replace(partial, pyc)  # whole or not at all, as pytest writes it: a worker may read it at any moment
    return True


def test_modules(root: Path) -> list[Path]:
    """The modules pytest rewrites under `root`: test files (the default `python_files`) and conftest files."""
    return sorted(p for p in root.rglob("*.py")
                  if p.name == "conftest.py" or p.name.startswith("test_") or p.name.endswith("_test.py"))


def prebuild(root: Path, processes: int | None = None) -> int:
    """Rewrite every test module under `root` not cached yet, on `processes` cores (all by default); the count."""
    modules = [str(p) for p in test_modules(root)]
    with ProcessPoolExecutor(processes or os.cpu_count() or 1,
                             mp_context=multiprocessing.get_context("fork")) as pool:
        return sum(pool.map(rewrite_one, modules, chunksize=8))

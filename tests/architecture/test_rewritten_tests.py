"""testkit/rewritten_tests.py writes the rewritten test modules that pytest reads instead of rewriting them in each
worker."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from testkit import rewritten_tests

FAILS = "def test_it():\n    assert 'a' == 'b'\n"
PASSES = "def test_it():\n    assert 'a' == 'a'\n"  # the same size: pytest tells a cache by the source's mtime and size


def test_pytest_runs_the_prebuilt_module_and_does_not_rewrite_it_again(tmp_path: Path) -> None:
    module = tmp_path / "test_sample.py"
    module.write_text(FAILS)
    assert rewritten_tests.rewrite_one(str(module)) is True
    assert rewritten_tests.is_cached(module) and rewritten_tests.rewrite_one(str(module)) is False
    # The source changed behind the cache's back (same size, same mtime): pytest runs what the cache holds, so
    # the failing assert ran, rewritten as pytest rewrites it (the values shown), from the file prebuild wrote.
    stat = module.stat()
    module.write_text(PASSES)
    os.utime(module, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                          "--rootdir", str(tmp_path), "-c", os.devnull, str(module)],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "AssertionError: assert 'a' == 'b'" in run.stdout, run.stdout
    assert "- b\n" in run.stdout and "+ a\n" in run.stdout, run.stdout  # pytest's own comparison of the values


def test_a_changed_module_is_rewritten_again(tmp_path: Path) -> None:
    module = tmp_path / "test_sample.py"
    module.write_text(FAILS)
    rewritten_tests.rewrite_one(str(module))
    module.write_text(FAILS + "\n# edited\n")
    assert not rewritten_tests.is_cached(module)
    assert rewritten_tests.rewrite_one(str(module)) is True and rewritten_tests.is_cached(module)


def test_prebuild_covers_the_modules_pytest_rewrites(tmp_path: Path) -> None:
    for name in ("conftest.py", "test_a.py", "sub/test_b.py", "sub/b_test.py", "sub/helpers.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(PASSES)
    assert rewritten_tests.prebuild(tmp_path, processes=2) == 4
    assert [p.relative_to(tmp_path).as_posix() for p in rewritten_tests.test_modules(tmp_path)
            if rewritten_tests.is_cached(p)] == ["conftest.py", "sub/b_test.py", "sub/test_b.py", "test_a.py"]
    assert rewritten_tests.prebuild(tmp_path, processes=2) == 0  # all current

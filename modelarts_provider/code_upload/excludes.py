"""Which files of a code directory are uploaded: .gitignore-style excludes (pathspec's GitIgnoreSpec,
the git wildmatch rules including negation and directory patterns) from, in order:

1. the defaults below (VCS folders, Python caches, virtualenvs, notebook checkpoints);
2. ``.gitignore`` then ``.modelartsignore`` at the top of the directory (nested ignore files are
   not read);
3. the resource's ``excludes`` argument.

Later patterns win, so ``!pattern`` re-includes what an earlier one excluded (not inside an
excluded folder: like git, an excluded folder is never entered).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pathspec

__all__ = ["DEFAULT_EXCLUDES", "IGNORE_FILES", "exclude_spec"]

DEFAULT_EXCLUDES: tuple[str, ...] = (
    ".git/", ".hg/", ".svn/", "__pycache__/", "*.pyc", "*.pyo", ".venv/", "venv/", ".mypy_cache/",
    ".pytest_cache/", ".ipynb_checkpoints/", ".DS_Store",
)
IGNORE_FILES: tuple[str, ...] = (".gitignore", ".modelartsignore")


def exclude_spec(root: Path, extra: Sequence[str] = ()) -> pathspec.GitIgnoreSpec:
    lines: list[str] = list(DEFAULT_EXCLUDES)
    for name in IGNORE_FILES:
        path = root / name
        if path.is_file():
            lines += path.read_text(encoding="utf-8", errors="replace").splitlines()
    lines += list(extra)
    return pathspec.GitIgnoreSpec.from_lines(lines)

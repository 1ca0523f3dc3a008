"""The suite runs from a clone of the repository alone: no test reads a file outside it.

A person who clones the project has no ``../shared`` (the API pages the maintainers read); what the tests take
from those pages lives in ``tests/client/data/`` as data of the repository's own. This check reads every Python
file of the tests and their harnesses and refuses a path that climbs above the repository root from
``__file__`` (``Path(__file__).parents[N]`` or ``.parent`` chains) or names the maintainers' folders.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHECKED = ("tests", "testkit", "benchmarks")
OUTSIDE_NAMES = ("../shared", "api-docs")  # the maintainers' folder beside a checkout


def _files() -> list[Path]:
    this = Path(__file__).resolve()  # names the folders it looks for, as examples
    return sorted(p for d in CHECKED for p in (ROOT / d).rglob("*.py") if "__pycache__" not in p.parts and p != this)


def _is_file_path(node: ast.AST) -> bool:
    """``Path(__file__)`` (with any ``.resolve()``/``.absolute()`` after it)."""
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
            node.func.attr in ("resolve", "absolute"):
        node = node.func.value
    return isinstance(node, ast.Call) and any(isinstance(a, ast.Name) and a.id == "__file__" for a in node.args)


def _levels_up(node: ast.AST) -> int | None:
    """How many folders above the file's own folder a ``Path(__file__)`` expression names (None: not one).

    ``parents[0]`` and the first ``.parent`` are the file's folder (0 up)."""
    up = 0
    while isinstance(node, ast.Attribute) and node.attr == "parent":
        up, node = up + 1, node.value
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "parents":
        if isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, int) \
                and _is_file_path(node.value.value):
            return up + node.slice.value
        return None
    if up and _is_file_path(node):
        return up - 1
    return None


def climbs_out(path: Path, source: str) -> list[str]:
    """Every place in ``source`` (the file at ``path``) that names a path outside the repository."""
    depth = len(path.relative_to(ROOT).parts) - 1  # folders between the file and the root
    found = []
    tree = ast.parse(source, str(path))
    outermost = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr == "parent"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and any(name in node.value for name in OUTSIDE_NAMES):
            found.append(f"line {node.lineno}: {node.value!r}")
        elif id(node) not in outermost:
            up = _levels_up(node)
            if up is not None and up > depth:
                found.append(f"line {node.lineno}: {up} folders up from a folder {depth} below the root")
    return found


@pytest.mark.parametrize("path", _files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_test_reads_outside_the_repository(path: Path):
    assert climbs_out(path, path.read_text()) == [], f"{path.relative_to(ROOT)} reads outside the repository"


@pytest.mark.parametrize("source, bad", [
    ("from pathlib import Path\nDOCS = Path(__file__).resolve().parents[2].parent / 'x'\n", True),
    ("from pathlib import Path\nROOT = Path(__file__).resolve().parents[2]\n", False),
    ("from pathlib import Path\nUP = Path(__file__).parent.parent.parent.parent\n", True),
    ("from pathlib import Path\nTOP = Path(__file__).parent.parent.parent\n", False),
    ("PAGES = '../shared/api-docs'\n", True),
])
def test_the_check_finds_a_path_out_of_the_repository(source: str, bad: bool):
    """The check itself can fail: the old ``doc_examples.py`` line is caught, the repository root is not."""
    assert bool(climbs_out(ROOT / "tests" / "client" / "example.py", source)) is bad


def test_the_api_examples_name_their_pages():
    """Each example copied from the API pages says which page it is from (scripts/extract_api_examples.py)."""
    data = json.loads((ROOT / "tests" / "client" / "data" / "api_examples.json").read_text())
    assert data["examples"] and all(e["page"].endswith(".txt") and e["title"] for e in data["examples"])

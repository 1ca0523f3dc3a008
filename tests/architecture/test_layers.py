"""The layout is the architecture: these import rules are what keeps a change in one place from breaking another.

- Every resource folder of modelarts_provider imports only the shared kernel (core/), the clients (client/,
  obs/) and itself: never another resource folder, so a TrainingJob edit cannot break a Network.
- core/ and client/ import no resource folder (the kernel sits below them).
- client/ imports nothing of core/: the client is the lowest layer, core builds on it (what the client needs
  from above, it is handed).
- No import circle among modelarts_provider's modules (function-level imports count): a circle hidden in a
  function is still two modules that cannot be read, tested or moved one without the other.
- The local clouds (ModelArts, OBS, billing) do not import each other; what they share is local_cloud/.
- Nothing outside tests/ imports tests (test harnesses that benchmarks use live in testkit/).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PKG = ROOT / "modelarts_provider"
RESOURCES = ("awaiting", "bucket", "code_upload", "network", "resource_pool", "training_job")


def _imports(path: Path) -> set[str]:
    """Absolute module names a file imports (relative imports resolved), top-level and inside functions."""
    rel = path.relative_to(ROOT).with_suffix("")
    package = list(rel.parts[:-1]) if rel.name != "__init__" else list(rel.parts[:-1])
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - (node.level - 1)] if node.level else []
            mod = ".".join(base + ([node.module] if node.module else []))
            out.add(mod)
            out.update(f"{mod}.{a.name}" for a in node.names)
    return out


def _in(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def _files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.py") if "__pycache__" not in p.parts)


@pytest.mark.parametrize("resource", RESOURCES)
def test_a_resource_folder_imports_no_other_resource_folder(resource: str) -> None:
    others = [r for r in RESOURCES if r != resource]
    bad = sorted(f"{p.relative_to(ROOT)} imports {m}" for p in _files(PKG / resource) for m in _imports(p)
                 if any(_in(m, f"modelarts_provider.{o}") for o in others))
    assert bad == []


@pytest.mark.parametrize("layer", ["core", "client"])
def test_the_kernel_and_the_client_import_no_resource_folder(layer: str) -> None:
    bad = sorted(f"{p.relative_to(ROOT)} imports {m}" for p in _files(PKG / layer) for m in _imports(p)
                 if any(_in(m, f"modelarts_provider.{r}") for r in (*RESOURCES, "stack", "plugin", "cli")))
    assert bad == []


def test_the_client_imports_nothing_of_core() -> None:
    bad = sorted(f"{p.relative_to(ROOT)} imports {m}" for p in _files(PKG / "client") for m in _imports(p)
                 if _in(m, "modelarts_provider.core"))
    assert bad == []


def _module_graph(files: list[Path]) -> dict[str, set[str]]:
    """Module -> the package's modules it imports (a package is its __init__)."""
    names = {".".join(p.relative_to(ROOT).with_suffix("").parts[: -1 if p.stem == "__init__" else None]): p
             for p in files}
    return {m: {n for n in _imports(p) if n in names and n != m} for m, p in names.items()}


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One circle per group of modules that import each other (Tarjan's strongly connected components)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = stack[stack.index(v):]
            del stack[stack.index(v):]
            if len(group) > 1:
                out.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_import_circle_among_the_providers_modules() -> None:
    assert _circles(_module_graph(_files(PKG))) == []


@pytest.mark.parametrize(("pkg", "other"), [("modelarts_emulator", "obs_emulator"),
                                            ("obs_emulator", "modelarts_emulator"),
                                            ("local_cloud", "modelarts_emulator"), ("local_cloud", "obs_emulator"),
                                            ("billing_emulator", "modelarts_emulator"),
                                            ("billing_emulator", "obs_emulator"),
                                            ("modelarts_emulator", "billing_emulator"),
                                            ("local_cloud", "billing_emulator")])
def test_the_local_clouds_do_not_import_each_other(pkg: str, other: str) -> None:
    bad = sorted(f"{p.relative_to(ROOT)} imports {m}" for p in _files(ROOT / pkg) for m in _imports(p)
                 if _in(m, other))
    assert bad == []


def test_nothing_outside_tests_imports_tests() -> None:
    outside = [p for p in ROOT.glob("*.py")] + [p for d in ROOT.iterdir() if d.is_dir() and (d / "__init__.py").exists()
                                                and d.name != "tests" for p in _files(d)]
    bad = sorted(f"{p.relative_to(ROOT)} imports {m}" for p in outside for m in _imports(p)
                 if _in(m, "tests"))
    assert outside and bad == []


def test_the_rules_can_fail(tmp_path: Path) -> None:
    """The import reader sees relative imports two levels up, inside functions too."""
    f = ROOT / "modelarts_provider" / "network" / "_probe_for_test.py"
    f.write_text("def f():\n    from ..training_job.resource import owned_props\n")
    try:
        assert "modelarts_provider.training_job.resource" in _imports(f)
    finally:
        f.unlink()


def test_a_circle_is_seen_through_a_function_level_import(tmp_path: Path) -> None:
    a, b = PKG / "network" / "_probe_a.py", PKG / "network" / "_probe_b.py"
    a.write_text("from ._probe_b import x\n")
    b.write_text("def f():\n    from . import _probe_a\n")
    try:
        circles = _circles(_module_graph([a, b, PKG / "network" / "__init__.py"]))
        assert circles == [["modelarts_provider.network._probe_a", "modelarts_provider.network._probe_b"]]
    finally:
        a.unlink()
        b.unlink()


# Where the package may sleep: the wait engine's real clock, and the client's own retry pacing, which sits below
# the engine (the client imports nothing above it): the create's backoff between ambiguous attempts (api.py,
# bounded by the call's retry budget, not a wait for a state) and the watchdog that cuts calls past their
# deadline (call_limits.py, ticking in its own thread). Every other wait is a condition on waiting/engine.py,
# so it runs on an injectable clock and replays from a recording (tests/waits).
SLEEPS_ALLOWED = {"modelarts_provider/waiting/clock.py", "modelarts_provider/client/api.py",
                  "modelarts_provider/client/call_limits.py"}


def _sleeps(path: Path) -> list[int]:
    """Lines that call time.sleep or import it by name."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Attribute) and node.attr == "sleep" and isinstance(node.value, ast.Name) \
                and node.value.id == "time":
            out.append(node.lineno)
        elif isinstance(node, ast.ImportFrom) and node.module == "time" and any(a.name == "sleep" for a in node.names):
            out.append(node.lineno)
    return out


def test_nothing_sleeps_outside_the_wait_engine() -> None:
    bad = sorted(f"{p.relative_to(ROOT)}:{line}" for p in _files(PKG) for line in _sleeps(p)
                 if str(p.relative_to(ROOT)) not in SLEEPS_ALLOWED)
    assert bad == []


def test_the_wait_engine_imports_nothing_of_core_nor_of_a_resource_folder() -> None:
    # core/ waits on it (owned objects, the orphan watchdog), so it sits below core, beside the client
    bad = sorted(f"{p.relative_to(ROOT)} imports {m}" for p in _files(PKG / "waiting") for m in _imports(p)
                 if any(_in(m, f"modelarts_provider.{x}") for x in ("core", *RESOURCES, "stack", "plugin", "cli")))
    assert bad == []

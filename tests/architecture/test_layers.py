"""The layout is the architecture: these import rules are what keeps a change in one place from breaking another.

- modelarts_provider is built in layers (LAYERS, bottom up; docs/ARCHITECTURE.md draws the same): a folder imports
  only itself and the layers below it, never a layer above nor a peer of its own layer. So every resource folder
  (training_job, awaiting, code_upload, bucket, resource_pool, network) imports only core/, the clients (client/,
  obs/), the wait engine (wait_engine/), results/ and itself: a TrainingJob edit cannot break a Network, and no
  resource reaches up into the stack program, the cost, the plugin or the CLI.
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


def _imports(path: Path, root: Path = ROOT) -> set[str]:
    """Absolute module names a file imports (relative imports resolved), top-level and inside functions."""
    rel = path.relative_to(root).with_suffix("")
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


# Bottom up. A folder may import its own layer's folder (itself) and every layer below; what sits on one layer
# together are peers that never import each other.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("client",),            # the ModelArts client: HTTP, signing, wire models, the clouds' table
    ("obs", "wait_engine"),     # the OBS client; the one wait engine (its clock, the engine's Cancel)
    ("core",),              # the kernel every resource uses: provider base, settings, ownership, fields, masking
    ("results",),           # which point of a sweep won: the results' model, curves, the printable lines
    RESOURCES,              # the resources, each apart from the others
    ("cost",),              # what a stack costs: bounds from the resources' args, prices, the budget
    ("stack",),             # the stack program: the stack config -> the resources (and the cost preview)
    ("plugin",),            # the provider plugin's adapter (every resource, the cost of the plugin door)
    ("cli",),               # the tools over a stack
)
# The package's own top modules stand above every layer: its face (__init__, __main__), provider.py (old pickles
# name it) and the template program.
TOP = ("__init__", "__main__", "provider", "templates")
RESOURCE_MAY_IMPORT = {"core", "client", "obs", "wait_engine", "results"}

def _folder(path: Path, pkg: Path) -> str:
    """The package's folder (or top module) a file belongs to: network, core, __init__, provider, ..."""
    parts = path.relative_to(pkg).with_suffix("").parts
    return parts[0]


def _layer_of(folder: str) -> int:
    return next((i for i, layer in enumerate(LAYERS) if folder in layer), len(LAYERS))  # TOP: above every layer


def _against_the_layers(pkg: Path, root: Path) -> list[str]:
    """`FILE -> FOLDER` for every import of a folder on the same layer or a higher one (the folder itself aside)."""
    out = set()
    for p in _files(pkg):
        here = _folder(p, pkg)
        for m in _imports(p, root):
            parts = m.split(".")
            if parts[0] != pkg.name or len(parts) < 2 or parts[1] == here \
                    or not ((pkg / parts[1]).is_dir() or (pkg / f"{parts[1]}.py").is_file()):
                continue  # outside the package, the package's face itself, its own folder, or a name in the face
            if _layer_of(parts[1]) >= _layer_of(here):
                out.add(f"{p.relative_to(root)} -> {parts[1]}")
    return sorted(out)


def test_every_folder_of_the_package_stands_on_a_layer() -> None:
    placed = {f for layer in LAYERS for f in layer} | set(TOP)
    here = {p.stem if p.is_file() else p.name for p in PKG.iterdir()
            if (p.is_dir() and any(p.rglob("*.py"))) or p.suffix == ".py"} - {"__pycache__"}
    assert here - placed == set(), "a new folder: place it on LAYERS (and in docs/ARCHITECTURE.md)"
    assert placed - here == set()


def test_a_resource_imports_only_the_layers_below_it_that_the_architecture_names() -> None:
    below = {f for layer in LAYERS[:LAYERS.index(RESOURCES)] for f in layer}
    assert below == RESOURCE_MAY_IMPORT


def test_no_import_runs_back_up_the_layers() -> None:
    assert _against_the_layers(PKG, ROOT) == []  # none runs back up, not even a type hint's (cost/shapes.py)


def test_the_layer_rule_sees_an_upward_import_a_peer_import_and_one_in_a_function(tmp_path: Path) -> None:
    pkg = tmp_path / "modelarts_provider"
    for folder in ("network", "training_job", "stack", "client", "core"):
        (pkg / folder).mkdir(parents=True)
        (pkg / folder / "__init__.py").write_text("")
    (pkg / "network" / "provider.py").write_text("from ..core.x import y\nfrom ..client import z\n")
    assert _against_the_layers(pkg, tmp_path) == []
    (pkg / "network" / "up.py").write_text("def f():\n    from ..stack.program import plan\n")
    (pkg / "network" / "peer.py").write_text("from modelarts_provider.training_job import args\n")
    (pkg / "client" / "up.py").write_text("from ..core import masking\n")
    assert _against_the_layers(pkg, tmp_path) == ["modelarts_provider/client/up.py -> core",
                                                  "modelarts_provider/network/peer.py -> training_job",
                                                  "modelarts_provider/network/up.py -> stack"]


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
# deadline (call_limits.py, ticking in its own thread), and the OBS reader's backoff between tries of a GET
# (obs/reader.py: what botocore's standard retry mode does inside botocore for ObsClient). Every other wait is a
# condition on wait_engine/engine.py, so it runs on an injectable clock and replays from a recording (tests/waits).
SLEEPS_ALLOWED = {"modelarts_provider/wait_engine/clock.py", "modelarts_provider/client/api.py",
                  "modelarts_provider/client/call_limits.py", "modelarts_provider/obs/reader.py"}


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

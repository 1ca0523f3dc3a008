"""The Python language host we build finds a program's Pulumi packages without pip (scripts/python-host).

Before every engine command the host lists the environment's installed distributions to learn which resource
plugins the program needs; the upstream 3.79 host runs `python -m pip list -v --format json` for it, ours runs
the script in scripts/python-host/installed_packages.go. These hold it to pip's answer and to the engine's.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from testkit.harness import REPO_ROOT, new_stack

GO_SOURCE = REPO_ROOT / "scripts" / "python-host" / "installed_packages.go"


def _script() -> str:
    """The Python the host runs, as the Go constant holds it (a raw string literal: no escapes)."""
    match = re.search(r"const installedPackagesScript = `(.*?)`", GO_SOURCE.read_text(), re.S)
    assert match, f"{GO_SOURCE} no longer declares installedPackagesScript as a raw string"
    return match.group(1)


def _listing(*args: str) -> list[dict[str, str]]:
    out = subprocess.run([sys.executable, *args], text=True, capture_output=True, check=True).stdout
    # pip -v may follow its JSON with a trailer; the host reads the first JSON value only, as does this.
    return json.JSONDecoder().raw_decode(out)[0]


def test_the_script_lists_what_pip_lists_with_the_same_names_versions_and_locations() -> None:
    ours = _listing("-c", _script())
    pips = _listing("-m", "pip", "list", "-v", "--format", "json")
    fields = ("name", "version", "location")
    assert sorted(tuple(d[f] for f in fields) for d in ours) == sorted(tuple(d[f] for f in fields) for d in pips)
    by_name = {d["name"].lower().replace("_", "-"): d for d in ours}
    # The packages the host turns into plugins: pulumi_random's metadata says resource plugin `random`.
    assert (Path(by_name["pulumi-random"]["location"]) / "pulumi_random" / "pulumi-plugin.json").is_file()


def test_the_engine_learns_the_programs_plugins_from_the_host(tmp_path: Path, pulumi_engine: Path) -> None:
    stack = new_stack(tmp_path, "import pulumi_random\n")
    listed = json.loads(stack.run("plugin", "ls", "--project", "--json", stack_flag=False).stdout)
    plugins = {(p["name"], p["kind"], p["version"]) for p in listed}
    assert ("random", "resource", "4.21.1") in plugins, listed

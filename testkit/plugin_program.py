"""Pulumi YAML programs that use the modelarts provider plugin (plugin/modelarts), for tests and benchmarks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from testkit.harness import REPO_ROOT, Stack, engine_bin_dir, pulumi_env

PLUGIN_DIR = REPO_ROOT / "plugin" / "modelarts"


def write_program(workdir: Path, resources: dict[str, Any], outputs: dict[str, Any] | None = None,
                  project: str = "yaml-jobs") -> None:
    program = {"name": project, "runtime": "yaml",
               "plugins": {"providers": [{"name": "modelarts", "path": str(PLUGIN_DIR)}]},
               "resources": resources, "outputs": outputs or {}}
    (workdir / "Pulumi.yaml").write_text(yaml.safe_dump(program, sort_keys=False))


def yaml_stack(base: Path, emu: Any, resources: dict[str, Any], outputs: dict[str, Any] | None = None, *,
               config: dict[str, str] | None = None, secrets: dict[str, str] | None = None) -> Stack:
    """A fresh YAML project in `base/project` with one stack configured for the emulator (or as given)."""
    if not (engine_bin_dir() / "pulumi-language-yaml").exists():
        raise AssertionError("the YAML language host is missing: run ./dev setup (scripts/install_engine.sh builds it)")
    workdir = base / "project"
    workdir.mkdir(parents=True)
    write_program(workdir, resources, outputs)
    st = Stack(workdir=workdir, name="test", env=pulumi_env(base))
    st.init()
    st.set_all_config(config if config is not None else {
        "modelarts:region": "cn-north-4", "modelarts:projectId": emu.project_id, "modelarts:endpoint": emu.url,
        "modelarts:accessKey": emu.access_key}, secrets if secrets is not None else {"modelarts:secretKey": emu.secret_key})
    return st

"""The stack's config file as written (`<stackConfigDir>/Pulumi.<stack>.yaml`) and the `secure:` markers in it.

Plain data, without Pulumi: the stack program (stack/secrets.py) reads which parts of a secret key are secret from
it, and so do the command-line tools (cli/stack_reader.py), which must not import Pulumi to answer in time.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml

Path_ = tuple[Any, ...]  # (section, key, field, ...) in the config's own spelling


def _secure_paths(node: Any, path: Path_ = ()) -> Iterable[Path_]:
    if isinstance(node, dict):
        if set(node) == {"secure"}:
            yield path
            return
        for k, v in node.items():
            yield from _secure_paths(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _secure_paths(v, path + (i,))


def _at(value: Any, path: Path_) -> Any:
    for part in path:
        value = value[part]
    return value


def secured_parts(written: Any, value: Any) -> list[Any] | None:
    """The parts of a decrypted config value that the stack file marks `secure:` (`written`: the key as the file
    holds it), or None when the file does not say (the whole key set as one secret, or no file)."""
    found = list(_secure_paths(written)) if written is not None else []
    if not found or found == [()]:
        return None
    try:
        return [_at(value, path) for path in found]
    except (KeyError, IndexError, TypeError):
        return None


def stack_file(project_dir: Path, stack: str) -> Path:
    """<stackConfigDir>/Pulumi.<stack>.yaml as Pulumi.yaml places it."""
    project = yaml.safe_load((project_dir / "Pulumi.yaml").read_text()) or {}
    return project_dir / (project.get("stackConfigDir") or ".") / f"Pulumi.{stack}.yaml"


def read_stack_config(project_dir: Path, stack: str) -> dict[str, Any] | None:
    try:
        doc = yaml.safe_load(stack_file(project_dir, stack).read_text()) or {}
    except (OSError, yaml.YAMLError):
        return None
    config = doc.get("config")
    return config if isinstance(config, dict) else None

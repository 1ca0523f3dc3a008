"""Secret stack-config values stay secrets in the resources built from them.

Pulumi tells a program only which top-level keys hold a secret (`modelarts-jobs:jobs` as a whole,
after `pulumi config set --secret --path modelarts-jobs:jobs.a.environments.HF_TOKEN ...`), and
`Config.get_object` returns plain values. To keep just the secret leaves secret, the stack's config
file is read for the leaves written as `secure:`; when it cannot be read (config from elsewhere, e.g.
an environment), every leaf of a secret key counts as secret. Then every string value of a job's args
that equals or contains a secret value becomes a Pulumi secret, wherever the program put it
(environments, parameters, a command line).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pulumi
import yaml

from .sweep import as_param

MIN_SECRET_LEN = 4  # shorter values (e.g. "1", "true") would mark unrelated fields secret


def _leaves(value: Any) -> Iterable[Any]:
    if isinstance(value, dict):
        for v in value.values():
            yield from _leaves(v)
    elif isinstance(value, list):
        for v in value:
            yield from _leaves(v)
    else:
        yield value


def _secure_paths(node: Any, path: tuple[Any, ...] = ()) -> Iterable[tuple[Any, ...]]:
    if isinstance(node, dict):
        if set(node) == {"secure"}:
            yield path
            return
        for k, v in node.items():
            yield from _secure_paths(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _secure_paths(v, path + (i,))


def _at(value: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        value = value[part]
    return value


def stack_file(project_dir: Path, stack: str) -> Path:
    """<stackConfigDir>/Pulumi.<stack>.yaml as Pulumi.yaml places it."""
    project = yaml.safe_load((project_dir / "Pulumi.yaml").read_text()) or {}
    return project_dir / (project.get("stackConfigDir") or ".") / f"Pulumi.{stack}.yaml"


def secret_values(sections: dict[str, Any], full_key: Callable[[str], str], is_secret: Callable[[str], bool],
                  stack_config: dict[str, Any] | None) -> set[str]:
    """The secret leaf values of the sections (as the strings they become on the wire)."""
    out: set[str] = set()
    for section, value in sections.items():
        key = full_key(section)
        if value is None or not is_secret(key):
            continue
        written = (stack_config or {}).get(key)
        paths = list(_secure_paths(written)) if written is not None else []
        try:
            leaves = [_at(value, p) for p in paths] if paths else list(_leaves(value))
        except (KeyError, IndexError, TypeError):
            leaves = list(_leaves(value))
        out |= {as_param(v) for v in leaves if isinstance(v, (str, int, float, bool))}
    return {v for v in out if len(v) >= MIN_SECRET_LEN}


def read_stack_config(project_dir: Path, stack: str) -> dict[str, Any] | None:
    try:
        doc = yaml.safe_load(stack_file(project_dir, stack).read_text()) or {}
    except (OSError, yaml.YAMLError):
        return None
    config = doc.get("config")
    return config if isinstance(config, dict) else None


def mark_secrets(value: Any, secrets: set[str]) -> Any:
    """The same structure, with every string that equals or contains a secret as a Pulumi secret."""
    if not secrets:
        return value
    if isinstance(value, dict):
        return {k: mark_secrets(v, secrets) for k, v in value.items()}
    if isinstance(value, list):
        return [mark_secrets(v, secrets) for v in value]
    if isinstance(value, str) and any(s in value for s in secrets):
        return pulumi.Output.secret(value)
    return value

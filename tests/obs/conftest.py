"""Fixtures of the OBS suite: a local OBS per test (its own port, state dir, counters, faults)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture
def obs(tmp_path: Path) -> Iterator[Any]:
    from obs_emulator.testing import running_obs

    with running_obs(tmp_path / "obs") as server:
        yield server


@pytest.fixture
def s3(obs: Any) -> Any:
    """A plain boto3 client of the local OBS (no retries), to look at what the code under test did."""
    return obs.client()


def code_dir(root: Path, files: dict[str, str | bytes]) -> Path:
    """Write a small code directory: {relative path: content}."""
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
    return root


def keys(s3: Any, bucket: str, prefix: str = "") -> list[str]:
    out: list[str] = []
    for page in s3.get_paginator("list_objects").paginate(Bucket=bucket, Prefix=prefix):
        out += [o["Key"] for o in page.get("Contents", [])]
    return out

"""Team state on OBS (issue 12): the real engine with its self-managed backend in a bucket of the local OBS.

Every stack a test makes (harness.new_stack / kit.job_stack) gets, instead of the harness's file backend:

    PULUMI_BACKEND_URL=s3://team-state?endpoint=<local OBS>&region=cn-north-4&s3ForcePathStyle=true
                       &response_checksum_validation=when_required
    AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY = the local OBS's AK/SK (other AWS_* variables removed)
    PULUMI_CONFIG_PASSPHRASE = TEAM_PASSPHRASE

The ModelArts emulator is told where the local OBS is, so code uploads are checked as the service does.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from testkit import harness
from testkit.faults import FAST_EMULATOR
from tests.obs.conftest import obs, s3  # noqa: F401  (the local OBS per test, shared with tests/obs)

STATE_BUCKET = "team-state"
TEAM_PASSPHRASE = "team-passphrase-Vq83-shared-by-ci"


def backend_url(obs: Any, bucket: str = STATE_BUCKET) -> str:
    return (f"s3://{bucket}?endpoint={obs.url}&region={obs.region}&s3ForcePathStyle=true"
            f"&response_checksum_validation=when_required")


def backend_env(obs: Any) -> dict[str, str]:
    """What a teammate or CI exports to use the team's backend (the OBS AK/SK under Pulumi's names)."""
    return {"PULUMI_BACKEND_URL": backend_url(obs), "AWS_ACCESS_KEY_ID": obs.access_key,
            "AWS_SECRET_ACCESS_KEY": obs.secret_key, "PULUMI_CONFIG_PASSPHRASE": TEAM_PASSPHRASE}


@pytest.fixture
def emu(tmp_path: Path, obs: Any, pulumi_engine: Path) -> Iterator[Any]:
    from modelarts_emulator.testing import running_emulator

    with running_emulator(tmp_path / "emulator", obs_endpoint=obs.url, **FAST_EMULATOR) as e:
        yield e


@pytest.fixture
def team_backend(obs: Any, s3: Any, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The state bucket (Pulumi does not create it), and every new stack pointed at it."""
    s3.create_bucket(Bucket=STATE_BUCKET, CreateBucketConfiguration={"LocationConstraint": obs.region})
    extra = backend_env(obs)
    point_new_stacks_at(monkeypatch, extra)
    return extra


def point_new_stacks_at(monkeypatch: pytest.MonkeyPatch, extra: dict[str, str]) -> None:
    """harness.new_stack (and kit.job_stack) make stacks with `extra` instead of the file backend."""
    file_env = harness.pulumi_env

    def pulumi_env(base: Path) -> dict[str, str]:
        env = {k: v for k, v in file_env(base).items() if not k.startswith("AWS_") or k == "AWS_CA_BUNDLE"}
        env.update(extra)
        return env

    monkeypatch.setattr(harness, "pulumi_env", pulumi_env)

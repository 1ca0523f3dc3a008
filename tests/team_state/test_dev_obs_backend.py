"""`MODELARTS_BACKEND=obs ./dev up`: the local stack's state in the local OBS (bucket modelarts-pulumi-state),
with ./dev's own state directory redirected (MODELARTS_STATE) so the repository's .state/ is not touched.

./dev serves the local clouds on their fixed ports (8780, 8781): when something already listens there
(e.g. a developer's own ./dev up), the test fails saying so (never a silent skip): stop them and rerun.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
from pathlib import Path
from typing import Any

import pytest

from testkit.harness import REPO_ROOT, engine_bin_dir

DEV = REPO_ROOT / "dev"
BUCKET = "modelarts-pulumi-state"
LOCAL_OBS = "http://127.0.0.1:8781"
PORTS = (8780, 8781, 8782)  # the local ModelArts, OBS and billing service of ./dev
pytestmark = pytest.mark.fixed_ports


def _busy(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def require_free_ports() -> None:
    """Fail, never skip, naming what to stop, when something listens on ./dev's fixed ports."""
    busy = [p for p in PORTS if _busy(p)]
    if busy:
        pytest.fail(f"port(s) {busy} in use (a running ./dev up?): ./dev's local clouds need them: "
                    "run ./dev emulator stop, ./dev obs stop and ./dev billing stop, then this test again")


def _dev(env: dict[str, str], *args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(DEV), *args], cwd=REPO_ROOT, env=env, text=True, capture_output=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)


def _s3() -> Any:
    """A boto3 client of ./dev's local OBS (path-style, its default AK/SK)."""
    import boto3
    from botocore.config import Config

    from obs_emulator import config as c

    return boto3.client("s3", endpoint_url=LOCAL_OBS, region_name=c.DEFAULT_REGION,
                        aws_access_key_id=c.DEFAULT_ACCESS_KEY, aws_secret_access_key=c.DEFAULT_SECRET_KEY,
                        config=Config(s3={"addressing_style": "path"}))


def test_dev_up_with_obs_backend_keeps_the_local_stack_state_in_the_local_obs(tmp_path: Path,
                                                                             pulumi_engine: Path) -> None:
    if not (engine_bin_dir() / "pulumi").exists():
        pytest.fail("the engine is not built: run ./dev setup first (./dev test does)")
    require_free_ports()
    state = tmp_path / "state"
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PULUMI_", "HW_", "OS_", "AWS_ACCESS", "AWS_SECRET", "AWS_SESSION"))}
    env.update(MODELARTS_STATE=str(state), MODELARTS_BACKEND="obs")
    try:
        up = _dev(env, "up")
        assert up.returncode == 0, up.stdout + up.stderr
        assert f"obs: created the state bucket {BUCKET}" in up.stderr
        s3 = _s3()
        keys = {o["Key"] for o in s3.list_objects(Bucket=BUCKET).get("Contents", [])}
        assert ".pulumi/stacks/modelarts-jobs/local.json" in keys, keys
        stored = json.loads(s3.get_object(Bucket=BUCKET, Key=".pulumi/stacks/modelarts-jobs/local.json")["Body"].read())
        stored_urns = {r["urn"] for r in stored["checkpoint"]["latest"]["resources"]}
        assert any(u.endswith("TrainingJob::mnist") for u in stored_urns), stored_urns
        assert not (state / "backend" / ".pulumi").exists()  # nothing in the file backend

        # The other ./dev pulumi commands use the same state, quietly once everything runs.
        exported = _dev(env, "pulumi", "stack", "export")
        assert exported.returncode == 0 and exported.stderr == "", exported.stderr
        assert {r["urn"] for r in json.loads(exported.stdout)["deployment"]["resources"]} == stored_urns
        preview = _dev(env, "pulumi", "preview", "--expect-no-changes")
        assert preview.returncode == 0, preview.stdout + preview.stderr

        # HW_ACCESS_KEY/HW_SECRET_KEY reach Pulumi's backend as AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY:
        # keys the local OBS does not know are refused, naming the variables.
        foreign = _dev({**env, "HW_ACCESS_KEY": "SOMEONEELSESAK000001", "HW_SECRET_KEY": "not-the-local-sk"},
                       "pulumi", "stack", "ls")
        assert foreign.returncode != 0
        assert "InvalidAccessKeyId" in foreign.stderr and "HW_ACCESS_KEY" in foreign.stderr, foreign.stderr

        destroy = _dev(env, "destroy")
        assert destroy.returncode == 0, destroy.stdout + destroy.stderr
        stored = json.loads(s3.get_object(Bucket=BUCKET, Key=".pulumi/stacks/modelarts-jobs/local.json")["Body"].read())
        assert not stored["checkpoint"].get("latest", {}).get("resources")
    finally:
        _dev(env, "emulator", "stop", timeout=60)
        _dev(env, "obs", "stop", timeout=60)
        _dev(env, "billing", "stop", timeout=60)  # ./dev up starts the local billing service too

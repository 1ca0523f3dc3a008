"""The bad-input suite's programs and valid configs: the repository's stack program, and a one-resource
program that declares a TrainingJob from `case:args` (the provider's check on its own)."""

from __future__ import annotations

import copy
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.bad_input.args_cases import VALID_ARGS
from testkit.harness import REPO_ROOT
from testkit.faults import OBS, POOLS, PROJECT, job

ARGS_PROGRAM = '''
import pulumi
from modelarts_provider import TrainingJob

args = pulumi.Config("case").require_object("args")
job = TrainingJob("direct", args)
pulumi.export("id", job.job_id)
'''
ARGS_PROJECT = "bad-input-args"
SECRET_KEYS = frozenset({"modelarts:secretKey"})


def provider_settings(endpoint: str, project_id: str, access_key: str, secret_key: str) -> dict[str, Any]:
    """The `modelarts:` settings of a valid stack (AK/SK auth); the secret key is in SECRET_KEYS."""
    return {"modelarts:region": "cn-north-4", "modelarts:projectId": project_id, "modelarts:endpoint": endpoint,
            "modelarts:accessKey": access_key, "modelarts:secretKey": secret_key}


def valid_stack_config(settings: dict[str, Any]) -> dict[str, Any]:
    """A fresh copy each time: cases edit it in place."""
    return copy.deepcopy({**settings, f"{PROJECT}:obs": OBS, f"{PROJECT}:pools": POOLS,
                          f"{PROJECT}:jobs": {"a": job(name="bad-input-a")}})


def valid_args_config(settings: dict[str, Any]) -> dict[str, Any]:
    """A fresh copy each time: cases edit it in place."""
    return copy.deepcopy({**settings, "case:args": VALID_ARGS})


# In-process runs point at an address nothing listens on, and refuse any connection anyway.
OFFLINE = provider_settings("http://127.0.0.1:9", "a1b2c3d4e5f60718293a4b5c6d7e8f90", "EMULATORLOCALAK00001",
                            "offline-secret-key-of-the-suite")


@pytest.fixture(scope="session")
def project_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project directory with the repository's program (`__main__.py`) and the args program (`args.py`):
    a code directory of the stack config (`code.localDir: .`) is resolved from here, as in a preview."""
    d = tmp_path_factory.mktemp("bad-input-project")
    shutil.copy(REPO_ROOT / "__main__.py", d / "__main__.py")
    (d / "args.py").write_text(ARGS_PROGRAM)
    (d / "Pulumi.yaml").write_text(f"name: {PROJECT}\nruntime: python\n")
    return d

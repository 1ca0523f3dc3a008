from __future__ import annotations

import hashlib
from typing import Any

CODE = {"code_dir": "obs://bkt/code/", "boot_file": "obs://bkt/code/train.py",
        "engine": {"engine_name": "PyTorch", "engine_version": "1.8"}}


def owner_of(resource: str, stack: str = "organization/proj/dev") -> dict[str, str]:
    """The owner mark of the stack resource `resource` (modelarts_provider.core.ownership): one token per resource."""
    return {"stack": stack, "resource": resource,
            "token": hashlib.sha256(f"{stack}::{resource}".encode()).hexdigest()[:16]}


def job_inputs(**over: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "name": "job-a", "description": "d", "flavor_id": "modelarts.vm.cpu.2u",
        "algorithm": {**CODE, "parameters": {"lr": 0.1},
                      "outputs": [{"name": "train_url", "obs_url": "obs://bkt/out/"}]},
        "poll_interval_seconds": 0.05, "wait_timeout_seconds": 5,
    }
    base.update(over)
    base.setdefault("owner", owner_of("a"))
    return base


# AK/SK settings of a provider under test (no call leaves the fake client).
CREDENTIALS = {"region": "cn-north-4", "projectId": "p", "accessKey": "AK", "secretKey": "SK"}


def provider_for(client: Any, **settings: str) -> Any:
    """A TrainingJobProvider configured with CREDENTIALS (overridden by `settings`) on the fake client."""
    from modelarts_provider.core.provider_config import resolve_settings
    from modelarts_provider.training_job.provider import TrainingJobProvider

    p = TrainingJobProvider()
    p._settings = resolve_settings({**CREDENTIALS, **settings}.get, {})
    p._api = lambda: client  # type: ignore[method-assign]
    return p


def checked(**over: Any) -> dict[str, Any]:
    """The inputs check() stores for job_inputs(**over), which must be valid."""
    from modelarts_provider.training_job.check import check_inputs

    inputs, failures = check_inputs(job_inputs(**over))
    assert failures == []
    return inputs

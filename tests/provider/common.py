from __future__ import annotations

import hashlib
from typing import Any

CODE = {"code_dir": "obs://bkt/code/", "boot_file": "obs://bkt/code/train.py",
        "engine": {"engine_name": "PyTorch", "engine_version": "1.8"}}


def owner_of(resource: str, stack: str = "organization/proj/dev") -> dict[str, str]:
    """The owner mark of the stack resource `resource` (modelarts_provider.ownership): one token per resource."""
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

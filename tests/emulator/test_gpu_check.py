"""The device check (`./dev gpu-check`, scripts/gpu_check.py) end to end in its CPU-only mode: what a machine
without GPUs can check (the 2-node data-parallel job, a CPU-flavor job that sees no GPU), one line per check."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _module():
    spec = importlib.util.spec_from_file_location("gpu_check", ROOT / "scripts" / "gpu_check.py")
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


def test_the_cpu_only_check_runs_end_to_end_and_prints_a_line_per_check() -> None:
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "gpu_check.py"), "--cpu-only"], text=True,
                          capture_output=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert any(ln.startswith("SKIP gpu-job: --cpu-only") for ln in lines), lines
    assert any(ln.startswith("PASS ddp-2-node: 2 ranks averaged 4 steps") for ln in lines), lines
    assert any(ln.startswith("PASS cpu-no-gpu: CUDA_VISIBLE_DEVICES=''") for ln in lines), lines


def test_ranks_that_do_not_agree_fail_the_ddp_check() -> None:
    averaged = _module()._averaged
    rank0 = "epoch 1/1 rank=0 local_grad=[1.0, 2.0] mean_grad=[2.0, 3.0] loss=1\n"
    rank1 = "epoch 1/1 rank=1 local_grad=[3.0, 4.0] mean_grad=[2.0, 3.0] loss=1\n"
    assert averaged([rank0, rank1]) is None
    assert "step 1" in averaged([rank0, rank1.replace("mean_grad=[2.0, 3.0]", "mean_grad=[3.0, 4.0]")])
    assert "step 1" in averaged([rank0.replace("[2.0, 3.0]", "[1.0, 2.0]"), rank1.replace("[2.0, 3.0]", "[1.0, 2.0]")])
    assert "steps per rank" in averaged([rank0, ""])


def test_the_wheelhouse_lists_the_project_and_local_cloud_packages() -> None:
    pins = _module().requirements()
    assert any(p.startswith("pulumi==") for p in pins) and any(p.startswith("numpy==") for p in pins)
    assert all("==" in p for p in pins)  # pinned: the GPU machine installs exactly what was tested

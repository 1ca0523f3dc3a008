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


def test_the_check_venv_sees_the_packages_of_a_venvs_python(tmp_path) -> None:
    """`./dev gpu-check --wheelhouse` with GPU_CHECK_PYTHON=/opt/torch/bin/python (a venv's): a venv made from it with
    --system-site-packages sees the base interpreter's packages, not that venv's; --make-venv must see them."""
    source = tmp_path / "torch-venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(source)], check=True, timeout=120)
    source_python = source / "bin" / "python"
    (site,) = _module().site_dirs(str(source_python))[:1]
    Path(site, "fake_torch_57.py").write_text("VERSION = 'in the source venv'\n")
    probe = ["-c", "import fake_torch_57; print(fake_torch_57.VERSION)"]

    plain = tmp_path / "plain"  # what the check did before: the source venv's package is not seen
    subprocess.run([str(source_python), "-m", "venv", "--system-site-packages", "--without-pip", str(plain)],
                   check=True, timeout=120)
    assert subprocess.run([str(plain / "bin" / "python"), *probe], capture_output=True).returncode != 0

    made = subprocess.run([str(source_python), str(ROOT / "scripts" / "gpu_check.py"), "--make-venv",
                           str(tmp_path / "check")], capture_output=True, text=True, timeout=300)
    assert made.returncode == 0, made.stderr
    seen = subprocess.run([str(tmp_path / "check" / "bin" / "python"), *probe], capture_output=True, text=True)
    assert seen.stdout.strip() == "in the source venv", seen.stderr


def test_dev_makes_the_check_venv_with_the_make_venv_step() -> None:
    body = (ROOT / "dev").read_text().split("gpu_check() {", 1)[1].split("\n}\n", 1)[0]
    assert 'scripts/gpu_check.py --make-venv "$venv"' in body and "-m venv" not in body

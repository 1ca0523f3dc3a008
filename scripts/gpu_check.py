#!/usr/bin/env python3
"""The device check: the local ModelArts runs training scripts on this machine's GPUs as the service would.

Run by `./dev gpu-check` (docs/local-execution.md). It starts a local OBS and an execution-mode local ModelArts
(`--gpus auto`, the engine PyTorch mapped to this Python) on free ports and runs, printing one line per check:

  gpu-job      a GPU-flavor job whose PyTorch script trains on `cuda` (device and throughput in the line)
  ddp-2-node   a 2-node job of the data-parallel example: torch.distributed (NCCL with a GPU per node, else gloo)
               where PyTorch is installed, else the sockets-and-numpy version; both ranks' averaged gradients
               must agree and equal the mean of their own
  cpu-no-gpu   a CPU-flavor job that must see no GPU

On a machine without GPUs (or with `--cpu-only`) `gpu-job` is skipped and the rest runs: what can be checked there.
Exit status 1 on any failure. It needs the project's packages with the local clouds (`[local]`) and, for the GPU
checks, PyTorch in the same Python; nothing from the network.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

BUCKET = "gpu-check"
GPU_FLAVOR = "modelarts.p3.large.public"  # 1 GPU per node
CPU_FLAVOR = "modelarts.vm.cpu.8u"
PYTORCH = {"engine_name": "PyTorch", "engine_version": "pytorch_1.8.0-cuda_10.2-py_3.7-ubuntu_18.04-x86_64"}
JOB_TIMEOUT_S = 120.0


class Check:
    def __init__(self, name: str) -> None:
        self.name, self.ok, self.detail, self.skipped = name, False, "", False

    def line(self) -> str:
        status = "SKIP" if self.skipped else ("PASS" if self.ok else "FAIL")
        return f"{status} {self.name}: {self.detail}"


def _averaged(logs: list[str]) -> str | None:
    """None when every step's mean gradient agrees across ranks and is the mean of theirs; else what is wrong."""
    steps = [[(json.loads(m[1]), json.loads(m[2])) for m in
              re.finditer(r"local_grad=(\[[^\]]*\]) mean_grad=(\[[^\]]*\])", log)] for log in logs]
    if not steps[0] or any(len(s) != len(steps[0]) for s in steps):
        return f"steps per rank: {[len(s) for s in steps]}"
    for i, per_rank in enumerate(zip(*steps)):
        means = {json.dumps(mean) for _, mean in per_rank}
        expected = [sum(v) / len(per_rank) for v in zip(*(local for local, _ in per_rank))]
        got = per_rank[0][1]
        if len(means) != 1 or any(abs(a - b) > 1e-5 for a, b in zip(got, expected)):
            return f"step {i + 1}: ranks' means {sorted(means)} vs the mean of their gradients {expected}"
    return None


class Runner:
    def __init__(self, client: Any, s3: Any) -> None:
        self.client, self.s3 = client, s3

    def upload(self, name: str, files: dict[str, Path]) -> None:
        for key, path in files.items():
            self.s3.put_object(Bucket=BUCKET, Key=f"code/{name}/{key}", Body=path.read_bytes())

    def run(self, name: str, code: str, boot: str, flavor: str, nodes: int = 1,
            params: dict[str, str] | None = None) -> tuple[str, list[str], float]:
        """Create the job, wait for it to end: (phase, each task's log, seconds)."""
        from modelarts_provider.client.models import CreateTrainingJobRequest

        body = {"kind": "job", "metadata": {"name": name},
                "algorithm": {"code_dir": f"obs://{BUCKET}/code/{code}/", "boot_file": f"obs://{BUCKET}/code/{code}/{boot}",
                              "engine": PYTORCH,
                              "parameters": [{"name": k, "value": v} for k, v in (params or {}).items()]},
                "spec": {"resource": {"flavor_id": flavor, "node_count": nodes}}}
        start = time.monotonic()
        job = self.client.create_job(CreateTrainingJobRequest.model_validate(body))
        while (phase := self.client.get_job(job.id).phase) not in ("Completed", "Failed", "Abnormal", "Terminated"):
            if time.monotonic() - start > JOB_TIMEOUT_S:
                break
            time.sleep(0.5)
        logs = [self.client.get_task_log_preview(job.id, f"worker-{i}").text for i in range(nodes)]
        return phase, logs, time.monotonic() - start


def gpu_job(run: Runner, gpus: int, torch: bool, cpu_only: bool) -> Check:
    check = Check("gpu-job")
    if cpu_only or gpus == 0:
        check.skipped, check.detail = True, "no GPU on this machine (nvidia-smi found none)" if not cpu_only else "--cpu-only"
        return check
    if not torch:
        check.detail = "this Python has no PyTorch: the GPU checks need it (docs/local-execution.md)"
        return check
    run.upload("gpu", {"train_gpu.py": ROOT / "training" / "gpu_check" / "train_gpu.py"})
    phase, (log,), took = run.run("gpu-check-gpu", "gpu", "train_gpu.py", GPU_FLAVOR)
    found = re.search(r"device=(\S+) name=(.+?) matmul_tflops=([\d.]+)", log)
    samples = re.search(r"samples_per_s=(\d+)", log)
    check.ok = phase == "Completed" and found is not None and "MA_NUM_GPUS=1" in log
    check.detail = (f"{found[1]} {found[2]}, {found[3]} TFLOP/s, {samples[1] if samples else '?'} samples/s "
                    f"({took:.0f} s)" if check.ok and found else f"{phase}: {log.strip().splitlines()[-3:]}")
    return check


def ddp_job(run: Runner, gpus: int, torch: bool, cpu_only: bool) -> Check:
    check = Check("ddp-2-node")
    with_gpus = torch and not cpu_only and gpus >= 2
    boot = "train_torch.py" if torch else "train.py"
    run.upload("ddp", {"train.py": ROOT / "training" / "ddp" / "train.py",
                       "train_torch.py": ROOT / "training" / "ddp" / "train_torch.py"})
    phase, logs, took = run.run("gpu-check-ddp", "ddp", boot, GPU_FLAVOR if with_gpus else CPU_FLAVOR, nodes=2,
                                params={"epochs": "4", "lr": "0.1"})
    wrong = _averaged(logs) if phase == "Completed" else f"{phase}: {[log.strip().splitlines()[-2:] for log in logs]}"
    backend = re.search(r"backend (\w+)", logs[0]) if torch else None
    how = f"torch.distributed {backend[1] if backend else '?'}" if torch else "sockets and numpy"
    check.ok = wrong is None
    check.detail = f"2 ranks averaged 4 steps with {how} ({took:.0f} s)" if check.ok else str(wrong)
    return check


def cpu_job(run: Runner, gpus: int, torch: bool, cpu_only: bool) -> Check:
    check = Check("cpu-no-gpu")
    run.upload("cpu", {"sees_no_gpu.py": ROOT / "training" / "gpu_check" / "sees_no_gpu.py"})
    phase, (log,), took = run.run("gpu-check-cpu", "cpu", "sees_no_gpu.py", CPU_FLAVOR)
    seen = re.search(r"CUDA_VISIBLE_DEVICES=(\S+) MA_NUM_GPUS=(\S+) torch_cuda=(\S+)", log)
    check.ok = phase == "Completed" and seen is not None
    check.detail = (f"CUDA_VISIBLE_DEVICES={seen[1]}, torch sees CUDA: {seen[3]} ({took:.0f} s)" if check.ok and seen
                    else f"{phase}: {log.strip().splitlines()[-2:]}")
    return check


CHECKS: tuple[Callable[[Runner, int, bool, bool], Check], ...] = (gpu_job, ddp_job, cpu_job)


def requirements() -> list[str]:
    """The pinned packages the check needs: the project's own and its local clouds' (pyproject.toml)."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return [*project["dependencies"], *project["optional-dependencies"]["local"]]


def prepare(out: Path, python_version: str) -> int:
    """On a machine with the package index: a wheelhouse of those packages for the target Python (Linux x86_64),
    so that the GPU machine installs with `pip install --no-index --find-links` and no network."""
    import subprocess

    out.mkdir(parents=True, exist_ok=True)
    (out / "requirements.txt").write_text("\n".join(requirements()) + "\n")
    platforms = [a for p in ("manylinux2014_x86_64", "manylinux_2_17_x86_64", "manylinux_2_28_x86_64",
                             "manylinux_2_34_x86_64") for a in ("--platform", p)]
    cmd = [sys.executable, "-m", "pip", "download", "--quiet", "--dest", str(out / "wheelhouse"),
           "--only-binary=:all:", "--python-version", python_version, *platforms, "-r", str(out / "requirements.txt")]
    done = subprocess.run(cmd)
    if done.returncode == 0:
        wheels = list((out / "wheelhouse").glob("*.whl"))
        size = sum(w.stat().st_size for w in wheels) / 2**20
        print(f"wheelhouse: {len(wheels)} wheels, {size:.0f} MiB, for Python {python_version} in {out}")
    return done.returncode


SOURCE_PTH = "gpu-check-source-python.pth"


def site_dirs(python: str) -> list[str]:
    """Where ``python`` imports installed packages from (a venv's own site-packages when it is a venv's python)."""
    import subprocess

    code = "import json, sysconfig; p = sysconfig.get_paths(); print(json.dumps([p['purelib'], p['platlib']]))"
    out = subprocess.run([python, "-c", code], capture_output=True, text=True, check=True)
    return list(dict.fromkeys(json.loads(out.stdout)))


def make_venv(venv: Path, with_pip: bool = True) -> Path:
    """The check's venv: packages from the wheelhouse go into it, and it sees this Python's (PyTorch).

    ``--system-site-packages`` alone is not enough: a venv made from a venv's python (the docs' /opt/torch/bin/python)
    sees the BASE interpreter's packages, not that venv's, where PyTorch is. So a .pth file in the new venv adds this
    Python's own site-packages after the venv's own (the wheelhouse's versions win); made again on every run, in
    case GPU_CHECK_PYTHON changed. Its python."""
    import subprocess

    python = venv / "bin" / "python"
    if not python.exists():
        cmd = [sys.executable, "-m", "venv", "--system-site-packages", *([] if with_pip else ["--without-pip"]),
               str(venv)]
        subprocess.run(cmd, check=True)
    (own,) = site_dirs(str(python))[:1]
    Path(own, SOURCE_PTH).write_text("".join(f"{d}\n" for d in site_dirs(sys.executable)))
    return python


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cpu-only", action="store_true", help="check what a machine without GPUs can")
    parser.add_argument("--prepare", type=Path, metavar="DIR",
                        help="only build DIR/wheelhouse and DIR/requirements.txt for the GPU machine (needs the index)")
    parser.add_argument("--python-version", default=f"{sys.version_info[0]}.{sys.version_info[1]}",
                        help="with --prepare: the GPU machine's Python (default: this one's)")
    parser.add_argument("--make-venv", type=Path, metavar="DIR",
                        help="only make DIR, a venv that sees this Python's packages (PyTorch) even when this Python "
                             "is a venv's; ./dev gpu-check --wheelhouse runs it with GPU_CHECK_PYTHON")
    args = parser.parse_args(argv)
    if args.make_venv:
        make_venv(args.make_venv)
        return 0
    if args.prepare:
        return prepare(args.prepare, args.python_version)
    from modelarts_emulator.execution.gpus import detect
    from modelarts_emulator.testing import running_emulator
    from modelarts_provider.client import AkSkCredentials, ClientSettings, ModelArtsClient
    from obs_emulator.testing import running_obs

    started = time.monotonic()
    found = detect()
    torch = importlib.util.find_spec("torch") is not None
    print(f"machine: {len(found)} GPU(s) {', '.join(g.name for g in found) or ''}; PyTorch: "
          f"{'yes' if torch else 'no'}; python {sys.executable}", flush=True)
    with tempfile.TemporaryDirectory(prefix="gpu-check-") as tmp, running_obs(Path(tmp) / "obs") as obs, \
            running_emulator(Path(tmp) / "emu", phase_seconds=0.2, obs_endpoint=obs.url, execute=True,
                             gpus="none" if args.cpu_only else "auto", max_run_seconds=JOB_TIMEOUT_S,
                             engine_python=[f"PyTorch={sys.executable}"]) as emu:
        s3 = obs.client()
        s3.create_bucket(Bucket=BUCKET, CreateBucketConfiguration={"LocationConstraint": s3.meta.region_name})
        settings = ClientSettings(region="cn-north-4", project_id=emu.project_id, endpoint=emu.url,
                                  credentials=AkSkCredentials(access_key=emu.access_key, secret_key=emu.secret_key))
        with ModelArtsClient(settings) as client:
            runner = Runner(client, s3)
            results = []
            for check in CHECKS:
                results.append(check(runner, len(found), torch, args.cpu_only))
                print(results[-1].line(), flush=True)
    failed = [c for c in results if not c.ok and not c.skipped]
    print(f"{len(results) - len(failed)} of {len(results)} checks passed or skipped, {len(failed)} failed, "
          f"in {time.monotonic() - started:.0f} s", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

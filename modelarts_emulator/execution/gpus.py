"""The machine's GPUs and who holds them, for execution mode: a GPU-flavor job's tasks get as many as the flavor has.

The service gives each node of a GPU flavor its own cards and none to a CPU flavor; locally every task is a process
on one machine, so the emulator hands out the machine's NVIDIA GPUs (found with ``nvidia-smi``, or named with
``--gpus``) by index: a task sees exactly its own through ``CUDA_VISIBLE_DEVICES`` and ``MA_NUM_GPUS``, a CPU
flavor sees none, and a job waits in Pending while too few are free, as the service's scheduler queues it.
"""

from __future__ import annotations

import shutil
import subprocess
import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ..catalog.model import Catalog

NVIDIA_SMI_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class Gpu:
    index: int
    name: str = "GPU"
    memory: str = ""


def parse_nvidia_smi(text: str) -> list[Gpu]:
    """``nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader`` -> the GPUs it lists."""
    gpus = []
    for line in text.splitlines():
        parts = [p.strip() for p in line.split(",")]
        if parts and parts[0].isdigit():
            gpus.append(Gpu(int(parts[0]), parts[1] if len(parts) > 1 else "GPU", parts[2] if len(parts) > 2 else ""))
    return gpus


def detect(run: Callable[..., Any] = subprocess.run) -> list[Gpu]:
    """The machine's NVIDIA GPUs; none when there is no ``nvidia-smi`` or it fails (a machine without GPUs)."""
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return []
    try:
        out = run([smi, "--query-gpu=index,name,memory.total", "--format=csv,noheader"], capture_output=True,
                  text=True, timeout=NVIDIA_SMI_TIMEOUT_S)
    except (OSError, subprocess.SubprocessError):
        return []
    return parse_nvidia_smi(out.stdout) if out.returncode == 0 else []


def inventory(spec: str) -> list[Gpu]:
    """``--gpus``: ``auto`` (nvidia-smi), ``none``, or the indices to use (``0,1``; a machine shared with others)."""
    if spec == "auto":
        return detect()
    if spec == "none":
        return []
    try:
        indices = sorted({int(p) for p in spec.split(",") if p.strip()})
    except ValueError:
        raise ValueError(f"--gpus must be auto, none or GPU indices such as 0,1 (got {spec!r})") from None
    return [Gpu(i) for i in indices]


@lru_cache(maxsize=1)
def _builtin_catalog() -> Catalog:
    return Catalog.load()


def flavor_of(doc: dict[str, Any], catalog: Catalog | None = None) -> dict[str, Any] | None:
    """The job's flavor as ``flavor_detail`` has it (``flavor_type``, ``flavor_info``). A public flavor's job carries
    it; a dedicated pool's does not (the API documents it for public pools only), so there the catalog says: the
    job's ``flavor_id``, else (a job given only ``pool_id``, which takes the pool's nodes) the pool's first flavor.
    None: nothing known (a CPU pool, an unknown id)."""
    resource = (doc.get("spec") or {}).get("resource") or {}
    if resource.get("flavor_detail"):
        return dict(resource["flavor_detail"])
    catalog = catalog or _builtin_catalog()
    flavor_id = resource.get("flavor_id")
    if not flavor_id:
        pool = catalog.pools.get(str(resource.get("pool_id") or ""))
        flavor_id = pool.flavors[0] if pool is not None and pool.flavors else None
    flavor = catalog.flavors.get(str(flavor_id)) if flavor_id else None
    return flavor.detail() if flavor is not None else None


def gpus_per_node(doc: dict[str, Any], catalog: Catalog | None = None) -> int:
    """How many GPUs each node of the job's flavor has (the flavor catalog's ``flavor_info.gpu.unit_num``, also for a
    dedicated pool's flavor: ``flavor_of``); 0 for CPU and Ascend flavors (Ascend NPUs are not NVIDIA GPUs)."""
    detail = flavor_of(doc, catalog) or {}
    if str(detail.get("flavor_type") or "CPU").upper() != "GPU":
        return 0
    gpu = (detail.get("flavor_info") or {}).get("gpu") or {}
    try:
        return max(1, int(gpu.get("unit_num") or 1))
    except (TypeError, ValueError):
        return 1


class GpuPool:
    """The machine's GPUs, handed out by index; a job takes all its tasks' GPUs together (no deadlock)."""

    def __init__(self, gpus: list[Gpu]) -> None:
        self.gpus = gpus
        self._free = [g.index for g in gpus]
        self._cond = threading.Condition()

    @property
    def total(self) -> int:
        return len(self.gpus)

    @property
    def free(self) -> int:
        with self._cond:
            return len(self._free)

    def try_take(self, n: int) -> list[int] | None:
        with self._cond:
            return self._take(n)

    def take(self, n: int, give_up: Callable[[], bool]) -> list[int] | None:
        """Wait for ``n`` GPUs; None when ``give_up()`` turned true first."""
        with self._cond:
            while (got := self._take(n)) is None:
                if give_up():
                    return None
                self._cond.wait(0.2)
            return got

    def _take(self, n: int) -> list[int] | None:
        if n > len(self._free):
            return None
        got, self._free = self._free[:n], self._free[n:]
        return got

    def give(self, indices: list[int]) -> None:
        with self._cond:
            self._free = sorted(set(self._free) | set(indices))
            self._cond.notify_all()

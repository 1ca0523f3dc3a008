"""What each task of a job runs in execution mode: its directories, command line and environment.

Pure functions over the stored job (no process, no OBS), so the mapping from the service's container
layout to local directories is tested on its own and execution.py only carries it out.

A task's container file system is a directory ``<job root>/<task>/``: the service's absolute paths
(``local_code_dir`` default ``/home/ma-user/modelarts/user-job-dir``, channel ``local_dir``s
``/home/ma-user/modelarts/{inputs,outputs}/<name>_<i>``, ``working_dir``) are mapped under it, so
two tasks never share a directory, as two nodes would not. The code directory lands in
``<local_code_dir>/<last part of code_dir>/`` and the boot file runs from there, as on the service.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from .. import errors
from ..catalog.model import Catalog
from ..jobs.models import JobRow
from ..jobs.validation import JobDraft
from .gpus import gpus_per_node

DEFAULT_LOCAL_CODE_DIR = "/home/ma-user/modelarts/user-job-dir"
# Passed through from the emulator's own environment: what a Python process needs to start. Nothing
# else (the emulator's environment may hold credentials the user's code has no business seeing).
PASSED_ENV = ("PATH", "LANG", "LC_ALL", "TZ", "TMPDIR", "SYSTEMROOT")


@dataclass(frozen=True)
class Channel:
    name: str
    obs_url: str
    local_dir: Path


@dataclass(frozen=True)
class Placement:
    """Where a job's tasks run on this machine, decided when it leaves Pending (runner.py): the GPUs of each
    task (none: CUDA hidden), the rendezvous port of a distributed job, and the Python its engine maps to."""

    gpus: tuple[tuple[int, ...], ...] = ()
    master_port: int = 0
    python: str = sys.executable


@dataclass(frozen=True)
class TaskPlan:
    task: str
    index: int
    root: Path                      # the task's "container" file system
    log: Path                       # stdout + stderr, served by the logs preview API
    code_obs: str                   # the code directory in OBS
    code_dir: Path                  # where it is downloaded
    boot_file: Path                 # what python runs
    working_dir: Path
    inputs: tuple[Channel, ...]
    outputs: tuple[Channel, ...]
    argv: tuple[str, ...]
    env: dict[str, str]


def executable(draft: JobDraft) -> bool:
    """A job with code of its own to run: not an algorithm from management or a subscription (the
    service brings that code; we do not have it), and not a job that an emulator annotation or the
    boot-file check already decided (``emulator/outcome``, a missing boot file)."""
    alg = draft.algorithm or {}
    if alg.get("id") or alg.get("subscription_id"):
        return False
    if draft.outcome != "complete" or draft.run_seconds is not None:
        return False
    return True


def refuse_unrunnable(draft: JobDraft, max_processes: int, gpu_total: int = 0,
                      catalog: Catalog | None = None) -> None:
    """Raise the ModelArts error of what a local process cannot do (before anything is stored).

    Custom images, heterogeneous tasks, NFS volumes and dataset inputs are refused, each naming the
    field; GPU flavors run on the CPU (the log says so)."""
    why = "the local ModelArts runs your code as local processes (--execute)"
    alg = draft.algorithm or {}
    if draft.tasks:
        raise errors.invalid_param("tasks", f"{why} and does not run heterogeneous jobs; "
                                            "use algorithm with code_dir and boot_file")
    if (alg.get("engine") or {}).get("image_url"):
        raise errors.invalid_param("algorithm.engine.image_url",
                                   f"{why} and cannot run container images; use a preset engine "
                                   "(engine_name + engine_version) with code_dir and boot_file")
    if not alg.get("boot_file"):
        raise errors.invalid_param("algorithm.boot_file", f"{why}: set code_dir and boot_file")
    for i, ch in enumerate(alg.get("inputs") or []):
        if "dataset" in (ch.get("remote") or {}):
            raise errors.invalid_param(f"algorithm.inputs[{i}].remote.dataset",
                                       f"{why} and has no datasets; use an OBS input (remote.obs.obs_url)")
    if draft.spec.get("volumes"):
        raise errors.invalid_param("spec.volumes", f"{why} and cannot mount NFS volumes")
    need = gpus_per_node({"spec": draft.spec}, catalog) * draft.node_count
    if gpu_total and need > gpu_total:
        raise errors.invalid_param(
            "spec.resource.flavor_id",
            f"{draft.node_count} node(s) of {(draft.spec.get('resource') or {}).get('flavor_id')} need {need} GPUs; "
            f"this machine gives the local ModelArts {gpu_total} (--gpus): choose a smaller flavor or fewer nodes")
    if draft.node_count > max_processes:
        raise errors.invalid_param(
            "spec.resource.node_count",
            f"{draft.node_count} nodes would need {draft.node_count} processes; the local ModelArts "
            f"runs at most {max_processes} at once (--max-processes)")


def _local(root: Path, container_path: str) -> Path:
    """A container path (absolute, POSIX) under the task's root; ``..`` cannot climb out."""
    parts = [p for p in PurePosixPath("/" + container_path).parts[1:] if p not in ("..", ".")]
    return root.joinpath(*parts)


def _code_name(code_obs: str) -> str:
    return PurePosixPath(code_obs.rstrip("/")).name or "code"


def task_log(job_root: Path, task: str) -> Path:
    return job_root / "logs" / f"{task}.log"


def environments(alg: dict[str, Any]) -> dict[str, str]:
    """The job's ``environments`` (stored as an array of maps, or one map)."""
    value = alg.get("environments") or []
    out: dict[str, str] = {}
    for item in value if isinstance(value, list) else [value]:
        if isinstance(item, dict):
            out.update({str(k): str(v) for k, v in item.items()})
    return out


def distributed_env(index: int, node_count: int, master_port: int) -> dict[str, str]:
    """What ``torch.distributed`` (``init_method="env://"``) and the service's PyTorch engine give each node's one
    process: rank = node index, world size = node count, the first node as the rendezvous (all on this host)."""
    if master_port <= 0:
        return {}
    return {"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(master_port), "RANK": str(index),
            "WORLD_SIZE": str(node_count), "LOCAL_RANK": "0", "LOCAL_WORLD_SIZE": "1", "NODE_RANK": str(index),
            "GROUP_RANK": str(index), "MA_MASTER_ADDR": "127.0.0.1", "MA_MASTER_PORT": str(master_port)}


def plan_tasks(row: JobRow, job_root: Path, placement: Placement = Placement()) -> list[TaskPlan]:
    """One plan per task (``worker-0`` .. ``worker-{n-1}``) of a stored job, placed as ``placement`` says."""
    alg = row.doc.get("algorithm") or {}
    node_count = row.node_count
    code_obs = str(alg["code_dir"])
    boot_rel = str(alg["boot_file"])[len(code_obs.rstrip("/")) + 1:]
    params = [(str(p["name"]), str(p.get("value", ""))) for p in alg.get("parameters") or []
              if isinstance(p, dict) and p.get("name")]
    hosts = ",".join("127.0.0.1" for _ in range(node_count))
    plans = []
    for index in range(node_count):
        task = f"worker-{index}"
        gpus = placement.gpus[index] if index < len(placement.gpus) else ()
        root = job_root / task
        code_parent = _local(root, alg.get("local_code_dir") or DEFAULT_LOCAL_CODE_DIR)
        code_dir = code_parent / _code_name(code_obs)
        work = _local(root, alg["working_dir"]) if alg.get("working_dir") else code_dir
        inputs = tuple(Channel(str(c["name"]), str(c["remote"]["obs"]["obs_url"]),
                               _local(root, str(c["local_dir"]))) for c in alg.get("inputs") or [])
        outputs = tuple(Channel(str(c["name"]), str(c["remote"]["obs"]["obs_url"]),
                                _local(root, str(c["local_dir"]))) for c in alg.get("outputs") or [])
        boot = code_dir / boot_rel
        # The service's documented order: hyperparameters, then one --<channel name>=<local dir> each.
        argv = [placement.python, str(boot)] + [f"--{k}={v}" for k, v in params]
        argv += [f"--{c.name}={c.local_dir}" for c in inputs + outputs]
        env = {k: os.environ[k] for k in PASSED_ENV if k in os.environ}
        env.update({
            "HOME": str(_local(root, "/home/ma-user")),
            "PYTHONUNBUFFERED": "1",  # the log grows line by line, as the service's does
            "MA_JOB_NAME": row.name, "MA_JOB_ID": row.id,
            "MA_JOB_DIR": str(code_parent), "MA_TASK_NAME": task, "MA_NUM_HOSTS": str(node_count),
            "MA_NUM_GPUS": str(len(gpus)), "MA_CURRENT_IP": "127.0.0.1",
            "VC_TASK_INDEX": str(index), "VC_WORKER_NUM": str(node_count), "VC_WORKER_HOSTS": hosts,
            # exactly the task's own GPUs; "" hides every GPU (a CPU flavor, or a machine without them)
            "CUDA_VISIBLE_DEVICES": ",".join(str(g) for g in gpus),
            **distributed_env(index, node_count, placement.master_port),
        })
        env.update(environments(alg))
        plans.append(TaskPlan(task=task, index=index, root=root, log=task_log(job_root, task),
                              code_obs=code_obs, code_dir=code_dir, boot_file=boot, working_dir=work,
                              inputs=inputs, outputs=outputs, argv=tuple(argv), env=env))
    return plans

"""Whose run folders a bucket holds, so that `force_destroy` never deletes another owner's results.

A bucket this stack created may hold the outputs of jobs it did not make: a teammate's stack that writes its runs
into it (`obs.bucket` naming it), a copy of this stack, a job made in the console. Their runs are on their own
record, and a run's outputs are a user's data. So before emptying the bucket, the jobs the service holds are
listed (the project's default workspace, one list call per page) and each one writing into this bucket (an output
channel or its log export path) whose mark does not prove it this stack's (core/jobs_on_pool.of_this_stack: the
proof in its annotations, else its tags; any resource of this stack) makes its folders kept, whatever force_destroy
says; the bucket then stays, and one line names the runs kept. A run whose job the service no longer holds (deleted
by its owner's keepRuns) has no mark left to read: its folder is not told apart (docs/guarantees.md).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from ..client.models import TrainingJob, normalize_obs_path, output_urls


def _folders_in(job: TrainingJob, bucket: str) -> list[str]:
    """The keys (prefixes, ending in /) under which `job` writes into `bucket`: its output channels and its log."""
    wire = job.to_wire()
    urls = list(output_urls(wire).values())
    log = ((wire.get("spec") or {}).get("log_export_path") or {}).get("obs_url")
    if isinstance(log, str):
        urls.append(normalize_obs_path(log) or log)
    head = f"obs://{bucket}/"
    return [u[len(head):].rstrip("/") + "/" for u in urls if isinstance(u, str) and u.startswith(head)
            and u[len(head):].strip("/")]


def foreign_folders(jobs: Iterable[TrainingJob], bucket: str, ours: Callable[[TrainingJob], bool]) -> dict[str, str]:
    """{folder key: the job writing there} of the jobs not this stack's that write into `bucket` (`ours` asked only
    of the jobs that write there: it may cost a call each)."""
    out: dict[str, str] = {}
    for job in jobs:
        folders = _folders_in(job, bucket)
        if folders and not ours(job):
            for folder in folders:
                out[folder] = f"{job.name} ({job.id})"
    return out


def kept_by(key: str, folders: dict[str, str]) -> str | None:
    """The job whose folder holds `key`, if any."""
    return next((job for folder, job in folders.items() if key.startswith(folder)), None)


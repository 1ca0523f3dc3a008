"""Job lifecycle on top of the client: submit (create, take over or adopt) and stop-and-delete.

Pure functions of (client, args, printer) so they can be unit tested with a fake client. Waiting is
not here: a create returns as soon as the service accepted the job, and the awaiting resource
(modelarts_provider.awaiting) waits for many jobs at once.

Only a job that is ours is ever taken over, terminated or deleted: same name, same spec (every
declared field), same workspace. A job with the declared name that is not ours stops the `up`
with a message naming it, and nothing is changed.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Protocol

from .args import TrainingJobArgs
from .compare import mismatches
from .name_index import NameIndex
from ..client.errors import CLIENT_AMBIGUOUS_CREATE, ModelArtsError
from ..client.models import ACTIVE_PHASES, TERMINAL_PHASES, CreateTrainingJobRequest, TrainingJob

Printer = Callable[[str], None]


class JobClient(Protocol):
    def create_job(self, request: CreateTrainingJobRequest) -> TrainingJob: ...
    def get_job(self, job_id: str) -> TrainingJob | None: ...
    def terminate_job(self, job_id: str) -> TrainingJob: ...
    def delete_job(self, job_id: str) -> bool: ...
    def update_description(self, job_id: str, description: str) -> TrainingJob: ...
    def list_jobs(self, name_like: str | None = None, phases: object = None, limit: int = 50, *,
                  workspace_id: str | None = None) -> list[TrainingJob]: ...


class TrainingJobError(Exception):
    """A create/delete that cannot proceed; the message is one line, names the job, no secrets."""


def _status_code(err: BaseException) -> int | None:
    for attr in ("status_code", "status", "http_status"):
        v = getattr(err, attr, None)
        if isinstance(v, int):
            return v
    return None


def is_definitive_rejection(err: BaseException) -> bool:
    """A 4xx (other than timeout/throttling) means the request was refused: nothing changed."""
    code = _status_code(err)
    return code is not None and 400 <= code < 500 and code not in (408, 429)


# --- stop and delete ----------------------------------------------------------------------------


def stop(client: JobClient, job: TrainingJob, timeout_s: float, poll_s: float, say: Printer,
         clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep) -> TrainingJob | None:
    """Terminate if active and wait until stopped. Returns the stopped job, or None if it is gone."""
    job_id = job.id or ""
    if job.phase in ACTIVE_PHASES:
        say(f"{job.name}: terminating ({job.phase})")
        try:
            client.terminate_job(job_id)
        except Exception as err:  # already stopped or gone between read and terminate: re-read decides
            if not is_definitive_rejection(err):
                raise
    deadline = clock() + timeout_s
    last = job.phase
    terminated_in = {job.phase} if job.phase in ACTIVE_PHASES else set()
    while True:
        fresh = client.get_job(job_id)
        if fresh is None:
            return None
        if fresh.phase != last:
            say(f"{fresh.name}: {last} -> {fresh.phase}")
            last = fresh.phase
        if fresh.phase in TERMINAL_PHASES:
            return fresh
        if fresh.phase in ACTIVE_PHASES and fresh.phase not in terminated_in:
            # Not terminating (yet): it moved on, e.g. Creating -> Pending, before terminate took.
            terminated_in.add(fresh.phase)
            try:
                client.terminate_job(job_id)
            except Exception as err:
                if not is_definitive_rejection(err):
                    raise
        if clock() >= deadline:
            raise TrainingJobError(f"training job {fresh.name} ({job_id}) did not stop within {timeout_s:g}s: "
                                   f"it is {fresh.phase}")
        sleep(poll_s)


def stop_and_delete(client: JobClient, job_id: str, timeout_s: float, poll_s: float, say: Printer) -> None:
    """Delete: terminate if running, wait until stopped, delete the record. Already gone = success."""
    job = client.get_job(job_id)
    if job is None:
        say(f"job {job_id}: already gone")
        return
    if stop(client, job, timeout_s, poll_s, say) is None:
        return
    client.delete_job(job_id)
    say(f"{job.name}: deleted")


# --- create -------------------------------------------------------------------------------------


def _sync_description(client: JobClient, job: TrainingJob, args: TrainingJobArgs, say: Printer) -> TrainingJob:
    if (job.description or "") != args.description:
        say(f"{job.name}: updating description")
        return client.update_description(job.id or "", args.description)
    return job


def _not_ours(name: str, others: list[TrainingJob], args: TrainingJobArgs) -> TrainingJobError:
    job = others[0]
    return TrainingJobError(
        f"a training job named {name} already exists ({job.id}, {job.phase}) and is not this declaration "
        f"({'; '.join(mismatches(args, job))}); nothing was changed: rename the declared job, adopt the "
        f"existing one with adopt_job_id, or remove it yourself")


def submit(client: JobClient, args: TrainingJobArgs, index: NameIndex, say: Printer) -> TrainingJob:
    """Adopt, take over, or POST: the job this declaration stands for, without waiting."""
    if args.adopt_job_id:
        return adopt(client, args, say)
    name = args.name or ""
    same_name = index.lookup(name, args.workspace_id)
    ours = [j for j in same_name if not mismatches(args, j)]
    if ours:
        job = ours[0]
        say(f"{name}: taking over existing job {job.id} ({job.phase})")
        return _sync_description(client, job, args, say)
    if same_name:
        raise _not_ours(name, same_name, args)
    request = CreateTrainingJobRequest.model_validate(args.to_wire(name))
    # client.create_job resolves an ambiguous failure itself (it looks the job up by name and never
    # resends blindly); it raises Client.AmbiguousCreate only when it cannot tell. The next `up`
    # then finds the job in its listing and takes it over if it was created.
    try:
        job = client.create_job(request)
    except ModelArtsError as err:
        if err.error_code != CLIENT_AMBIGUOUS_CREATE:
            raise
        raise TrainingJobError(
            f"could not tell whether training job {name} was created ({err.error_msg}); run `pulumi up` "
            f"again: it finds the job by name and takes it over if it was created, or creates it") from None
    index.add(job, args.workspace_id)
    say(f"{name}: submitted {job.id}")
    return job


def adopt(client: JobClient, args: TrainingJobArgs, say: Printer) -> TrainingJob:
    job_id = args.adopt_job_id or ""
    job = client.get_job(job_id)
    if job is None:
        raise TrainingJobError(f"adopt_job_id {job_id}: no such training job")
    diffs = mismatches(args, job)
    if diffs:
        raise TrainingJobError(f"cannot adopt training job {job.name} ({job_id}): the declaration differs: "
                               + "; ".join(diffs))
    say(f"{job.name}: adopted {job_id} ({job.phase})")
    return _sync_description(client, job, args, say)

"""Job lifecycle operations on top of the client: wait, create-or-take-over, adopt, stop-and-delete.

Pure functions of (client, args, printer) so they can be unit tested with a fake client. Every
phase change is printed (provider stdout shows in `pulumi up`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection
from typing import Protocol

from .args import FAILED_PHASES, STOPPED_PHASES, TrainingJobArgs, WaitFor
from .client.errors import CLIENT_AMBIGUOUS_CREATE, CLIENT_UNEXPECTED_PHASE, JOB_NOT_FOUND, JobFailedError, \
    ModelArtsError, WaitTimeout
from .client.models import CreateTrainingJobRequest, TrainingJob
from .compare import mismatches
from .outputs import describe_failure

Printer = Callable[[str], None]
ACTIVE = frozenset({"Creating", "Pending", "Running"})


class JobClient(Protocol):
    def create_job(self, request: CreateTrainingJobRequest) -> TrainingJob: ...
    def get_job(self, job_id: str) -> TrainingJob | None: ...
    def terminate_job(self, job_id: str) -> TrainingJob: ...
    def delete_job(self, job_id: str) -> bool: ...
    def update_description(self, job_id: str, description: str) -> TrainingJob: ...
    def find_by_name(self, name: str) -> TrainingJob | None: ...
    def wait_for_phase(self, job_id: str, until: Callable[[str], bool] | Collection[str], timeout_s: float,
                       poll_s: float = ..., on_change: Callable[[TrainingJob], None] | None = None, *,
                       max_poll_s: float = ...) -> TrainingJob: ...


class TrainingJobError(Exception):
    """A create/delete that cannot proceed; the message is one line, names the job, no secrets."""


def _status_code(err: BaseException) -> int | None:
    for attr in ("status_code", "status", "http_status"):
        v = getattr(err, attr, None)
        if isinstance(v, int):
            return v
    return None


def is_definitive_rejection(err: BaseException) -> bool:
    """A 4xx (other than timeout/throttling) means the request was refused: nothing was created."""
    code = _status_code(err)
    return code is not None and 400 <= code < 500 and code not in (408, 429)


# --- waiting ------------------------------------------------------------------------------------


# A job in one of these phases will never reach the awaited one: the wait fails.
_FAILS_WAIT = FAILED_PHASES | {"Terminating", "Terminated"}


def _reached(mode: WaitFor, phase: str | None) -> bool:
    if mode == "none":
        return True
    if mode == "created":
        return phase is not None and phase != "Creating"
    if mode == "running":
        return phase in ("Running", "Completed")
    return phase == "Completed"


def _ends_wait(mode: WaitFor, phase: str) -> bool:
    """The `until` predicate handed to the client.

    Failed/Abnormal/Terminated are left to the client (it raises JobFailedError / UnexpectedPhase);
    Terminating is accepted so the wait fails at once instead of polling until Terminated (the
    client does not count Terminating as terminal). The client passes "" for an unknown phase.
    """
    if phase == "Terminating":
        return True
    return phase not in _FAILS_WAIT and _reached(mode, phase or None)


def wait_for(client: JobClient, job: TrainingJob, mode: WaitFor, timeout_s: float, poll_s: float,
             say: Printer, clock: Callable[[], float] = time.monotonic,
             sleep: Callable[[float], None] = time.sleep) -> TrainingJob:
    """Wait until `mode` is reached. Raises TrainingJobError on Failed/Abnormal/Terminat*/gone/timeout.

    Polling is the client's `wait_for_phase`; unlike the loop this replaced, its polls tolerate
    transient errors (429/5xx/network) until the deadline instead of failing the create on the
    first one. Other client errors (e.g. 401/403) propagate unchanged. `clock` and `sleep` are
    no longer used (the client owns the loop); they stay for callers' compatibility.
    """
    del clock, sleep
    job_id, name = job.id or "", job.name
    last_job, last_phase = job, job.phase
    say(f"{name}: {last_phase}")

    def on_change(fresh: TrainingJob) -> None:  # first poll and every (secondary) phase change
        nonlocal last_job, last_phase
        last_job = fresh
        if fresh.phase != last_phase:
            say(f"{name}: {last_phase} -> {fresh.phase}")
            last_phase = fresh.phase

    # The job in hand decides first: no poll when it already failed or already got there.
    if job.phase in _FAILS_WAIT:
        raise TrainingJobError(describe_failure(job))
    if _reached(mode, job.phase):
        return job
    try:
        # Fixed interval as configured (max_poll_s=poll_s): poll_interval_seconds keeps its meaning.
        done = client.wait_for_phase(job_id, lambda phase: _ends_wait(mode, phase), timeout_s, poll_s,
                                     on_change, max_poll_s=poll_s)
    except JobFailedError as err:
        raise TrainingJobError(describe_failure(err.job)) from None
    except WaitTimeout as err:
        phase = last_phase if err.last_phase is None else err.last_phase
        raise TrainingJobError(f"timed out after {timeout_s:g}s waiting for training job {name} "
                               f"({job_id}) to reach {mode}: it is {phase}") from None
    except ModelArtsError as err:
        if err.error_code == CLIENT_UNEXPECTED_PHASE:  # Terminated: on_change saw that poll
            raise TrainingJobError(describe_failure(last_job)) from None
        if err.error_code == JOB_NOT_FOUND:
            raise TrainingJobError(f"training job {name} ({job_id}) disappeared while waiting for {mode}") from None
        raise
    if done.phase in _FAILS_WAIT:  # Terminating
        raise TrainingJobError(describe_failure(done))
    return done


def stop(client: JobClient, job: TrainingJob, timeout_s: float, poll_s: float, say: Printer,
         clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep) -> TrainingJob | None:
    """Terminate if active and wait until stopped. Returns the stopped job, or None if it is gone."""
    job_id = job.id or ""
    if job.phase in ACTIVE:
        say(f"{job.name}: terminating ({job.phase})")
        try:
            client.terminate_job(job_id)
        except Exception as err:  # already stopped or gone between read and terminate: re-read decides
            if not is_definitive_rejection(err):
                raise
    deadline = clock() + timeout_s
    last = job.phase
    terminated_in = {job.phase} if job.phase in ACTIVE else set()
    while True:
        fresh = client.get_job(job_id)
        if fresh is None:
            return None
        if fresh.phase != last:
            say(f"{fresh.name}: {last} -> {fresh.phase}")
            last = fresh.phase
        if fresh.phase in STOPPED_PHASES:
            return fresh
        if fresh.phase in ACTIVE and fresh.phase not in terminated_in:
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


def wait_or_terminate(client: JobClient, job: TrainingJob, args: TrainingJobArgs, say: Printer) -> TrainingJob:
    """Wait as the args say; if the wait fails for any reason (the job failed, timed out, or polling
    itself failed), terminate the job before raising: a failed create is not in the state, so a job
    left running would be billed untracked."""
    try:
        return wait_for(client, job, args.wait_for, args.wait_timeout_seconds, args.poll_interval_seconds, say)
    except Exception as err:
        try:
            current = client.get_job(job.id or "")
            if current is not None and current.phase not in STOPPED_PHASES:
                stop(client, current, min(args.delete_timeout_seconds, 300), args.poll_interval_seconds, say)
                suffix = "; the job was terminated"
            else:
                suffix = ""
        except Exception as stop_err:  # keep the original cause first
            suffix = f"; terminating it failed: {stop_err}"
        raise TrainingJobError(f"{err}{suffix}") from None


# --- create -------------------------------------------------------------------------------------


def _sync_description(client: JobClient, job: TrainingJob, args: TrainingJobArgs, say: Printer) -> TrainingJob:
    if (job.description or "") != args.description:
        say(f"{job.name}: updating description")
        return client.update_description(job.id or "", args.description)
    return job


def _take_over(client: JobClient, existing: TrainingJob, args: TrainingJobArgs, say: Printer) -> TrainingJob:
    diffs = mismatches(args, existing)
    if diffs:
        raise TrainingJobError(
            f"a training job named {existing.name} already exists ({existing.id}, {existing.phase}) with a "
            f"different spec: {'; '.join(diffs)}. Rename the job or delete the existing one")
    say(f"{existing.name}: taking over existing job {existing.id} ({existing.phase})")
    return _sync_description(client, existing, args, say)


def find_reusable(client: JobClient, name: str, args: TrainingJobArgs, say: Printer) -> TrainingJob | None:
    """A job this declaration already started (interrupted create), or None.

    Leftovers that stopped unsuccessfully (a failed earlier attempt) are deleted so the name is free.
    """
    existing = client.find_by_name(name)
    if existing is None:
        return None
    if existing.phase in FAILED_PHASES or existing.phase in ("Terminated", "Terminating"):
        say(f"{name}: removing leftover job {existing.id} ({existing.phase}) from an earlier failed attempt")
        stop_and_delete(client, existing.id or "", args.delete_timeout_seconds, args.poll_interval_seconds, say)
        return None
    return _take_over(client, existing, args, say)


def create_or_take_over(client: JobClient, args: TrainingJobArgs, say: Printer) -> TrainingJob:
    name = args.name or ""
    reusable = find_reusable(client, name, args, say)
    if reusable is not None:
        return reusable
    request = CreateTrainingJobRequest.model_validate(args.to_wire(name))
    # client.create_job resolves an ambiguous failure itself: it looks the job up by name and
    # returns it if it was committed, and never resends blindly. It raises Client.AmbiguousCreate
    # only when it cannot tell; the next run's find_reusable then takes the job over if it exists.
    try:
        job = client.create_job(request)
    except ModelArtsError as err:
        if err.error_code != CLIENT_AMBIGUOUS_CREATE:
            raise
        raise TrainingJobError(
            f"could not tell whether training job {name} was created ({err.error_msg}); run `pulumi up` "
            f"again: it finds the job by name and takes it over if it was created, or creates it") from None
    say(f"{name}: created {job.id}")
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


def create(client: JobClient, args: TrainingJobArgs, say: Printer) -> TrainingJob:
    job = adopt(client, args, say) if args.adopt_job_id else create_or_take_over(client, args, say)
    return wait_or_terminate(client, job, args, say)


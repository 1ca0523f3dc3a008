"""Before a pool is deleted: the jobs still running on it (issue 43, finding 5), for the two deletes that remove a
pool: the pool's own (resource_pool/), and a network's, which removes the pools this stack made on it that no state
holds any more (network/, owned_objects.our_pools_on).

Deleting a pool fails every job running on it. At a `destroy` this stack's own jobs are deleted before the pool
(Pulumi dependencies), so a job still running on it is either ours but outside the state (a killed `up` left it)
or someone else's: another stack that names this pool by `poolId`, or a job made in the console.

- ours (its owner mark names this pool's stack): stopped (terminated, waited for until it stopped, not deleted:
  a run's record stays), then the pool goes;
- anyone else's (another stack's mark, or no mark): the delete stops with one line naming each of them and their
  owner, as a network's delete stops on a pool it did not make, unless the pool (or, for a network's delete, the
  network) says `force_delete: true` (stack config `forceDelete`): then they are named in a warning and fail with
  the pool.

"Ours" is read from the mark written on the job when it was created (core/ownership.py), never guessed from its
name: with the pool's mark key recorded, the job's proof decides (its annotations, else its tags: a same-named
stack on another backend writes the same owner text with another key); a state from before the key compares the
owner text as before.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..client.errors import JOB_NOT_FOUND, ModelArtsError
from ..client.models import ACTIVE_PHASES, TrainingJob
from ..client.pool_models import WORKSPACE_LABEL, Pool
from ..wait_engine import REAL, Clock, Condition, Done, Failed, cancelled, wait
from .ownership import MARK_ANNOTATION, OWNER_ANNOTATION, OwnerMark, owner_text, proves
from .provider_error import ProviderError

POOL_FORCE = "on the pool (force_delete in a program)"  # where the force of a pool's own delete is set
NETWORK_FORCE = "on the network (force_delete in a program)"  # ... of a network's delete (its untracked pools)

LISTED_AT_MOST = 10_000  # active jobs listed (pages of 50, filtered by phase): far above any pool's
STOP_WAIT_S = 900.0


def running_on(api: Any, pool: Pool) -> list[TrainingJob]:
    """The jobs not yet ended that name this pool (one listing of the active jobs of the pool's workspace)."""
    workspace = pool.metadata.labels.get(WORKSPACE_LABEL) or None
    jobs = api.list_jobs(phases=sorted(ACTIVE_PHASES), limit=LISTED_AT_MOST, workspace_id=workspace)
    return [j for j in jobs if j.spec is not None and j.spec.resource is not None
            and j.spec.resource.pool_id == pool.name and j.phase in ACTIVE_PHASES]


def _stack_of(job: TrainingJob) -> str | None:
    owner = (job.metadata.annotations or {}).get(OWNER_ANNOTATION) if job.metadata is not None else None
    return owner.rpartition("::")[0] or None if owner else None


def of_this_stack(api: Any, job: TrainingJob, owner: OwnerMark | None) -> bool:
    """The job's mark proves it this stack's (module docstring)."""
    if owner is None:
        return False
    if owner.key is None:
        return _stack_of(job) == owner.stack
    annotations = job.metadata.annotations if job.metadata is not None else None
    tags = job.tags
    if tags is None and not (annotations or {}).get(MARK_ANNOTATION) and hasattr(api, "get_job_tags"):
        tags = api.get_job_tags(job.id or "")  # the service dropped the annotations: the proof is in the tags
    return proves(owner, "job", job.name, None, annotations, tags, any_resource=True)


def _named(job: TrainingJob) -> str:
    return f"{job.name} ({job.id}, {job.phase}; {owner_text(job.metadata.annotations if job.metadata else None)})"


def clear_for_delete(api: Any, pool: Pool, label: str, owner: OwnerMark | None, force: bool, poll_s: float,
                     say: Callable[[str], None], force_where: str = POOL_FORCE) -> None:
    """Make way for the pool's delete: ours stopped, anyone else's refused (ProviderError) unless `force`
    (`force_where` says where it is set)."""
    jobs = running_on(api, pool)
    if not jobs:
        return
    ours = [j for j in jobs if of_this_stack(api, j, owner)]
    others = [j for j in jobs if j not in ours]
    if others and not force:
        raise ProviderError(
            f"pool {label} ({pool.name}): not deleted, {len(others)} job{'s' if len(others) != 1 else ''} of another "
            f"owner run{'s' if len(others) == 1 else ''} on it and would fail: "
            + "; ".join(_named(j) for j in others)
            + "; stop them (or wait until they end) and run the command again, or set forceDelete: true "
            + force_where + " to delete it anyway")
    for job in others:
        say(f"warning: pool {label}: deleted with forceDelete while {_named(job)} runs on it: it fails")
    for job in ours:
        say(f"pool {label}: {job.name} ({job.id}, {job.phase}) of this stack still runs on it (left by an earlier "
            "up): stopping it before the pool is deleted")
        _stop(api, job, f"pool {label} ({pool.name}): not deleted, {job.name} ({job.id}) of this stack runs on it",
              poll_s, say)


def ended(api: Any, job: TrainingJob, refusal: str, say: Callable[[str], None]) -> Condition[TrainingJob | None, None]:
    """Until the job ended or is gone (said in one line); `refusal` begins the error when it does not."""
    def judge(fresh: TrainingJob | None) -> Done[None] | None:
        if fresh is None or fresh.phase not in (*ACTIVE_PHASES, "Terminating"):
            say(f"{job.name}: stopped ({fresh.phase if fresh is not None else 'gone'})")
            return Done(None)
        return None

    def too_late(fresh: TrainingJob | None) -> Failed:
        return Failed(f"{refusal} and it did not stop within {STOP_WAIT_S:g} s (it is "
                      f"{fresh.phase if fresh is not None else job.phase}); the next destroy tries again")

    def on_cancel(_fresh: TrainingJob | None) -> Failed:
        return Failed(f"{refusal}: stopped waiting for it to stop (cancelled); the next destroy tries again")

    return Condition("pool job stopped", lambda: api.get_job(job.id or ""), judge, too_late, on_cancel,
                     answer=TrainingJob | None)


def _stop(api: Any, job: TrainingJob, refusal: str, poll_s: float, say: Callable[[str], None],
          clock: Clock = REAL) -> None:
    """Terminate and wait until the job ended (its record stays: it is a run, not clutter)."""
    try:
        api.terminate_job(job.id or "")
    except ModelArtsError as err:
        if err.error_code != JOB_NOT_FOUND:
            raise ProviderError(f"{refusal} and terminating it failed: {err}") from None
    wait(ended(api, job, refusal, say), timeout_s=STOP_WAIT_S, poll_s=poll_s, clock=clock,
         cancel=lambda: cancelled(), error=ProviderError)

"""Job lifecycle on top of the client: submit (create, take over or adopt) and stop-and-delete.

Pure functions of (client, args, printer) so they can be unit tested with a fake client. Waiting is
not here: a create returns as soon as the service accepted the job, and the awaiting resource
(modelarts_provider.awaiting) waits for many jobs at once.

Ownership is recorded, not guessed (modelarts_provider.core.ownership): a job is this resource's only when
it carries this resource's owner token. Only then is it taken over (same name and spec: a create whose
response was lost, or a killed `up`) or stopped and deleted (our orphan: another spec or name, e.g. a
killed `up` and then an edit). A job with the declared name that carries another owner, or none, stops
the `up` with a message naming it and its owner, and nothing is changed. Deleting checks the mark too:
a job carrying another resource's token is never stopped or deleted.

The mark is read from the job's annotations, else its tags (name_index.marks; the service may answer without
annotations). A job is tagged right after its POST (the create API takes no tags): the owner tags and the
declared `tags`, unless its name is derived and it declares no tags: a derived name proves the job ours by itself
(an HMAC of the stack's secret seed and its spec: no one else makes that name), so a sweep's jobs cost one call
each. A job a JobsAwait of the same `up` waits for hands that call over and returns after its POST (its
JobsAwait joins it before the `up` can succeed: core/deferred_tags.py), so the engine's few steps at once are not
held by it. A job that carries no readable mark where annotations are dropped (a derived-name job, or one a killed
`up` left between its POST and its tags) is ours when its derived name and spec are this declaration's; it is
taken over (and tagged where the mark needs tags). An explicit name proves nothing: such a job is refused as
unmarked.

Finished runs are kept by default (keep_finished_runs unset, a derived name): a finished run that was replaced
(a newer run of ours carries its key's token) stays in the service with its logs; with keep_finished_runs: true
also one whose key was removed (or destroyed); with false none. Every run of a key carries the key's owner token, so the
runs kept are found by that mark, never by name: when a new run is created, our own finished runs beyond
`keep_runs` (the new one counted) are deleted, oldest first, each read again first (ours and finished, or
left alone). Their OBS outputs are never touched.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from typing import Protocol

from .args import TrainingJobArgs
from .compare import mismatches
from .name_index import NameIndex, job_token, marks, with_tags_read
from ..client.errors import CLIENT_AMBIGUOUS_CREATE, JOB_NOT_FOUND, ModelArtsError
from ..core.call_urn import current_stack
from ..core.deferred_tags import TagWrites
from ..core.renames import RENAMED_HINT
from ..core.identity import SUFFIX_LENGTH
from ..client.owner_token import TAG_PREFIX as OWNER_TAG_PREFIX
from ..core.ownership import OWNER_ANNOTATION, OwnerMark, owner_text, proves
from ..client.models import ACTIVE_PHASES, TERMINAL_PHASES, CreateTrainingJobRequest, TrainingJob
from ..wait_engine import REAL, Clock, Condition, Done, Failed, wait
from ..wait_engine.cancel import cancelled
from ..wait_engine.conditions import gone

Printer = Callable[[str], None]


class JobClient(Protocol):
    def create_job(self, request: CreateTrainingJobRequest) -> TrainingJob: ...
    def get_job(self, job_id: str) -> TrainingJob | None: ...
    def terminate_job(self, job_id: str) -> TrainingJob: ...
    def delete_job(self, job_id: str) -> bool: ...
    def update_description(self, job_id: str, description: str) -> TrainingJob: ...
    def get_job_tags(self, job_id: str) -> dict[str, str]: ...
    def create_job_tags(self, job_id: str, tags: dict[str, str]) -> None: ...
    def delete_job_tags(self, job_id: str, keys: list[str]) -> None: ...
    def list_jobs(self, name_like: str | None = None, phases: object = None, limit: int = 50, *,
                  workspace_id: str | None = None) -> list[TrainingJob]: ...


class TrainingJobError(Exception):
    """A create/delete that cannot proceed; the message is one line, names the job, no secrets."""


# --- stop and delete ----------------------------------------------------------------------------


def _terminate(client: JobClient, job: TrainingJob) -> None:
    """Terminate; a job gone meanwhile is for the re-read to see. Any other refusal fails at once with
    the service's code and message (the client already returns a job that had ended by itself)."""
    try:
        client.terminate_job(job.id or "")
    except ModelArtsError as err:
        if err.error_code == JOB_NOT_FOUND:
            return
        raise TrainingJobError(f"terminate of training job {job.name} ({job.id}) was refused: "
                               f"{err.error_code} {err.error_msg} (HTTP {err.status}); it was not stopped") from None


def stopped(client: JobClient, job: TrainingJob, timeout_s: float, say: Printer) -> Condition[TrainingJob | None,
                                                                                        TrainingJob | None]:
    """Until the job ended (the job) or is gone (None); terminated again in each active phase it moves on to
    (Creating -> Pending before the terminate took). The caller terminated it in the phase it was in."""
    job_id = job.id or ""
    last = [job.phase]
    terminated_in = {job.phase} if job.phase in ACTIVE_PHASES else set()

    def progress(fresh: TrainingJob | None) -> None:
        if fresh is not None and fresh.phase != last[0]:
            say(f"{fresh.name}: {last[0]} -> {fresh.phase}")
            last[0] = fresh.phase

    def judge(fresh: TrainingJob | None) -> Done[TrainingJob | None] | None:
        if fresh is None:
            return Done(None)
        if fresh.phase in TERMINAL_PHASES:
            return Done(fresh)
        if fresh.phase in ACTIVE_PHASES and fresh.phase not in terminated_in:
            terminated_in.add(fresh.phase)
            _terminate(client, fresh)
        return None

    def too_late(fresh: TrainingJob | None) -> Failed:
        return Failed(f"training job {fresh.name if fresh else job.name} ({job_id}) did not stop within "
                      f"{timeout_s:g}s: it is {fresh.phase if fresh else job.phase}")

    def on_cancel(_fresh: TrainingJob | None) -> Failed:
        return Failed(f"training job {job.name} ({job_id}): stopped waiting for it to stop (cancelled); it was "
                      f"{last[0]} and is left so: the next command waits for it again")

    return Condition("job stopped", lambda: client.get_job(job_id), judge, too_late, on_cancel=on_cancel,
                     answer=TrainingJob | None, progress=progress)


def stop(client: JobClient, job: TrainingJob, timeout_s: float, poll_s: float, say: Printer,
         clock: Clock = REAL) -> TrainingJob | None:
    """Terminate if active and wait until stopped. Returns the stopped job, or None if it is gone."""
    if job.phase in ACTIVE_PHASES:
        say(f"{job.name}: terminating ({job.phase})")
        _terminate(client, job)
    return wait(stopped(client, job, timeout_s, say), timeout_s=timeout_s, poll_s=poll_s, clock=clock,
                cancel=lambda: cancelled(), error=TrainingJobError)


def deleted(client: JobClient, job: TrainingJob, timeout_s: float) -> Condition[TrainingJob | None, None]:
    """Until a deleted job is gone (GET answers ModelArts.2775)."""
    return replace(gone(lambda: client.get_job(job.id or ""),
                        f"training job {job.name} ({job.id}) was deleted but is still there after {timeout_s:g}s; "
                        "run the command again to wait for it", answer=TrainingJob | None),
                   on_cancel=lambda _last: Failed(
                       f"training job {job.name} ({job.id}) was deleted; stopped waiting until the service no longer "
                       "has it (cancelled): run the command again to wait for it"))


def wait_deleted(client: JobClient, job: TrainingJob, timeout_s: float, poll_s: float, clock: Clock = REAL) -> None:
    """Wait until a deleted job is gone (GET answers ModelArts.2775). The service deletes asynchronously:
    the job is still answered, and still holds its name, for a while after the DELETE (Terraform's provider
    polls for ModelArts.2775 the same way), so a same-named successor can be created only after this."""
    wait(deleted(client, job, timeout_s), timeout_s=timeout_s, poll_s=poll_s, clock=clock,
         cancel=lambda: cancelled(), error=TrainingJobError)


def stop_and_delete(client: JobClient, job_id: str, timeout_s: float, poll_s: float, say: Printer,
                    owner: OwnerMark | None = None,
                    keep_finished: bool | Callable[[TrainingJob], bool] = False) -> None:
    """Delete: terminate if running, wait until stopped, delete the record and wait until the service no
    longer has it (deletes are asynchronous: wait_deleted). Already gone = success.
    keep_finished: a finished run stays in the service (True), or when the callable says so of it.

    A job whose mark does not prove it this stack's (core/ownership.py: a copied stack, a colleague's job carrying
    a copy of our tags) is left alone (an error). With a mark key recorded, a job without the proof is refused
    too (unverifiable means not ours); a state from before the key: one that carries no token is deleted, its id
    in this resource's state being the record (a job created before owners were recorded)."""
    job = client.get_job(job_id)
    if job is None:
        say(f"job {job_id}: already gone")
        return
    if owner is not None:
        (job,) = with_tags_read(client, [job])  # only where the annotations carry no token
    token = job_token(job)
    # The stack deleting is the one this call's URN names (a copied state records the original's mark).
    here = current_stack() or (owner.stack if owner is not None else None)
    needs_proof = owner is not None and (owner.key is not None or token is not None)
    if needs_proof and not is_ours(job, owner, here):
        raise TrainingJobError(
            f"training job {job.name} ({job_id}) is not this resource's ({owner_text(marks(job))}); "
            "it was not stopped or deleted: if it should leave this stack only, `pulumi state delete` its resource ("
            f"{RENAMED_HINT})")
    if job.phase in TERMINAL_PHASES and (keep_finished(job) if callable(keep_finished) else keep_finished):
        say(f"{job.name}: kept in the service ({job.phase}, keepFinishedRuns; keepRuns bounds how many): "
            "it leaves the state only")
        return
    if stop(client, job, timeout_s, poll_s, say) is None:
        return
    if client.delete_job(job_id):
        wait_deleted(client, job, timeout_s, poll_s)
    say(f"{job.name}: deleted")


# --- create -------------------------------------------------------------------------------------


def _sync_description(client: JobClient, job: TrainingJob, args: TrainingJobArgs, say: Printer) -> TrainingJob:
    _sync_tags(client, job, args, say)
    if (job.description or "") != args.description:
        say(f"{job.name}: updating description")
        return client.update_description(job.id or "", args.description)
    return job


def wanted_tags(args: TrainingJobArgs, name: str | None = None) -> dict[str, str]:
    """The tags a job of this declaration named `name` carries: the declared ones and the owner mark's (its proof
    made for that name)."""
    return {**args.tags, **(args.owner.tags(name or args.name) if args.owner else {})}


def set_tags(client: JobClient, job: TrainingJob, args: TrainingJobArgs,
             writes: TagWrites | None = None) -> TrainingJob:
    """Tags a job just created (the create API takes none); the job with its tags.

    A job whose owner mark has the stack's key is always tagged: its proof must sit where the service returns it
    even if it drops annotations (core/ownership.py). Without a key (no seed), a derived name with no declared
    tags makes no tag call (the name, an HMAC of the seed and the spec, carries the mark itself).
    `writes`: the call is handed to them and joined later, by the JobsAwait that waits for the job
    (core/deferred_tags.py); the job is returned with the tags it is being given."""
    if args.derived_name and not args.tags and (args.owner is None or args.owner.key is None):
        return job
    tags = wanted_tags(args, job.name)
    if writes is not None:
        writes.start(job.id or "", job.name or "", tags, client.create_job_tags)
        return job.with_tags(tags)
    try:
        client.create_job_tags(job.id or "", tags)
    except ModelArtsError as err:
        raise TrainingJobError(
            f"training job {job.name} ({job.id}) was created but its tags were not set: {err.error_code} "
            f"{err.error_msg}; run `pulumi up` again: it takes the job over and tags it") from None
    return job.with_tags(tags)


def _sync_tags(client: JobClient, job: TrainingJob, args: TrainingJobArgs, say: Printer) -> None:
    """A job taken over or adopted gets the declared tags and the owner mark's (a killed `up` may have left
    it untagged); tags it has beyond them are removed, as an update does."""
    live = job.tags if job.tags is not None else client.get_job_tags(job.id or "")
    wanted = wanted_tags(args, job.name)
    put = {k: v for k, v in wanted.items() if live.get(k) != v}
    gone = [k for k in live if k not in wanted]
    if any(not k.startswith(OWNER_TAG_PREFIX) for k in (*put, *gone)):  # the owner mark's alone: quietly
        say(f"{job.name}: updating tags")
    client.delete_job_tags(job.id or "", gone)
    client.create_job_tags(job.id or "", put)


def _not_ours(name: str, job: TrainingJob, args: TrainingJobArgs) -> TrainingJobError:
    diffs = mismatches(args, job)
    owner = marks(job).get(OWNER_ANNOTATION, "")
    stack, _, resource = owner.rpartition("::")
    if args.owner is not None and stack == args.owner.stack and resource:
        # This stack's own job, of another key: a move (Pulumi would create the new key before deleting
        # the old, and the name can be held only once).
        todo = (f"if the job moved from {resource}, declare movedFrom: [{resource}] to keep it; or remove "
                f"{resource} in one up and declare the new key in the next")
    else:
        todo = "rename the declared job, adopt the existing one with adopt_job_id, or remove it yourself"
    return TrainingJobError(
        f"a training job named {name} already exists ({job.id}, {job.phase}) and is not this resource's: "
        f"{owner_text(marks(job))}"
        + (f" ({'; '.join(diffs)})" if diffs else "")
        + f"; nothing was changed: {todo}")


def is_ours(job: TrainingJob, owner: OwnerMark | None, here: str | None = None) -> bool:
    """The job's mark proves it this stack's (core/ownership.proves: the proof made for its name and the stack
    acting now, in its annotations or tags; a state without a key: this resource's token and the stack's name)."""
    return proves(owner, "job", job.name, here, job.metadata.annotations, job.tags)


def _proves_itself(job: TrainingJob, args: TrainingJobArgs) -> bool:
    """An unmarked job (no token in annotations or tags) of this declaration's derived name and spec: ours,
    created by a killed `up` before it was tagged (module docstring)."""
    return (args.owner is not None and args.derived_name and job.name == args.name and job_token(job) is None
            and not mismatches(args, job))


# The ids the stack's state holds for this resource's owner token, read when needed (state_jobs.py); None
# when the state could not be read.
HeldByState = Callable[[], "frozenset[str] | None"]


def _same_name_kept(name: str, job: TrainingJob) -> TrainingJobError:
    return TrainingJobError(
        f"training job {name} ({job.id}, {job.phase}) is recorded in this stack's state and its replacement "
        f"(`pulumi up --replace`, or a tainted resource) keeps the explicit name {name}, which the service holds "
        "once; nothing was changed: give the job a new name (or leave name unset for a derived one) to run it "
        "again beside the recorded run, or set the resource option deleteBeforeReplace to delete it first")


def _writes(args: TrainingJobArgs) -> bool:
    """Whether the job writes to OBS (an output channel or a log export path): a replacement of the same spec
    writes to the same paths unless each run has its folder (output_per_run)."""
    outputs = args.algorithm.outputs if args.algorithm is not None else None
    return bool(outputs) or (args.log_export_path is not None and bool(args.log_export_path.obs_url))


def submit(client: JobClient, args: TrainingJobArgs, index: NameIndex, say: Printer,
           tracked: frozenset[str] = frozenset(), held_by_state: HeldByState | None = None,
           tag_writes: TagWrites | None = None) -> TrainingJob:
    """Adopt, take over, or POST: the job this declaration stands for, without waiting.

    Before the POST: a job with the declared name that is not ours stops the `up`; our own job with the
    same name and spec (a lost create response, a killed `up`) is taken over; our own jobs of another
    spec or name (a killed `up`, then an edit) are stopped and deleted, named in the output. `tracked`:
    ids the state still holds for this resource as the engine showed them to this process (a replacement
    creating its successor first): never orphans, the engine deletes them after this create.
    `held_by_state`: the same read from the stack's state, asked only when a job of ours is left after
    `tracked` (a `pulumi up --replace` is never diffed: state_jobs.py); a job it holds is neither taken over
    nor deleted here, and when the state cannot be read no job of ours is.
    `tag_writes`: a new job's tag call is handed to them (set_tags), for a JobsAwait of this `up` to join."""
    if args.adopt_job_id:
        return adopt(client, args, say)
    name = args.name or ""
    same_name = index.lookup(name, args.workspace_id)
    mine = [j for j in same_name if is_ours(j, args.owner) or _proves_itself(j, args)]
    if args.owner is not None:
        seen = {j.id for j in mine}
        mine += [j for j in index.owned_by(args.owner.token, args.workspace_id)
                 if j.id not in seen and is_ours(j, args.owner)]
    mine = [j for j in mine if j.id not in tracked]
    replaced = set(tracked)  # the runs of this key the state holds: the new run replaces them (history)
    if mine and held_by_state is not None:
        held = held_by_state()
        recorded = [j for j in mine if held is None or j.id in held]
        if held is None:
            say(f"{name}: the stack's state could not be read: earlier jobs of this resource are left as they are "
                f"({', '.join(f'{j.name} {j.id}' for j in recorded)})")
        kept = next((j for j in recorded if j.name == name), None)
        if kept is not None and held is not None:
            raise _same_name_kept(name, kept)
        if held is not None and _writes(args) and not args.output_per_run:
            for job in recorded:
                if job.phase in ACTIVE_PHASES:
                    # The engine deletes it after this create (`--replace` is never diffed, so the rule "a running
                    # job writing where its successor will is stopped first" is kept here): stopped, not deleted.
                    say(f"{job.name}: running and writing to the OBS paths its replacement {name} will: stopping "
                        "it first (deleted once the replacement was accepted)")
                    stop(client, job, args.delete_timeout_seconds, args.poll_interval_seconds, say)
        left = {j.id for j in recorded}
        replaced |= {i for i in left if i}
        mine = [j for j in mine if j.id not in left]
    current = [j for j in mine if j.name == name and not mismatches(args, j)]
    if current:
        job = current[0]  # the newest
        say(f"{name}: taking over existing job {job.id} ({job.phase}): ours, from an earlier `up`")
        for orphan in mine:
            if orphan.id != job.id and not (args.keeps_finished_runs and orphan.phase in TERMINAL_PHASES):
                _delete_orphan(client, orphan, args, index, say)
        return _sync_description(client, job, args, say)
    foreign = [j for j in same_name if not (is_ours(j, args.owner) or _proves_itself(j, args))]
    if foreign:
        raise _not_ours(name, foreign[0], args)
    for orphan in mine:
        if not (args.keeps_finished_runs and orphan.phase in TERMINAL_PHASES):
            _delete_orphan(client, orphan, args, index, say)
    _say_unproven(args, index, {j.id for j in mine}, say)
    # The runs it replaces go with it (core/replaced_runs.py): the JobsAwait reads them from the job.
    request = CreateTrainingJobRequest.model_validate(args.to_wire(name, replaced))
    # client.create_job resolves an ambiguous failure itself (it looks the job up by name, workspace and
    # owner token, and never resends blindly); it raises Client.AmbiguousCreate only when it cannot tell.
    # The next `up` then finds the job by its owner token and takes it over if it was created.
    try:
        job = client.create_job(request)
    except ModelArtsError as err:
        if err.error_code != CLIENT_AMBIGUOUS_CREATE:
            raise
        raise TrainingJobError(
            f"could not tell whether training job {name} was created ({err.error_msg}); run `pulumi up` "
            f"again: it finds the job by its owner mark and takes it over if it was created, or creates it") from None
    job = set_tags(client, job, args, tag_writes)
    index.add(job, args.workspace_id)
    say(f"{name}: submitted {job.id}")
    if args.keeps_finished_runs:
        prune_runs(client, args, index, job, say)
    return job


def prune_runs(client: JobClient, args: TrainingJobArgs, index: NameIndex, current: TrainingJob,
               say: Printer) -> list[str]:
    """keep_runs: our own finished runs of this key beyond the newest `keep_runs - 1` (besides `current`)
    deleted, oldest first (delete_runs)."""
    if args.owner is None:
        return []
    return delete_runs(client, args.owner, args.workspace_id, index, say, keep=args.runs_kept - 1,
                       besides=current.id or "",
                       why=f"run older than the {args.runs_kept} kept, keepRuns")


def delete_runs(client: JobClient, owner: OwnerMark, workspace_id: str | None, index: NameIndex, say: Printer, *,
                keep: int, besides: str, why: str, gone_within: tuple[float, float] | None = None) -> list[str]:
    """Our own finished runs of a key (its owner token) but the newest `keep` and `besides`, deleted oldest
    first. Each is read again and deleted only when it still carries the token and has finished; a running
    one (a replacement's predecessor the engine stops itself) is never counted or touched. Their OBS files
    stay. `gone_within` (timeout, poll): then waited for until the service no longer has them, as the key's
    current run is (a destroy ends with nothing of ours left; deletes are asynchronous). Returns the ids deleted."""
    runs = [j for j in index.owned_by(owner.token, workspace_id) if j.id and j.id != besides and is_ours(j, owner)]
    finished = [j for j in runs if j.phase in TERMINAL_PHASES]
    deleted: list[str] = []
    gone: list[TrainingJob] = []
    for old in reversed(finished[max(keep, 0):]):  # newest first: these are beyond the retention
        fresh = client.get_job(old.id or "")
        if fresh is not None:
            (fresh,) = with_tags_read(client, [fresh])  # the mark from the tags where annotations are dropped
        if fresh is None or job_token(fresh) != owner.token or fresh.phase not in TERMINAL_PHASES:
            continue
        if not is_ours(fresh, owner):  # a copy of our tags, or a copied stack's view of the original's runs
            say(f"{fresh.name}: carries this key's owner token but its mark does not prove it this stack's "
                f"({owner_text(marks(fresh))}): left alone, not counted as a run of {owner.resource}")
            continue
        client.delete_job(old.id or "")
        index.forget(old.id or "")
        deleted.append(old.id or "")
        say(f"{fresh.name}: deleted ({fresh.phase}, {why}); its OBS outputs stay")
        gone.append(fresh)
    if gone_within is not None:
        for job in gone:  # deleted together above: the service removes them meanwhile
            wait_deleted(client, job, *gone_within)
    return deleted


def _say_unproven(args: TrainingJobArgs, index: NameIndex, known: set[str | None], say: Printer) -> None:
    """Active jobs named as this resource's derived names are, that carry no mark the service answers: where it
    drops annotations, the job of a `up` killed before its tag call proves nothing, so it is never stopped (it may
    be anyone's) but never left unsaid either: a job billing unseen is what a user fears most."""
    if not args.derived_name or args.owner is None or not args.name:
        return
    shape = re.compile(re.escape(args.name[: -(SUFFIX_LENGTH + 1)]) + f"-[a-z0-9]{{{SUFFIX_LENGTH}}}")
    for job in index.unproven_like(shape, args.workspace_id):
        if job.id not in known and job.name != args.name:
            say(f"{job.name} ({job.id}, {job.phase}): named as {args.owner.resource}'s jobs are, but it carries no "
                "owner mark the service answers (annotations dropped, no tags: an `up` killed before tagging it?); "
                "not stopped or deleted: if it is an earlier run of this stack's, delete it yourself")


def _delete_orphan(client: JobClient, job: TrainingJob, args: TrainingJobArgs, index: NameIndex,
                   say: Printer) -> None:
    """Our own job that this declaration no longer describes: nothing of ours is left running untracked."""
    say(f"{job.name}: ours from an earlier `up` ({job.id}, {job.phase}) but no longer declared so: "
        "stopping and deleting it")
    stop_and_delete(client, job.id or "", args.delete_timeout_seconds, args.poll_interval_seconds, say, args.owner)
    index.forget(job.id or "")


def upgrade_proof(client: JobClient, job_id: str, recorded: OwnerMark | None, args: TrainingJobArgs,
                  say: Printer) -> None:
    """A state written before the mark key: its job gets the proof tags at the next `up`, once today's rule (this
    resource's token and this stack's name, core/ownership.py) has proven it ours; nothing is re-run, no file
    moves. A job that rule does not prove keeps no proof: every later stop or delete refuses it."""
    if recorded is None or recorded.key is not None or args.owner is None or args.owner.key is None:
        return
    job = client.get_job(job_id)
    if job is None:
        return
    (job,) = with_tags_read(client, [job])
    if not is_ours(job, recorded):
        say(f"{job.name}: its owner mark does not prove it this stack's ({owner_text(marks(job))}); no proof "
            "written: it will not be stopped or deleted by this stack")
        return
    client.create_job_tags(job_id, {k: v for k, v in args.owner.tags(job.name).items()
                                    if (job.tags or {}).get(k) != v})


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

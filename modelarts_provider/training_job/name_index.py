"""Which jobs already carry a name: one listing shared by every create of a provider process.

Takeover needs to know, before a POST, whether a job with the declared name exists (an earlier `up`
may have been killed after its POST, and the service may accept a second job with the same name:
not documented). A search per create doubles the calls; instead the first create lists the project's
jobs once (the list API, pages of 50) and every later create of the same `up` reads that listing.
Jobs this process creates or deletes are added to or removed from it, and a job this process deleted
is never found again even if the service still lists it (DELETE answers 202 and the record may linger),
so a replacement that reuses a name does not meet its own predecessor.

The same listing answers "which jobs carry this owner token" (ownership.py), whatever their names: our
own orphans of an earlier `up`. A project too large to list whole is searched by name only, so an
orphan under another name is then not found (README says so).

A project holding more than `max_pages` pages of jobs is not listed whole: lookups then search by
name (one call each), which costs less than paging through thousands of jobs.

The owner token is read from a job's annotations; where the service answers without them (ownership.py), from
the job's tags: one call of the tag filter (every job carrying the token tag, with its tags) when the listing
holds a job whose annotations carry no token, and a job's own tags (one GET each) for a same-named job found
by a name search. A project whose jobs all answer with their annotations costs no tag call.
"""

from __future__ import annotations

import math
import threading
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated, Protocol

from pydantic import PlainSerializer, PlainValidator

from ..client.errors import ModelArtsError
from ..client.models import ACTIVE_PHASES, TrainingJob
from ..client.owner_token import MARK_ANNOTATION, TOKEN_TAG, token_on
from ..core.ownership import marks_from
from ..wait_engine import REAL, Clock, Condition, Done, Failed, wait

PAGE = 50
DEFAULT_WORKSPACE = "0"  # what the list API lists when no workspace is given
LIST_ATTEMPTS = 3


class ListingClient(Protocol):
    def list_jobs(self, name_like: str | None = None, phases: object = None, limit: int = 50, *,
                  workspace_id: str | None = None) -> list[TrainingJob]: ...


def marks(job: TrainingJob) -> dict[str, str]:
    """The owner mark a live job carries, from its annotations or else its tags (where read)."""
    return marks_from(job.metadata.annotations, job.tags)


def job_token(job: TrainingJob) -> str | None:
    return token_on(marks(job))


def unmarked(job: TrainingJob) -> bool:
    """No proof in the annotations (dropped by the service, or a job made before the proof existed) and the tags
    not read yet: the tags may hold it (core/ownership.py)."""
    return job.tags is None and not (job.metadata.annotations or {}).get(MARK_ANNOTATION)


def with_tags_read(client: object, jobs: list[TrainingJob]) -> list[TrainingJob]:
    """`jobs`, each one whose annotations carry no token with its tags read (one GET each). A client without
    the tag API (a test's fake) leaves them as they are."""
    get = getattr(client, "get_job_tags", None)
    if get is None:
        return jobs
    return [j.with_tags(get(j.id or "")) if unmarked(j) and j.id else j for j in jobs]


@dataclass
class _Listing:
    """The listed jobs by id, indexed by name and by owner token: a create looks both up, and scanning
    every job for each create would make a sweep of N creates cost N² (issue 36)."""

    jobs: dict[str, TrainingJob]  # by id
    complete: bool
    by_name: dict[str | None, set[str]] = field(default_factory=dict)
    by_token: dict[str | None, set[str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for job_id, job in self.jobs.items():
            self._index(job_id, job)

    def _index(self, job_id: str, job: TrainingJob) -> None:
        self.by_name.setdefault(job.name, set()).add(job_id)
        self.by_token.setdefault(job_token(job), set()).add(job_id)

    def put(self, job_id: str, job: TrainingJob) -> None:
        self.pop(job_id)
        self.jobs[job_id] = job
        self._index(job_id, job)

    def pop(self, job_id: str) -> None:
        job = self.jobs.pop(job_id, None)
        if job is not None:
            self.by_name.get(job.name, set()).discard(job_id)
            self.by_token.get(job_token(job), set()).discard(job_id)

    def named(self, name: str) -> list[TrainingJob]:
        return [self.jobs[i] for i in self.by_name.get(name, ())]

    def owned_by(self, token: str | None) -> list[TrainingJob]:
        return [self.jobs[i] for i in self.by_token.get(token, ())]


class NameIndex:
    """One listing per workspace (the list API lists one workspace at a time; a job in another
    workspace is never ours)."""

    def __init__(self, client: ListingClient, max_pages: int = 10, clock: Clock = REAL) -> None:
        self._client = client
        self._clock = clock
        self._max_jobs = max_pages * PAGE
        self._lock = threading.Lock()
        self._listings: dict[str | None, _Listing] = {}
        # The last failed listing per workspace: (when it gave up, why).
        self._failures: dict[str | None, tuple[float, ModelArtsError]] = {}
        self._deleted: set[str] = set()  # ids this process deleted: never found again

    def _listing(self, workspace_id: str | None) -> _Listing:
        workspace_id = None if workspace_id in (None, DEFAULT_WORKSPACE) else workspace_id
        asked = self._clock.now()
        with self._lock:
            listing = self._listings.get(workspace_id)
            if listing is None:
                failed = self._failures.get(workspace_id)
                if failed is not None and failed[0] >= asked:
                    # It failed, retries spent, while this create waited for it: share that answer rather
                    # than have every waiting create spend the retry budget again, one after another.
                    raise failed[1]
                # One more than the cap tells a complete listing from a cut one.
                try:
                    jobs = self._list(limit=self._max_jobs + 1, workspace_id=workspace_id)
                except ModelArtsError as err:
                    self._failures[workspace_id] = (self._clock.now(), err)
                    raise
                complete = len(jobs) <= self._max_jobs
                if complete:
                    jobs = self._tags_filled(jobs, workspace_id)
                listing = self._listings[workspace_id] = _Listing(
                    {j.id or "": j for j in jobs} if complete else {}, complete)
            return listing

    def _list(self, **kwargs: object) -> list[TrainingJob]:
        """The listing every create of this process waits for: a throttled or failing read is tried
        again (each try is itself retried by the transport) before the creates give up."""
        return wait(listed(lambda: self._client.list_jobs(**kwargs)), timeout_s=math.inf,  # type: ignore[arg-type]
                    poll_s=lambda tries: 2.0 * tries, clock=self._clock)

    def _tags_filled(self, jobs: list[TrainingJob], workspace_id: str | None) -> list[TrainingJob]:
        """The listed jobs, those answered without a token in their annotations with their tags (module
        docstring); the listing as it is when every job carries its annotations' token."""
        tagged = getattr(self._client, "iter_jobs_tagged", None)
        if tagged is None or not any(unmarked(j) for j in jobs):
            return jobs
        found = {t.resource_id: {x.key: x.value for x in t.tags} for t in tagged(TOKEN_TAG, workspace_id=workspace_id)}
        return [j.with_tags(found.get(j.id or "", {})) if unmarked(j) else j for j in jobs]

    def lookup(self, name: str, workspace_id: str | None = None) -> list[TrainingJob]:
        """Every job with exactly this name in the workspace, newest first."""
        listing = self._listing(workspace_id)
        if listing.complete:
            with self._lock:
                found = listing.named(name)
        else:
            found = with_tags_read(self._client, [
                j for j in self._list(name_like=name, limit=self._max_jobs, workspace_id=workspace_id)
                if j.name == name])
        return self._newest_first(found)

    def owned_by(self, token: str, workspace_id: str | None = None) -> list[TrainingJob]:
        """Every job carrying this owner token in the workspace (any name), newest first. Listed whole
        projects only; otherwise none (the name lookup still finds a same-named one)."""
        listing = self._listing(workspace_id)
        with self._lock:
            found = listing.owned_by(token)
        return self._newest_first(found)

    def unproven_like(self, pattern: re.Pattern[str], workspace_id: str | None = None) -> list[TrainingJob]:
        """The active jobs whose name matches `pattern` and that carry no owner token anywhere the service answers
        (annotations dropped and no tags: a killed `up` before the tag call). Listed whole projects only."""
        listing = self._listing(workspace_id)
        with self._lock:  # the jobs without a token only (by_token[None]: usually none), not the whole listing
            found = [j for j in listing.owned_by(None) if j.name and pattern.fullmatch(j.name)
                     and j.phase in ACTIVE_PHASES]
        return self._newest_first(found)

    def _newest_first(self, jobs: list[TrainingJob]) -> list[TrainingJob]:
        with self._lock:
            alive = [j for j in jobs if (j.id or "") not in self._deleted]
        return sorted(alive, key=lambda j: j.metadata.create_time or 0, reverse=True)

    def add(self, job: TrainingJob, workspace_id: str | None = None) -> None:
        workspace_id = None if workspace_id in (None, DEFAULT_WORKSPACE) else workspace_id
        with self._lock:
            listing = self._listings.get(workspace_id)
            if listing is not None and listing.complete and job.id:
                listing.put(job.id, job)

    def forget(self, job_id: str) -> None:
        """A job this process deleted."""
        with self._lock:
            self._deleted.add(job_id)
            for listing in self._listings.values():
                listing.pop(job_id)


_ERROR_FIELDS = ("error_msg", "status", "error_code", "error_solution", "request_id", "method", "path")


def _error_from(value: object) -> ModelArtsError:
    if isinstance(value, ModelArtsError):
        return value
    if not isinstance(value, dict):
        raise ValueError("not a recorded error")
    return ModelArtsError(**{k: value.get(k) for k in _ERROR_FIELDS})


# A listing's answer as data (recordings of the wait): the jobs, or the error that ended the attempt.
ListingAnswer = list[TrainingJob] | Annotated[ModelArtsError, PlainValidator(_error_from),
                                              PlainSerializer(lambda e: {k: getattr(e, k) for k in _ERROR_FIELDS})]


def listed(read: Callable[[], list[TrainingJob]]) -> Condition[list[TrainingJob] | ModelArtsError, list[TrainingJob]]:
    """Until a listing answers: a retryable error is tried again (LIST_ATTEMPTS in all, 2 s, 4 s apart), any other
    error, or the last, is raised as it is."""
    tries = [0]

    def attempt() -> list[TrainingJob] | ModelArtsError:
        try:
            return read()
        except ModelArtsError as err:
            return err

    def judge(answer: list[TrainingJob] | ModelArtsError) -> Done[list[TrainingJob]] | Failed | None:
        tries[0] += 1  # counted here, not in the read: a replay answers in place of the read
        if not isinstance(answer, ModelArtsError):
            return Done(answer)
        if not answer.retryable or tries[0] >= LIST_ATTEMPTS:
            return Failed(str(answer), answer)
        return None

    return Condition("job listing", attempt, judge, too_late=lambda answer: Failed(str(answer)),
                     answer=ListingAnswer)

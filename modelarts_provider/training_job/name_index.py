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
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Protocol

from ..client.errors import ModelArtsError
from ..client.models import TrainingJob
from ..core.ownership import token_on

PAGE = 50
DEFAULT_WORKSPACE = "0"  # what the list API lists when no workspace is given
LIST_ATTEMPTS = 3


class ListingClient(Protocol):
    def list_jobs(self, name_like: str | None = None, phases: object = None, limit: int = 50, *,
                  workspace_id: str | None = None) -> list[TrainingJob]: ...


@dataclass
class _Listing:
    jobs: dict[str, TrainingJob]  # by id
    complete: bool


class NameIndex:
    """One listing per workspace (the list API lists one workspace at a time; a job in another
    workspace is never ours)."""

    def __init__(self, client: ListingClient, max_pages: int = 10) -> None:
        self._client = client
        self._max_jobs = max_pages * PAGE
        self._lock = threading.Lock()
        self._listings: dict[str | None, _Listing] = {}
        # The last failed listing per workspace: (when it gave up, why).
        self._failures: dict[str | None, tuple[float, ModelArtsError]] = {}
        self._deleted: set[str] = set()  # ids this process deleted: never found again

    def _listing(self, workspace_id: str | None) -> _Listing:
        workspace_id = None if workspace_id in (None, DEFAULT_WORKSPACE) else workspace_id
        asked = time.monotonic()
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
                    self._failures[workspace_id] = (time.monotonic(), err)
                    raise
                complete = len(jobs) <= self._max_jobs
                listing = self._listings[workspace_id] = _Listing(
                    {j.id or "": j for j in jobs} if complete else {}, complete)
            return listing

    def _list(self, **kwargs: object) -> list[TrainingJob]:
        """The listing every create of this process waits for: a throttled or failing read is tried
        again (each try is itself retried by the transport) before the creates give up."""
        for attempt in range(LIST_ATTEMPTS):
            try:
                return self._client.list_jobs(**kwargs)  # type: ignore[arg-type]
            except ModelArtsError as err:
                if not err.retryable or attempt == LIST_ATTEMPTS - 1:
                    raise
                time.sleep(2.0 * (attempt + 1))
        raise AssertionError("unreachable")

    def lookup(self, name: str, workspace_id: str | None = None) -> list[TrainingJob]:
        """Every job with exactly this name in the workspace, newest first."""
        listing = self._listing(workspace_id)
        if listing.complete:
            with self._lock:
                found = [j for j in listing.jobs.values() if j.name == name]
        else:
            found = [j for j in self._list(name_like=name, limit=self._max_jobs, workspace_id=workspace_id)
                     if j.name == name]
        return self._newest_first(found)

    def owned_by(self, token: str, workspace_id: str | None = None) -> list[TrainingJob]:
        """Every job carrying this owner token in the workspace (any name), newest first. Listed whole
        projects only; otherwise none (the name lookup still finds a same-named one)."""
        listing = self._listing(workspace_id)
        with self._lock:
            found = [j for j in listing.jobs.values() if token_on(j.metadata.annotations) == token]
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
                listing.jobs[job.id] = job

    def forget(self, job_id: str) -> None:
        """A job this process deleted."""
        with self._lock:
            self._deleted.add(job_id)
            for listing in self._listings.values():
                listing.jobs.pop(job_id, None)

"""Which jobs already carry a name: one listing shared by every create of a provider process.

Takeover needs to know, before a POST, whether a job with the declared name exists (an earlier `up`
may have been killed after its POST, and the service may accept a second job with the same name:
not documented). A search per create doubles the calls; instead the first create lists the project's
jobs once (the list API, pages of 50) and every later create of the same `up` reads that listing.
Jobs this process creates or deletes are added to or removed from it, so a replacement that reuses a
name does not meet its own predecessor.

A project holding more than `max_pages` pages of jobs is not listed whole: lookups then search by
name (one call each), which costs less than paging through thousands of jobs.
"""

from __future__ import annotations

import threading
from typing import Protocol

from ..client.models import TrainingJob

PAGE = 50


class ListingClient(Protocol):
    def list_jobs(self, name_like: str | None = None, phases: object = None, limit: int = 50) -> list[TrainingJob]: ...


class NameIndex:
    def __init__(self, client: ListingClient, max_pages: int = 10) -> None:
        self._client = client
        self._max_jobs = max_pages * PAGE
        self._lock = threading.Lock()
        self._jobs: dict[str, TrainingJob] | None = None  # by id; None until listed
        self._complete = False

    def _listing(self) -> dict[str, TrainingJob]:
        with self._lock:
            if self._jobs is None:
                # One more than the cap tells a complete listing from a cut one.
                jobs = self._client.list_jobs(limit=self._max_jobs + 1)
                self._complete = len(jobs) <= self._max_jobs
                self._jobs = {j.id or "": j for j in jobs} if self._complete else {}
            return self._jobs

    def lookup(self, name: str) -> list[TrainingJob]:
        """Every job with exactly this name, newest first."""
        listing = self._listing()
        if self._complete:
            with self._lock:
                found = [j for j in listing.values() if j.name == name]
        else:
            found = [j for j in self._client.list_jobs(name_like=name, limit=self._max_jobs) if j.name == name]
        return sorted(found, key=lambda j: j.metadata.create_time or 0, reverse=True)

    def add(self, job: TrainingJob) -> None:
        with self._lock:
            if self._jobs is not None and self._complete and job.id:
                self._jobs[job.id] = job

    def forget(self, job_id: str) -> None:
        with self._lock:
            if self._jobs is not None:
                self._jobs.pop(job_id, None)

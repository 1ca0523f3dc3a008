"""A job's owner tags written after its create returned, and joined before the `up` can succeed (issue 59).

The create API takes no tags, so a job is tagged by a second call bound to its id (lifecycle.set_tags). Inside the
create that call doubled each create's time, and the engine runs only a few steps at once (`--parallel`, by default
4 per CPU): a 96-job sweep's creates took 4 s instead of 2.5 on a 2-core machine, most of what a sweep costs beyond
one job. So the stack program's awaited jobs (the dynamic provider's door, `waitFor` not `none`: every such job is
in the program's one JobsAwait, stack/declare.py) return from their create right after the POST and hand the tag
call to this process's writer; their JobsAwait, a later step of the same `up` in the same process (it takes every
job's id), joins the writes of the jobs it waits for once its wait is over and fails the `up` naming any job left
untagged. Nothing is dropped: the owner mark is in the job's annotations from its POST on, the proof in its tags
before the `up` succeeds.

The writes are in flight for about one call's time after their create. When the process ends first (the engine
closes it with SIGINT at the end of an `up`, or is gone: provider_base's watchdog) the writes in flight are finished
first (`flush`), so a killed `up` leaves its jobs tagged as today; only a process killed outright (SIGKILL) can
leave a job of the state untagged, as today's POST can (lifecycle.py: a derived name proves the job ours).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass

# Tag calls in flight at once: the creates hand them over at the engine's pace (a few at a time), so a handful of
# threads keeps up; more would only compete with the creates for the CPU.
WORKERS = 8
# The longest a join waits for a write still in flight: the client bounds each call (retries included) well below.
JOIN_S = 300.0


@dataclass(frozen=True)
class Unwritten:
    """A job whose tags were not written: what to write again (the same call) and why it failed."""

    job_id: str
    name: str
    tags: dict[str, str]
    why: str

    @property
    def line(self) -> str:
        return f"{self.name} ({self.job_id}): {self.why}"


Write = Callable[[str, dict[str, str]], None]  # (job id, tags): the tag call, raising when it failed


class TagWrites:
    """The tag writes this process started, by job id, until a JobsAwait (or the process's end) joined them."""

    def __init__(self, workers: int = WORKERS) -> None:
        self._workers = workers
        self._pool: ThreadPoolExecutor | None = None
        self._pending: dict[str, tuple[str, dict[str, str], Future[None]]] = {}  # job id -> (name, tags, write)
        self._lock = threading.Lock()

    def start(self, job_id: str, name: str, tags: dict[str, str], write: Write) -> None:
        """Run `write(job_id, tags)` (the job's tag call) on the writer's threads; its failure is the join's."""
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=self._workers, thread_name_prefix="owner-tags")
            self._pending[job_id] = (name, dict(tags), self._pool.submit(write, job_id, dict(tags)))

    def pending(self) -> list[str]:
        """The job ids whose writes were not joined yet."""
        with self._lock:
            return list(self._pending)

    def join(self, job_ids: Iterable[str], timeout_s: float = JOIN_S) -> list[Unwritten]:
        """Wait for the writes of these jobs (the others are left to their own join): the jobs whose tags were not
        written, by name. The writes joined are forgotten."""
        with self._lock:
            mine = {i: self._pending.pop(i) for i in set(job_ids) if i in self._pending}
        if not mine:
            return []
        wait([f for _, _, f in mine.values()], timeout=timeout_s)
        out = []
        for job_id, (name, tags, future) in mine.items():
            if not future.done():
                out.append(Unwritten(job_id, name, tags, f"its tag call did not end within {timeout_s:g}s"))
            elif (err := future.exception()) is not None:
                out.append(Unwritten(job_id, name, tags, str(err) or type(err).__name__))
        return sorted(out, key=lambda u: (u.name, u.job_id))

    def flush(self, timeout_s: float = 10.0) -> list[Unwritten]:
        """Finish every write in flight (the process is ending); the jobs left untagged."""
        return self.join(self.pending(), timeout_s)


# The process's one writer: the TrainingJob creates start writes, the JobsAwait joins them.
TAG_WRITES = TagWrites()

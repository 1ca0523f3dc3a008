"""A job's owner tags written after its create returned, and joined before the `up` can succeed (issue 59).

The create API takes no tags, so a job is tagged by a second call bound to its id (lifecycle.set_tags). Inside the
create that call held one of the engine's few steps at once (`--parallel`: 4 per CPU by default) for one more API
round trip, and its CPU (the provider's request, the service's answer) competed with what paces a sweep's creates:
the engine's state checkpoints, two per create, one at a time (docs/benchmarks.md, the 96-job profile). So the stack
program's awaited jobs (the dynamic provider's door, `waitFor` not `none`: every such job is in the program's one
JobsAwait, stack/declare.py) return from their create right after the POST and hand the tag call to this process's
writer, which starts the calls once no create is in flight (the creates are over, or stopped); their JobsAwait, a
later step of the same `up` in the same process (it takes every job's id), joins the calls of the jobs it waits for
once its wait is over and fails the `up` naming any job left untagged. Nothing is dropped: the owner mark is in the
job's annotations from its POST on, the proof in its tags before the `up` succeeds. (A Python program of one's own
that declares awaited jobs and no JobsAwait gets the same calls, finished before the provider process ends; only a
refusal of one then fails nothing.)

When the process ends first (the engine closes it with SIGINT at the end of an `up`, or is gone: engine_watch's
watchdog) the calls handed over are finished first (`flush`), so a killed `up` leaves its jobs tagged; only the
provider process itself killed outright (SIGKILL) can leave a job of the state untagged (a job whose POST returned
just before such a kill is left untagged and out of the state today: lifecycle.py, a derived name proves it ours).
"""

from __future__ import annotations

import atexit
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
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
    """The tag writes this process was handed, by job id, until a JobsAwait (or the process's end) joined them.

    A write handed over while creates are in flight (`creating`) is held until none is: a sweep's creates are paced
    by the engine's state checkpoints, one at a time on one core, and a tag call's CPU (the provider's request, the
    service's answer) would compete with them; the writes go out together when the last create returned, beside the
    wait's first polls. A create that fails, or an engine that stops scheduling, leaves no create in flight: the writes
    held go out at once then too."""

    def __init__(self, workers: int = WORKERS) -> None:
        self._workers = workers
        self._pool: ThreadPoolExecutor | None = None
        self._pending: dict[str, tuple[str, dict[str, str], Future[None]]] = {}  # job id -> (name, tags, write)
        self._held: list[tuple[str, dict[str, str], Write, Future[None]]] = []  # handed over, not started yet
        self._creating = 0  # creates in flight (`creating`)
        self._lock = threading.Lock()

    @contextmanager
    def creating(self) -> Iterator[None]:
        """Around a create that may hand a write over: the writes wait until no create is in flight."""
        with self._lock:
            self._creating += 1
        try:
            yield
        finally:
            with self._lock:
                self._creating -= 1
                idle = self._creating == 0
            if idle:
                self.release()

    def start(self, job_id: str, name: str, tags: dict[str, str], write: Write) -> None:
        """Run `write(job_id, tags)` (the job's tag call) on the writer's threads, once no create is in flight; its
        failure is the join's."""
        future: Future[None] = Future()
        with self._lock:
            self._pending[job_id] = (name, dict(tags), future)
            self._held.append((job_id, dict(tags), write, future))
            idle = self._creating == 0
        if idle:
            self.release()

    def release(self) -> None:
        """Start every write held."""
        with self._lock:
            held, self._held = self._held, []
            if held and self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=self._workers, thread_name_prefix="owner-tags")
            pool = self._pool
        for job_id, tags, write, future in held:
            assert pool is not None
            try:
                pool.submit(_run, write, job_id, tags, future)
            except RuntimeError:  # the interpreter is shutting down its pools: the call is made here and now
                _run(write, job_id, tags, future)

    def pending(self) -> list[str]:
        """The job ids whose writes were not joined yet."""
        with self._lock:
            return list(self._pending)

    def join(self, job_ids: Iterable[str], timeout_s: float = JOIN_S) -> list[Unwritten]:
        """Wait for the writes of these jobs (the others are left to their own join): the jobs whose tags were not
        written, by name. The writes joined are forgotten."""
        self.release()
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

    def flush(self, timeout_s: float = 60.0) -> list[Unwritten]:
        """Finish every write handed over (the process is ending); the jobs left untagged."""
        return self.join(self.pending(), timeout_s)


def _run(write: Write, job_id: str, tags: dict[str, str], future: Future[None]) -> None:
    try:
        write(job_id, tags)
    except BaseException as err:  # noqa: BLE001 - the join reports it, naming the job
        future.set_exception(err)
    else:
        future.set_result(None)


# The process's one writer: the TrainingJob creates start writes, the JobsAwait joins them.
TAG_WRITES = TagWrites()
# The process ending (the engine closes a provider with SIGINT, 5 s before SIGKILL): the writes handed over are
# finished first (none is held then: no create is in flight).
atexit.register(lambda: TAG_WRITES.flush(4.0))

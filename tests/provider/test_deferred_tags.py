"""Owner tags written after the create returned (core/deferred_tags.py, issue 59): an awaited job's create POSTs and
returns, its tag call runs beside the next creates, and the JobsAwait that waits for it joins the call before the
`up` can succeed; a tag call that failed fails the `up` naming the job, and the next `up` writes the tags again."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from modelarts_provider.awaiting import provider as await_mod
from modelarts_provider.awaiting.provider import UNTAGGED, JobsAwaitProvider
from modelarts_provider.client.errors import ModelArtsError
from modelarts_provider.core.deferred_tags import TagWrites
from modelarts_provider.core.recorded_failure import RecordedFailure
from modelarts_provider.training_job import provider as job_provider
from modelarts_provider.training_job.args import TrainingJobArgs
from modelarts_provider.training_job.lifecycle import submit
from modelarts_provider.training_job.name_index import NameIndex

from .common import job_inputs, owner_of
from .fakes import FakeClient


def args(name: str = "job-a", **over: Any) -> TrainingJobArgs:
    return TrainingJobArgs.model_validate(job_inputs(name=name, owner=owner_of(name), **over))


class HeldTags(FakeClient):
    """A fake whose tag calls wait until `release` is set (a slow tag API), or fail with `tag_error`."""

    def __init__(self) -> None:
        super().__init__()
        self.release = threading.Event()
        self.tag_error: ModelArtsError | None = None

    def create_job_tags(self, job_id: str, tags: dict[str, str]) -> None:
        assert self.release.wait(10), "the test never released the tag calls"
        if self.tag_error is not None:
            raise self.tag_error
        super().create_job_tags(job_id, tags)


REFUSED = ModelArtsError("tag quota exceeded", status=400, error_code="TMS.0002")


def test_an_awaited_create_returns_before_its_tag_call_and_the_join_leaves_the_tags_on_the_job():
    c, writes, index = HeldTags(), TagWrites(), None
    index = NameIndex(c)
    mine = args()
    job = submit(c, mine, index, lambda _m: None, tag_writes=writes)
    # the create returned with the tag call still held: the service does not hold the tags yet ...
    assert c.tags.get(job.id or "") is None and writes.pending() == [job.id]
    # ... but the job is known by its owner token in this process at once (a later create's orphan check)
    assert [j.id for j in index.owned_by(mine.owner.token, None)] == [job.id]
    c.release.set()
    assert writes.join([job.id or ""]) == []
    assert c.tags[job.id or ""] == mine.owner.tags(job.name)  # the proof is where the service returns it
    assert writes.pending() == [] and c.count("tags_create") == 1


def test_without_tag_writes_the_create_tags_the_job_itself():
    c = FakeClient()
    mine = args()
    job = submit(c, mine, NameIndex(c), lambda _m: None)
    assert c.tags[job.id or ""] == mine.owner.tags(job.name)


def test_a_failed_tag_call_is_the_joins_to_name_and_a_join_waits_only_for_its_own_jobs():
    c, writes = HeldTags(), TagWrites()
    index = NameIndex(c)
    a = submit(c, args("job-a"), index, lambda _m: None, tag_writes=writes)
    b = submit(c, args("job-b"), index, lambda _m: None, tag_writes=writes)
    c.tag_error = REFUSED
    c.release.set()
    (left,) = writes.join([a.id or ""])
    assert (left.job_id, left.name, left.tags) == (a.id, "job-a", args("job-a").owner.tags("job-a"))
    assert "tag quota exceeded" in left.line and left.line.startswith(f"job-a ({a.id}): ")
    assert writes.pending() == [b.id]  # the other job's write waits for its own join (or the process's end)
    assert [u.job_id for u in writes.flush()] == [b.id] and writes.pending() == []


def test_the_tag_calls_wait_until_no_create_is_in_flight_and_then_go_out_together():
    # a sweep's creates are paced by the engine's checkpoints: the tag calls' CPU waits until the creates are over
    c, writes = FakeClient(), TagWrites()
    index = NameIndex(c)
    with writes.creating():
        with writes.creating():
            a = submit(c, args("job-a"), index, lambda _m: None, tag_writes=writes)
        b = submit(c, args("job-b"), index, lambda _m: None, tag_writes=writes)
        assert c.count("tags_create") == 0  # a create is still in flight: both calls held
    # the last create returned: both go out (the join waits for them)
    assert writes.join([a.id or "", b.id or ""]) == [] and c.count("tags_create") == 2
    assert c.tags[a.id or ""] == args("job-a").owner.tags("job-a")


def test_a_failed_create_releases_the_calls_held():
    c, writes = FakeClient(), TagWrites()
    index = NameIndex(c)
    with pytest.raises(RuntimeError):
        with writes.creating():
            a = submit(c, args("job-a"), index, lambda _m: None, tag_writes=writes)
            raise RuntimeError("the next create failed")
    assert writes.flush() == [] and c.tags[a.id or ""] == args("job-a").owner.tags("job-a")


def test_only_the_stack_programs_awaited_jobs_leave_their_tag_call_to_the_wait(monkeypatch):
    monkeypatch.setattr(job_provider, "dynamic_server", lambda: True)
    assert job_provider._joined_later(args(wait_for="completed"))
    assert job_provider._joined_later(args(wait_for="created"))
    assert not job_provider._joined_later(args(wait_for="none"))  # no JobsAwait waits for it: tagged in its create
    monkeypatch.setattr(job_provider, "dynamic_server", lambda: False)  # the plugin's door, a library call
    assert not job_provider._joined_later(args(wait_for="completed"))


# --- the JobsAwait joins them --------------------------------------------------------------------


class Jobs:
    """The JobsAwait's client: every job already Completed; tag calls recorded, refused while `refuse` is set."""

    def __init__(self) -> None:
        self.tagged: list[tuple[str, dict[str, str]]] = []
        self.refuse = False

    def get_job(self, job_id: str) -> Any:
        from modelarts_provider.client.models import TrainingJob
        return TrainingJob.model_validate({"metadata": {"id": job_id, "name": f"name-{job_id}"},
                                           "status": {"phase": "Completed"}})

    def create_job_tags(self, job_id: str, tags: dict[str, str]) -> None:
        if self.refuse:
            raise REFUSED
        self.tagged.append((job_id, dict(tags)))


def _entry(job_id: str) -> dict[str, Any]:
    return {"job_id": job_id, "job_name": f"name-{job_id}", "wait_for": "completed", "timeout_seconds": 60,
            "poll_seconds": 1}


@pytest.fixture
def awaiting(monkeypatch: pytest.MonkeyPatch) -> tuple[JobsAwaitProvider, Jobs, TagWrites, list[str]]:
    client, writes, said = Jobs(), TagWrites(), []
    monkeypatch.setattr(await_mod, "TAG_WRITES", writes)
    monkeypatch.setattr(await_mod, "say", said.append)
    monkeypatch.setattr(await_mod, "engine_alive", lambda: True)
    monkeypatch.setenv("MODELARTS_AWAIT_STRATEGY", "get")
    p = JobsAwaitProvider()
    p._api = lambda: client  # type: ignore[method-assign]
    return p, client, writes, said


def _failing(_job_id: str, _tags: dict[str, str]) -> None:
    raise REFUSED


def test_the_wait_fails_the_up_naming_a_job_left_untagged_and_the_next_up_writes_its_tags(awaiting):
    p, client, writes, _said = awaiting
    tags = {"modelarts-pulumi.token": "ab" * 8}
    writes.start("j1", "name-j1", tags, lambda _i, _t: None)  # written
    writes.start("j2", "name-j2", tags, _failing)               # refused
    jobs = {"a": _entry("j1"), "b": _entry("j2")}
    with pytest.raises(RecordedFailure) as err:
        p.create({"jobs": jobs})
    assert str(err.value) == ("the owner tags of 1 training job were not written (name-j2 (j2): "
                              f"{REFUSED}): each carries its owner mark in its annotations; run `pulumi up` again "
                              "to write the tags")
    recorded = err.value.outs
    assert recorded[UNTAGGED] == {"j2": {"name": "name-j2", "tags": tags}}
    assert recorded["phases"] == {"a": "Completed", "b": "Completed"}  # what the wait saw is kept
    # the next `up`: the recorded JobsAwait changes while a job is left untagged, and its update writes the tags
    assert p.diff("jobs-await-x", recorded, {"jobs": jobs}).changes is True
    outs = p.update("jobs-await-x", recorded, {"jobs": jobs}).outs
    assert client.tagged == [("j2", tags)] and UNTAGGED not in outs
    assert p.diff("jobs-await-x", outs, {"jobs": jobs}).changes is False


def test_a_refresh_keeps_the_jobs_left_untagged(awaiting):
    p, _client, _writes, _said = awaiting
    state = {"jobs": {"b": _entry("j2")}, "statuses": {"b": {"job_id": "j2", "job_name": "name-j2",
                                                             "wait_for": "completed", "phase": "Completed",
                                                             "reached": True}},
             UNTAGGED: {"j2": {"name": "name-j2", "tags": {"k": "v"}}}}
    assert p.read("jobs-await-x", state).outs[UNTAGGED] == state[UNTAGGED]


def test_a_second_refusal_keeps_the_job_on_record(awaiting):
    p, client, _writes, _said = awaiting
    jobs = {"b": _entry("j2")}
    recorded = {**p.create({"jobs": jobs}).outs, UNTAGGED: {"j2": {"name": "name-j2", "tags": {"k": "v"}}}}
    client.refuse = True
    with pytest.raises(RecordedFailure) as err:
        p.update("jobs-await-x", recorded, {"jobs": jobs})
    assert err.value.outs[UNTAGGED] == recorded[UNTAGGED] and "name-j2 (j2): TMS.0002" in str(err.value)


def test_a_call_released_when_the_pools_no_longer_take_work_is_made_at_once():
    c, writes = FakeClient(), TagWrites()
    index = NameIndex(c)
    writes.release()  # nothing held: no pool yet
    with writes.creating():
        a = submit(c, args("job-a"), index, lambda _m: None, tag_writes=writes)
        writes._pool = ThreadPoolExecutor(max_workers=1)
        writes._pool.shutdown()  # as at the interpreter's exit: submit raises RuntimeError
    assert c.count("tags_create") == 1 and writes.join([a.id or ""]) == []

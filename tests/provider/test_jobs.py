from __future__ import annotations

import pytest

from modelarts_provider import jobs
from modelarts_provider.args import TrainingJobArgs

from .common import job_inputs
from .fakes import FakeClient

say = lambda _m: None  # noqa: E731


def args(**over) -> TrainingJobArgs:
    return TrainingJobArgs.model_validate(job_inputs(**over))


def test_create_waits_until_left_creating():
    c = FakeClient()
    job = jobs.create(c, args(), say)
    assert job.phase == "Pending" and c.calls[:2] == ["search", "create"]


def test_wait_completed():
    c = FakeClient()
    assert jobs.create(c, args(wait_for="completed"), say).phase == "Completed"


def test_wait_none_makes_no_poll():
    c = FakeClient()
    jobs.create(c, args(wait_for="none"), say)
    assert c.calls == ["search", "create"]


def test_failed_job_fails_create_with_exit_code_and_leaves_nothing_running():
    c = FakeClient(script=["Creating", "Running", "Failed"], exit_code=3)
    with pytest.raises(jobs.TrainingJobError) as e:
        jobs.create(c, args(wait_for="completed"), say)
    msg = str(e.value)
    assert "job-a" in msg and "Failed" in msg and "exit code 3" in msg and "boom" in msg


def test_timeout_terminates_the_job():
    c = FakeClient(script=["Creating", "Running"])
    with pytest.raises(jobs.TrainingJobError, match="timed out"):
        jobs.create(c, args(wait_for="completed", wait_timeout_seconds=0.2), say)
    assert "terminate" in c.calls
    assert all(j["status"]["phase"] == "Terminated" for j in c.jobs.values())


def test_create_takes_over_the_same_job():
    c = FakeClient()
    first = jobs.create(c, args(), say)
    again = jobs.create(c, args(), say)
    assert again.id == first.id and c.calls.count("create") == 1


def test_takeover_updates_a_changed_description():
    c = FakeClient()
    first = jobs.create(c, args(), say)
    jobs.create(c, args(description="other"), say)
    assert c.jobs[first.id]["metadata"]["description"] == "other"


def test_same_name_different_spec_is_refused_with_fields():
    c = FakeClient()
    jobs.create(c, args(), say)
    with pytest.raises(jobs.TrainingJobError) as e:
        jobs.create(c, args(flavor_id="other-flavor", node_count=2), say)
    assert "flavor_id: declared 'other-flavor'" in str(e.value) and "node_count" in str(e.value)


def test_failed_leftover_is_removed_and_recreated():
    c = FakeClient()
    old = c.add(args().to_wire(), "Failed")
    job = jobs.create(c, args(), say)
    assert job.id != old.id and old.id not in c.jobs and c.calls.count("create") == 1


def test_ambiguous_create_is_resolved_by_name():
    c = FakeClient()
    c.fail_create_after_commit = True
    job = jobs.create(c, args(), say)
    assert len(c.jobs) == 1 and job.id in c.jobs


def test_delete_terminates_waits_and_deletes():
    c = FakeClient(script=["Creating", "Running"])
    job = jobs.create(c, args(), say)
    jobs.stop_and_delete(c, job.id, 5, 0.05, say)
    assert c.jobs == {} and "terminate" in c.calls


def test_delete_of_gone_job_succeeds():
    c = FakeClient()
    jobs.stop_and_delete(c, "nope", 5, 0.05, say)
    assert c.calls == ["get"]


def test_adopt_matching_job():
    c = FakeClient()
    live = c.add(args().to_wire(), "Running")
    job = jobs.create(c, args(name=None, adopt_job_id=live.id), say)
    assert job.id == live.id and "create" not in c.calls


def test_adopt_mismatch_lists_fields():
    c = FakeClient()
    live = c.add(args().to_wire(), "Running")
    with pytest.raises(jobs.TrainingJobError) as e:
        jobs.create(c, args(adopt_job_id=live.id, flavor_id="f2",
                            algorithm={"code_dir": "obs://bkt/other/", "boot_file": "obs://bkt/other/t.py",
                                       "engine": {"engine_name": "PyTorch", "engine_version": "1.8"}}), say)
    msg = str(e.value)
    assert "flavor_id" in msg and "algorithm.code_dir" in msg and "algorithm.boot_file" in msg


def test_adopt_missing_job():
    with pytest.raises(jobs.TrainingJobError, match="no such training job"):
        jobs.create(FakeClient(), args(adopt_job_id="zzz"), say)

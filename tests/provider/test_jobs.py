from __future__ import annotations

import pytest

from modelarts_provider.training_job import lifecycle as jobs
from modelarts_provider.training_job.args import TrainingJobArgs
from modelarts_provider.client.errors import ModelArtsError

from .common import job_inputs
from .fakes import FakeClient

say = lambda _m: None  # noqa: E731


class Said(list):
    def __call__(self, message: str) -> None:
        assert "\n" not in message
        self.append(message)


def args(**over) -> TrainingJobArgs:
    return TrainingJobArgs.model_validate(job_inputs(**over))


def test_create_waits_until_left_creating():
    c = FakeClient()
    job = jobs.create(c, args(), say)
    assert job.phase == "Pending" and c.calls[:2] == ["search", "create"]
    assert c.calls[2:] == ["wait", "get"]  # the client's wait_for_phase polls, not a loop of our own


def test_every_phase_change_is_printed():
    c = FakeClient()
    said = Said()
    jobs.create(c, args(wait_for="completed"), said)
    assert said[-4:] == ["job-a: Creating", "job-a: Creating -> Pending", "job-a: Pending -> Running",
                         "job-a: Running -> Completed"]


def test_wait_polls_at_the_configured_interval():
    c = FakeClient(script=["Creating"] * 3 + ["Running"])
    jobs.create(c, args(wait_for="running", poll_interval_seconds=0.5), say)
    assert c.sleeps and set(c.sleeps) == {0.5}  # no back-off past poll_interval_seconds


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
    assert "\n" not in msg
    assert all(j["status"]["phase"] not in jobs.ACTIVE for j in c.jobs.values())


def test_abnormal_job_fails_create():
    c = FakeClient(script=["Creating", "Running", "Abnormal"])
    with pytest.raises(jobs.TrainingJobError) as e:
        jobs.create(c, args(wait_for="completed"), say)
    assert "job-a" in str(e.value) and "is Abnormal" in str(e.value)


@pytest.mark.parametrize("stopped", ["Terminating", "Terminated"])
def test_job_stopped_by_someone_else_while_waiting_fails_clearly(stopped):
    c = FakeClient(script=["Creating", "Pending", "Running"])
    c.terminating_polls = 5
    job = c.add(args().to_wire(), "Pending")
    c.set_phase(job.id, stopped)
    with pytest.raises(jobs.TrainingJobError) as e:
        jobs.wait_for(c, job, "completed", 5, 0.05, say)
    msg = str(e.value)
    # Terminating fails at once (the poll that saw it), without waiting for Terminated
    assert f"training job job-a ({job.id}) is {'Terminated' if stopped == 'Terminated' else 'Terminating'}" in msg
    assert c.calls.count("get") == 1 and "\n" not in msg


def test_job_already_stopped_in_hand_fails_without_polling():
    c = FakeClient()
    job = c.add(args().to_wire(), "Terminated")
    with pytest.raises(jobs.TrainingJobError, match=r"job-a \(.*\) is Terminated"):
        jobs.wait_for(c, job, "created", 5, 0.05, say)
    assert c.calls == []


def test_job_that_already_got_there_needs_no_poll():
    c = FakeClient()
    job = c.add(args().to_wire(), "Running")
    assert jobs.wait_for(c, job, "running", 5, 0.05, say).id == job.id and c.calls == []


def test_job_deleted_while_waiting_fails_clearly():
    c = FakeClient()
    job = c.add(args().to_wire(), "Creating")
    del c.jobs[job.id]
    with pytest.raises(jobs.TrainingJobError, match=f"training job job-a \\({job.id}\\) disappeared while waiting "
                                                    "for running"):
        jobs.wait_for(c, job, "running", 5, 0.05, say)


def test_transient_poll_errors_are_tolerated():
    c = FakeClient()
    c.get_faults = [ModelArtsError("throttled", status=429), ModelArtsError("unavailable", status=503),
                    ModelArtsError("reset", error_code="Client.ConnectionError")]
    job = jobs.create(c, args(wait_for="completed"), say)
    assert job.phase == "Completed" and c.calls.count("create") == 1


def test_non_retryable_poll_error_fails_the_create_and_terminates_the_job():
    c = FakeClient()
    c.get_faults = [ModelArtsError("forbidden", status=403)]
    with pytest.raises(jobs.TrainingJobError, match=r"^forbidden.*; the job was terminated$"):
        jobs.create(c, args(), say)
    assert "terminate" in c.calls
    assert all(j["status"]["phase"] == "Terminated" for j in c.jobs.values())


def test_a_job_that_cannot_be_terminated_is_reported():
    c = FakeClient()
    c.get_faults = [ModelArtsError("forbidden", status=403), ModelArtsError("still forbidden", status=403)]
    with pytest.raises(jobs.TrainingJobError, match=r"^forbidden.*; terminating it failed: still forbidden"):
        jobs.create(c, args(), say)


def test_timeout_terminates_the_job():
    c = FakeClient(script=["Creating", "Running"])
    with pytest.raises(jobs.TrainingJobError, match=r"timed out after 0.2s waiting for training job job-a "
                                                    r"\(job-\d+\) to reach completed: it is Running; "
                                                    r"the job was terminated"):
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
    # the client resolves it (lookup by name); the provider neither resends nor looks again itself
    c = FakeClient()
    c.fail_create_after_commit = True
    job = jobs.create(c, args(), say)
    assert len(c.jobs) == 1 and job.id in c.jobs
    assert c.calls[:3] == ["search", "create", "search"] and c.calls[3:].count("search") == 0
    assert c.calls.count("create") == 1


def test_unresolvable_ambiguous_create_says_rerun_and_rerun_takes_over():
    c = FakeClient()
    c.ambiguous_create_unresolved = True  # committed, but the client's lookup failed
    with pytest.raises(jobs.TrainingJobError) as e:
        jobs.create(c, args(), say)
    msg = str(e.value)
    assert "job-a" in msg and "pulumi up" in msg and "takes it over" in msg and "\n" not in msg
    assert c.calls == ["search", "create"]  # nothing resent, no second guess

    c.ambiguous_create_unresolved = False
    (committed,) = c.jobs
    again = jobs.create(c, args(), say)
    assert again.id == committed and c.calls.count("create") == 1


def test_definitive_create_rejection_propagates_unchanged():
    c = FakeClient()
    c.create_error = ModelArtsError("flavor not found", status=400, error_code="ModelArts.2763")
    with pytest.raises(ModelArtsError) as e:
        jobs.create(c, args(), say)
    assert e.value is c.create_error and c.calls == ["search", "create"] and c.jobs == {}


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

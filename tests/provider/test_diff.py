from __future__ import annotations

from modelarts_provider.training_job.check import check_inputs
from modelarts_provider.training_job.unknowns import UNKNOWN
from modelarts_provider.training_job.diff import decide

from .common import job_inputs


def state(**over):
    inputs, _ = check_inputs(job_inputs(**over))
    return {**inputs, "job_id": "j1", "job_name": inputs["name"], "phase": "Running"}


def news(**over):
    return check_inputs(job_inputs(**over))[0]


def test_no_change():
    d = decide("j1", state(), news())
    assert not d.changes and not d.replaces


def test_status_outputs_never_diff():
    old = {**state(), "phase": "Completed", "duration_ms": 99, "task_statuses": [{"exit_code": 0}]}
    assert not decide("j1", old, news()).changes


def test_description_is_in_place():
    d = decide("j1", state(), news(description="new"))
    assert d.changes and d.updates == ["description"] and not d.replaces


def test_provider_only_options_change_nothing_remote():
    d = decide("j1", state(), news(wait_for="completed", wait_timeout_seconds=99, delete_before_replace=False))
    assert d.changes and not d.replaces


def test_flavor_change_replaces_delete_first_by_default():
    d = decide("j1", state(), news(flavor_id="modelarts.p3.large.public", name="job-b"))
    assert "flavor_id" in d.replaces and d.delete_before_replace


def test_create_before_delete_opt_out_when_name_changes():
    d = decide("j1", state(), news(flavor_id="f2", name="job-b", delete_before_replace=False))
    assert d.replaces and d.delete_before_replace is False


def test_same_name_forces_delete_before_replace():
    d = decide("j1", state(), news(flavor_id="f2", delete_before_replace=False))
    assert d.replaces and d.delete_before_replace is True


def test_unknown_name_during_preview_is_a_replace():
    from pulumi.output import Unknown

    for unknown in (UNKNOWN, Unknown()):
        d = decide("j1", state(), news(flavor_id="f2", name=unknown))
        assert {"flavor_id", "name"} <= set(d.replaces)


def test_replace_failed_opt_in():
    failed = {**state(replace_failed=True), "phase": "Failed"}
    assert not decide("j1", {**state(), "phase": "Failed"}, news()).changes
    d = decide("j1", failed, news(replace_failed=True))
    assert d.replaces == ["phase"] and d.delete_before_replace


def test_adopt_job_id_only_replaces_for_another_job():
    assert not decide("j1", state(), news(adopt_job_id="j1")).replaces
    assert decide("j1", state(), news(adopt_job_id="j2")).replaces == ["adopt_job_id"]

"""check() + decide(): update in place vs replace, the derived-name rule, adoption, delete-before-replace."""

from __future__ import annotations

from typing import Any

import pytest
from pulumi.output import Unknown

from modelarts_provider.training_job.check import check_inputs
from modelarts_provider.training_job.diff import decide
from modelarts_provider.core.unknowns import UNKNOWN

from .common import CODE, job_inputs

UNKNOWNS = pytest.mark.parametrize("unknown", [UNKNOWN, Unknown()], ids=["wire-string", "Unknown-object"])


def state(job_name: str | None = None, phase: str = "Running", **over: Any) -> dict[str, Any]:
    """What the state holds after a create: the checked inputs plus the status outputs."""
    inputs, failures = check_inputs(job_inputs(**over))
    assert failures == []
    return {**inputs, "job_id": "j1", "job_name": job_name or inputs["name"], "phase": phase}


def news(olds: dict[str, Any] | None = None, **over: Any) -> dict[str, Any]:
    inputs, failures = check_inputs(job_inputs(**over), olds)
    assert failures == []
    return inputs


def outputs_at(*urls: str) -> dict[str, Any]:
    return {**CODE, "outputs": [{"name": f"o{i}", "obs_url": u} for i, u in enumerate(urls)]}


def test_no_change():
    d = decide("j1", state(), news())
    assert not d.changes and not d.replaces and not d.updates


def test_status_outputs_never_diff():
    old = {**state(), "phase": "Completed", "duration_ms": 99, "task_statuses": [{"exit_code": 0}]}
    assert not decide("j1", old, news()).changes


def test_description_is_in_place():
    d = decide("j1", state(), news(description="new"))
    assert d.changes and d.updates == ["description"] and d.replaces == []


@pytest.mark.parametrize("before, after", [({}, {"team": "vision"}), ({"team": "vision"}, {"team": "speech"}),
                                           ({"team": "vision", "stage": "dev"}, {})])
def test_tags_are_in_place_never_a_replacement(before, after):
    d = decide("j1", state(tags=before), news(tags=after))
    assert d.changes and d.updates == ["tags"] and d.replaces == []


@UNKNOWNS
def test_unknown_tags_at_preview_are_an_update_not_a_replace(unknown):
    old = state(tags={"team": "vision"})
    d = decide("j1", old, news(old, tags=unknown))
    assert d.changes and d.updates == ["tags"] and d.replaces == []


def test_a_tag_change_keeps_the_derived_name():
    # the derived name hashes the spec: tags are not part of it (normalize.NOT_SPEC), so the name stays
    from modelarts_provider.training_job.normalize import spec_hash
    assert spec_hash(job_inputs(tags={"a": "1"})) == spec_hash(job_inputs(tags={"a": "2"}))


@UNKNOWNS
def test_an_unknown_description_at_preview_is_an_update_not_a_replace(unknown):
    old = state()
    new = news(old, description=unknown)
    assert new["description"] is unknown and new["flavor_id"] == "modelarts.vm.cpu.2u"
    d = decide("j1", old, new)
    assert d.changes and d.updates == ["description"] and d.replaces == []


@UNKNOWNS
def test_an_unknown_spec_field_at_preview_is_a_replace(unknown):
    d = decide("j1", state(), news(state(), flavor_id=unknown))
    assert d.replaces == ["flavor_id"]


def test_provider_only_options_change_nothing_remote():
    d = decide("j1", state(), news(wait_for="completed", wait_timeout_seconds=99, delete_before_replace=False))
    assert d.changes and d.replaces == []
    assert d.updates == ["delete_before_replace", "wait_for", "wait_timeout_seconds"]


def test_a_running_job_sharing_its_output_path_is_stopped_first():
    d = decide("j1", state(), news(flavor_id="modelarts.p3.large.public", name="job-b"))
    assert d.replaces == ["flavor_id", "name"] and d.delete_before_replace is True


@pytest.mark.parametrize("phase", ["Completed", "Failed", "Abnormal", "Terminated"])
def test_a_finished_run_is_kept_until_its_successor_is_accepted(phase):
    # Same output path, new (derived or explicit) name: the new job first, the finished one deleted after.
    d = decide("j1", state(phase=phase), news(flavor_id="f2", name="job-b"))
    assert "flavor_id" in d.replaces and d.delete_before_replace is False
    # ... unless its explicit name stays (the service may hold a name once): then it goes first
    assert decide("j1", state(phase=phase), news(flavor_id="f2")).delete_before_replace is True
    # ... or delete_before_replace: true asks for it
    assert decide("j1", state(phase=phase), news(flavor_id="f2", name="job-b",
                                                 delete_before_replace=True)).delete_before_replace is True


def test_a_running_job_with_its_own_paths_is_replaced_new_first_by_default():
    old = state(algorithm=outputs_at("obs://bkt/out/a/"))
    d = decide("j1", old, news(name="job-b", flavor_id="f2", algorithm=outputs_at("obs://bkt/out/b/")))
    assert d.replaces and d.delete_before_replace is False


def test_same_name_forces_delete_before_replace():
    d = decide("j1", state(), news(flavor_id="f2", delete_before_replace=False,
                                   algorithm=outputs_at("obs://bkt/elsewhere/")))
    assert set(d.replaces) == {"algorithm", "flavor_id"} and d.delete_before_replace is True


@pytest.mark.parametrize("old_url,new_url", [
    ("obs://bkt/out/", "obs://bkt/out/"),
    ("obs://bkt/out/", "/bkt/out/"),            # the same path, the API's spelling
    ("obs://bkt/out/", "obs://bkt/out/run-2/"),  # inside the old one
    ("obs://bkt/out/run-2/", "obs://bkt/out/"),  # around the old one
])
def test_a_shared_output_path_forces_delete_before_replace(old_url, new_url):
    old = state(algorithm=outputs_at(old_url))
    d = decide("j1", old, news(name="job-b", flavor_id="f2", delete_before_replace=False,
                               algorithm=outputs_at(new_url)))
    assert "flavor_id" in d.replaces and d.delete_before_replace is True


def test_a_shared_log_path_forces_delete_before_replace():
    old = state(algorithm=outputs_at("obs://bkt/out/"), log_export_path={"obs_url": "obs://bkt/logs/"})
    d = decide("j1", old, news(name="job-b", flavor_id="f2", delete_before_replace=False,
                               algorithm=outputs_at("obs://bkt/out-2/"), log_export_path={"obs_url": "/bkt/logs/"}))
    assert d.replaces and d.delete_before_replace is True


def test_distinct_output_paths_honour_delete_before_replace_false():
    old = state(algorithm=outputs_at("obs://bkt/out/a/"), log_export_path={"obs_url": "obs://bkt/logs/a/"})
    d = decide("j1", old, news(name="job-b", flavor_id="f2", delete_before_replace=False,
                               algorithm=outputs_at("obs://bkt/out/b/"), log_export_path={"obs_url": "obs://bkt/logs/b/"}))
    assert set(d.replaces) == {"algorithm", "flavor_id", "log_export_path", "name"}
    assert d.delete_before_replace is False


@UNKNOWNS
def test_an_unknown_name_during_preview_is_a_replace(unknown):
    d = decide("j1", state(), news(flavor_id="f2", name=unknown))
    assert d.replaces == ["flavor_id", "name"]


def test_replace_failed_replaces_a_job_last_seen_failed():
    for phase in ("Failed", "Abnormal"):
        d = decide("j1", state(replace_failed=True, phase=phase), news(replace_failed=True))
        assert d.replaces == ["phase"] and d.delete_before_replace is True
    assert not decide("j1", state(phase="Failed"), news()).changes  # not opted in
    assert not decide("j1", state(replace_failed=True, phase="Completed"), news(replace_failed=True)).changes


# --- the derived-name rule ---------------------------------------------------------------------


def derived_state(**over: Any) -> dict[str, Any]:
    return state(name="train-abc123", derived_name=True, **over)


@pytest.mark.parametrize("new_name", ["train-xyz789", UNKNOWN, Unknown()], ids=["renewed", "wire-unknown", "Unknown"])
def test_a_new_derived_name_with_an_unchanged_spec_keeps_the_old_name(new_name):
    old = derived_state(description="a")
    new = news(old, name=new_name, derived_name=True, description="b", wait_for="running")
    assert new["name"] == "train-abc123"  # check returns the job's name
    d = decide("j1", old, new)
    assert d.replaces == [] and d.updates == ["description", "wait_for"]


def test_a_derived_name_is_kept_under_equivalent_declarations():
    old = derived_state()
    new = news(old, name="train-xyz789", derived_name=True, node_count=1,
               algorithm={**CODE, "parameters": [{"name": "lr", "value": "0.1"}],
                          "outputs": [{"name": "train_url", "obs_url": "obs://bkt/out/"}]})
    assert new["name"] == "train-abc123" and not decide("j1", old, new).changes


def test_a_new_derived_name_with_a_changed_spec_is_the_new_job_name():
    old = derived_state()
    new = news(old, name="train-xyz789", derived_name=True, flavor_id="f2")
    assert new["name"] == "train-xyz789"
    d = decide("j1", old, new)
    assert d.replaces == ["flavor_id"] and "name" in d.updates  # the spec replaces, the name alone never


def test_a_declared_name_change_replaces():
    d = decide("j1", state(), news(state(), name="job-b"))
    assert d.replaces == ["name"]


# --- adoption -----------------------------------------------------------------------------------


def adopted_state(**over: Any) -> dict[str, Any]:
    return state(name=None, adopt_job_id="j1", job_name="live-name", **over)


def test_naming_the_adopted_job_by_its_live_name_changes_nothing():
    old = adopted_state()
    assert not decide("j1", old, news(old, name="live-name", adopt_job_id="j1")).changes


def test_naming_the_adopted_job_by_another_name_replaces():
    old = adopted_state()
    assert decide("j1", old, news(old, name="other-name", adopt_job_id="j1")).replaces == ["name"]


def test_dropping_adopt_job_id_with_the_live_name_is_no_replace():
    old = adopted_state()
    d = decide("j1", old, news(old, name="live-name"))
    assert d.replaces == [] and d.updates == ["adopt_job_id"]


def test_dropping_adopt_job_id_with_a_derived_name_keeps_the_job():
    old = adopted_state()
    new = news(old, name="res-abc123", derived_name=True)
    assert new["name"] == "live-name"
    d = decide("j1", old, new)
    assert d.replaces == [] and set(d.updates) == {"adopt_job_id", "derived_name"}


def test_adopt_job_id_only_replaces_for_another_job():
    old = adopted_state()
    assert not decide("j1", old, news(old, name=None, adopt_job_id="j1")).changes
    d = decide("j1", old, news(old, name=None, adopt_job_id="j2"))
    assert d.replaces == ["adopt_job_id"]
    assert decide("j1", state(), news(adopt_job_id="j2")).replaces == ["adopt_job_id"]


# --- as the engine calls them: check gets the old inputs, diff the old state ----------------------


def two_ups(first_old_inputs: dict[str, Any], job_name: str, **declared: Any) -> list[Any]:
    """Check + diff of the same declaration on two consecutive `up`s (the first one's update applied)."""
    out = []
    old_inputs = first_old_inputs
    for _ in range(2):
        st_ = {**old_inputs, "job_id": "j1", "job_name": job_name, "phase": "Running"}
        new = news(old_inputs, **declared)
        out.append((new["name"], decide("j1", st_, new)))
        old_inputs = new
    return out


def test_a_renewed_derived_name_is_kept_with_the_old_inputs_alone():
    old_inputs = news(name="train-abc123", derived_name=True)
    (name1, d1), (name2, d2) = two_ups(old_inputs, "train-abc123", name="train-xyz789", derived_name=True)
    assert name1 == name2 == "train-abc123" and not d1.changes and not d2.changes


def test_dropping_adoption_with_a_derived_name_is_one_update_then_nothing():
    old_inputs = news(name=None, adopt_job_id="j1")
    (_, first), (_, second) = two_ups(old_inputs, "live-name", name="res-abc123", derived_name=True)
    assert first.replaces == [] and set(first.updates) == {"adopt_job_id", "derived_name", "name"}
    assert not second.changes  # no update at every later `up`


# --- issue 43 finding 3: a Completed run on a pool being replaced ------------------------------------------


@UNKNOWNS
@pytest.mark.parametrize("phase,option,refused", [
    ("Completed", {}, True),
    ("Completed", {"keep_finished_runs": True}, False),  # kept in the service: nothing lost
    ("Completed", {"delete_before_replace": True}, False),  # the loss accepted
    ("Running", {}, False),  # a run, not a result: replaced as before
])
def test_a_completed_run_on_a_pool_being_replaced_is_refused(unknown, phase, option, refused):
    from modelarts_provider.training_job.diff import pool_replacement_refusal

    old = {**state(phase=phase, pool_id="pool-old", flavor_id=None), **option}  # options as recorded
    new = {**news(old, pool_id="pool-old", flavor_id=None), **option, "pool_id": unknown}
    d = decide("j1", old, new)
    assert "pool_id" in d.replaces
    line = pool_replacement_refusal(d, old, new)
    assert (line is not None) is refused
    if refused:
        assert line.startswith(f"training job {old['job_name']} (j1) has completed and its pool is being replaced")
        assert "keepFinishedRuns: true" in line and "\n" not in line


def test_a_known_new_pool_is_no_refusal():
    # Another pool named outright (pool_id known): the successor is created first, as for any replacement.
    from modelarts_provider.training_job.diff import pool_replacement_refusal

    old = state(phase="Completed", pool_id="pool-old", flavor_id=None)
    new = news(old, pool_id="pool-other", flavor_id=None)
    assert pool_replacement_refusal(decide("j1", old, new), old, new) is None

"""What a run became decides its replacement: the phase recorded at create is stale (Creating); the diff reads
the job once when a replacement (or replace_failed) depends on it, and refuses to delete a Completed run
whose successor needs the same explicit name."""

from __future__ import annotations

from typing import Any

import pytest

from modelarts_provider.core.provider_error import ProviderError
from modelarts_provider.training_job.diff import decide, needs_live_phase, same_name_refusal

from .common import checked, provider_for
from .fakes import FakeClient


def state_of(client: FakeClient, phase_now: str, **over: Any) -> tuple[str, dict[str, Any]]:
    """A job the service holds in `phase_now`, and the state as create left it (phase Creating)."""
    inputs = checked(**over)
    from modelarts_provider.training_job.args import TrainingJobArgs

    job = client.add(TrainingJobArgs.model_validate(inputs).to_wire(), phase_now)
    return job.id or "", {**inputs, "job_id": job.id, "job_name": inputs["name"], "phase": "Creating"}


def test_no_replacement_reads_nothing():
    c = FakeClient()
    p = provider_for(c)
    id_, st = state_of(c, "Completed")
    for news in (checked(), checked(description="other"), checked(wait_for="none")):
        assert p.diff(id_, st, news).replaces is None
    assert c.calls == []


def test_a_completed_run_is_replaced_new_first_after_one_read():
    # Recorded Creating (running, same output path): without the read it would be deleted first.
    c = FakeClient()
    p = provider_for(c)
    id_, st = state_of(c, "Completed", name="job-a", derived_name=True)
    assert decide(id_, st, checked(name="job-b", derived_name=True, flavor_id="f2")).delete_before_replace is True
    d = p.diff(id_, st, checked(name="job-b", derived_name=True, flavor_id="f2"))
    assert d.replaces and d.delete_before_replace is False
    assert c.calls == ["get"]


def test_a_running_job_sharing_the_output_path_still_goes_first():
    c = FakeClient(script=["Creating", "Running"])
    p = provider_for(c)
    id_, st = state_of(c, "Running", name="job-a", derived_name=True)
    d = p.diff(id_, st, checked(name="job-b", derived_name=True, flavor_id="f2"))
    assert d.delete_before_replace is True and c.calls == ["get"]


def test_a_recorded_final_phase_is_not_read_again():
    c = FakeClient()
    p = provider_for(c)
    id_, st = state_of(c, "Completed", name="job-a", derived_name=True)
    st["phase"] = "Completed"  # e.g. after a refresh
    assert p.diff(id_, st, checked(name="job-b", derived_name=True, flavor_id="f2")).delete_before_replace is False
    assert c.calls == []


def test_replace_failed_reads_what_the_run_became():
    c = FakeClient()
    p = provider_for(c)
    id_, st = state_of(c, "Failed", replace_failed=True)
    d = p.diff(id_, st, checked(replace_failed=True))
    assert d.replaces == ["phase"] and c.calls == ["get"]
    c2 = FakeClient()
    id2, st2 = state_of(c2, "Completed", replace_failed=True)
    assert not provider_for(c2).diff(id2, st2, checked(replace_failed=True)).changes
    # not opted in: no read, no replacement
    c3 = FakeClient()
    id3, st3 = state_of(c3, "Failed")
    assert not provider_for(c3).diff(id3, st3, checked()).changes and c3.calls == []


def test_a_completed_run_keeping_its_explicit_name_is_refused_before_any_change():
    c = FakeClient()
    p = provider_for(c)
    id_, st = state_of(c, "Completed")
    with pytest.raises(ProviderError) as err:
        p.diff(id_, st, checked(algorithm={"code_dir": "obs://bkt/code/", "boot_file": "obs://bkt/code/train.py",
                                           "engine": {"engine_name": "PyTorch", "engine_version": "1.8"},
                                           "parameters": {"lr": 0.2},
                                           "outputs": [{"name": "train_url", "obs_url": "obs://bkt/out/"}]}))
    line = str(err.value)
    assert "\n" not in line and f"training job job-a ({id_}) has completed" in line
    assert "keeps the name job-a" in line and "a new name" in line and "deleteBeforeReplace: true" in line
    assert c.touched() == set()
    # deleteBeforeReplace: true accepts the loss; a new name keeps the run until its successor is accepted
    assert p.diff(id_, st, checked(flavor_id="f2", delete_before_replace=True)).delete_before_replace is True
    assert p.diff(id_, st, checked(flavor_id="f2", name="job-b")).delete_before_replace is False


@pytest.mark.parametrize("phase", ["Failed", "Abnormal", "Terminated", "Running", None])
def test_only_a_completed_run_is_refused(phase):
    st = {**checked(), "job_id": "j1", "job_name": "job-a", "phase": phase}
    news = checked(flavor_id="f2")
    d = decide("j1", st, news)
    assert d.replaces and d.delete_before_replace is True and same_name_refusal(d, st, news) is None


def test_needs_live_phase_rules():
    st = {**checked(), "job_id": "j1", "job_name": "job-a", "phase": "Creating"}
    assert not needs_live_phase(decide("j1", st, checked()), st, checked())
    assert needs_live_phase(decide("j1", st, checked(flavor_id="f2")), st, checked(flavor_id="f2"))
    assert needs_live_phase(decide("j1", st, checked()), st, checked(replace_failed=True))
    done = {**st, "phase": "Terminated"}
    assert not needs_live_phase(decide("j1", done, checked(flavor_id="f2")), done, checked(flavor_id="f2"))


def test_a_job_gone_meanwhile_is_not_refused():
    c = FakeClient()
    p = provider_for(c)
    st = {**checked(), "job_id": "gone", "job_name": "job-a", "phase": "Creating"}
    d = p.diff("gone", st, checked(flavor_id="f2"))
    assert d.replaces and c.calls == ["get"]

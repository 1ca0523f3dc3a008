"""Issue 19's provider rules with the fake client: where a job lives is checked before any call, deletes
respect the owner mark, terminate refusals fail loudly, and a Terminated run is re-run like a failed one."""

from __future__ import annotations

from typing import Any

import pytest

from modelarts_provider.client.errors import ModelArtsError
from modelarts_provider.core.location import WrongPlaceError
from modelarts_provider.training_job import lifecycle
from modelarts_provider.training_job.args import TrainingJobArgs
from modelarts_provider.training_job.diff import decide
from modelarts_provider.training_job.lifecycle import TrainingJobError
from modelarts_provider.training_job.provider import TrainingJobProvider
from modelarts_provider.core.ownership import OwnerMark
from modelarts_provider.wait_engine import FakeClock

from .common import checked, job_inputs, owner_of, provider_for
from .fakes import FakeClient

@pytest.fixture(autouse=True)
def quiet(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    said: list[str] = []
    monkeypatch.setattr("modelarts_provider.training_job.provider.say", said.append)
    return said


def provider(client: FakeClient, **settings: str) -> TrainingJobProvider:
    return provider_for(client, **settings)


# --- where a job lives -----------------------------------------------------------------------------


def test_the_state_records_where_the_job_lives():
    c = FakeClient()
    outs = provider(c).create(checked()).outs
    assert outs["location"] == {"cloud": "huaweicloud", "region": "cn-north-4", "project_id": "p",
                                "endpoint": "https://modelarts.cn-north-4.myhuaweicloud.com"}


@pytest.mark.parametrize("elsewhere, shown", [
    ({"region": "cn-east-3"}, "region cn-east-3"),
    ({"projectId": "q"}, "project q"),
    ({"endpoint": "http://127.0.0.1:9"}, "(http://127.0.0.1:9)"),
], ids=["region", "project", "endpoint"])
def test_another_place_is_refused_by_read_update_and_delete_before_any_call(elsewhere, shown):
    c = FakeClient()
    created = provider(c).create(checked())
    calls = list(c.calls)
    moved = provider(c, **elsewhere)
    for op in (lambda: moved.read(created.id, created.outs),
               lambda: moved.update(created.id, created.outs, checked(description="new")),
               lambda: moved.delete(created.id, created.outs)):
        with pytest.raises(WrongPlaceError) as e:
            op()
        msg = str(e.value)
        assert msg.startswith(f"training job job-a ({created.id}) lives in huaweicloud region cn-north-4, "
                              "project p (https://modelarts.cn-north-4.myhuaweicloud.com), but the provider is "
                              "configured for ")
        assert shown in msg and "nothing was read, changed or deleted" in msg and "\n" not in msg
    assert c.calls == calls and c.phase_of(created.id) == "Creating"  # not one call, nothing dropped


def test_a_state_from_before_locations_is_not_checked():
    c = FakeClient()
    created = provider(c).create(checked())
    legacy = {k: v for k, v in created.outs.items() if k != "location"}
    read = provider(c, region="cn-east-3").read(created.id, legacy)
    assert read.id == created.id  # read as before; the next create or refresh records the place


# --- deleting checks the owner mark ------------------------------------------------------------------


def test_delete_refuses_a_job_that_carries_another_token():
    c = FakeClient()
    job = c.add(TrainingJobArgs.model_validate(job_inputs(owner=owner_of("colleague", "o/p/other"))).to_wire())
    mine = OwnerMark.model_validate(owner_of("a"))
    with pytest.raises(TrainingJobError, match="is not this resource's .*it was not stopped or deleted"):
        lifecycle.stop_and_delete(c, job.id or "", 5, 0.01, lambda _m: None, mine)
    assert c.touched() == set() and job.id in c.jobs


def test_delete_of_an_unmarked_job_in_our_state_proceeds():
    # Adopted with adopt_job_id, or created before owners were recorded: its id in our state is the record.
    c = FakeClient(script=["Creating", "Running"])
    job = c.add(TrainingJobArgs.model_validate(job_inputs()).model_copy(update={"owner": None}).to_wire())
    lifecycle.stop_and_delete(c, job.id or "", 5, 0.01, lambda _m: None, OwnerMark.model_validate(owner_of("a")))
    assert job.id not in c.jobs


# --- stopping fails loudly -----------------------------------------------------------------------------


def test_a_refused_terminate_fails_at_once_with_the_service_code():
    c = FakeClient()
    job = c.add(TrainingJobArgs.model_validate(job_inputs()).to_wire(), "Running")

    def refuse(job_id: str) -> Any:
        c._record("terminate", job_id)
        raise ModelArtsError("no permission to stop training jobs", status=403, error_code="ModelArts.0203")

    c.terminate_job = refuse  # type: ignore[method-assign]
    clock = FakeClock()
    with pytest.raises(TrainingJobError) as e:
        lifecycle.stop(c, c._job(job.id), 900, 5, lambda _m: None, clock=clock)
    assert str(e.value) == (f"terminate of training job job-a ({job.id}) was refused: ModelArts.0203 no permission "
                            "to stop training jobs (HTTP 403); it was not stopped")
    assert clock.sleeps == [] and c.phase_of(job.id) == "Running"  # no 15 minutes of polling


# --- a run that did not complete is re-run -------------------------------------------------------------


@pytest.mark.parametrize("phase, replaced", [("Failed", True), ("Abnormal", True), ("Terminated", True),
                                             ("Completed", False), ("Running", False)])
def test_replace_failed_reruns_every_run_that_did_not_complete(phase, replaced):
    olds = {**checked(replace_failed=True), "phase": phase, "job_name": "job-a", "job_id": "j"}
    d = decide("j", olds, checked(replace_failed=True))
    assert ("phase" in d.replaces) is replaced
    assert d.delete_before_replace or not replaced


# --- keepFinishedRuns --------------------------------------------------------------------------------


@pytest.mark.parametrize("phase, kept", [("Completed", True), ("Failed", True), ("Terminated", True),
                                         ("Running", False)])
def test_keep_finished_runs_leaves_a_finished_run_in_the_service(phase, kept):
    c = FakeClient(script=["Creating", "Running", "Terminating", "Terminated"])
    job = c.add(TrainingJobArgs.model_validate(job_inputs()).to_wire(), phase)
    said: list[str] = []
    lifecycle.stop_and_delete(c, job.id or "", 5, 0.01, said.append, OwnerMark.model_validate(owner_of("a")),
                              keep_finished=True)
    assert (job.id in c.jobs) is kept
    if kept:
        assert said == [f"job-a: kept in the service ({phase}, keepFinishedRuns; keepRuns bounds how many): "
                        "it leaves the state only"]
        assert c.touched() == set()


@pytest.mark.parametrize("option, successor, kept", [
    (None, True, True),     # the default: a replaced finished run stays
    (None, False, False),   # the default: a removed key's finished run goes
    (True, False, True),    # keepFinishedRuns: true keeps it then too
    (False, True, False),   # the opt-out: the old behaviour
])
def test_delete_keeps_a_finished_run_by_default_when_a_newer_run_of_ours_replaced_it(option, successor, kept):
    c = FakeClient()
    over = {"derived_name": True, "owner": owner_of("a")} | ({} if option is None else {"keep_finished_runs": option})
    old = c.add(TrainingJobArgs.model_validate(job_inputs(name="a-1", **over)).to_wire(), "Completed")
    if successor:
        c.add(TrainingJobArgs.model_validate(job_inputs(name="a-2", **over)).to_wire(), "Running")
    props = {**checked(name="a-1", **over), "job_id": old.id}
    provider_for(c).delete(old.id or "", props)
    assert (old.id in c.jobs) is kept


@pytest.mark.parametrize("option, gone", [(None, True), (True, False)])
def test_a_removed_key_takes_its_kept_runs_with_it_by_default(option, gone):
    """The current run of a removed key (or destroy) has no successor: by default its kept runs (ours, finished)
    are deleted with it, never another key's; keepFinishedRuns: true keeps them all."""
    c = FakeClient()
    over = {"derived_name": True, "owner": owner_of("a")} | ({} if option is None else {"keep_finished_runs": option})
    kept = [c.add(TrainingJobArgs.model_validate(job_inputs(name=f"a-{i}", **over)).to_wire(), "Completed")
            for i in (1, 2)]
    other = c.add(TrainingJobArgs.model_validate(job_inputs(name="b-1", derived_name=True,
                                                            owner=owner_of("b"))).to_wire(), "Completed")
    current = c.add(TrainingJobArgs.model_validate(job_inputs(name="a-3", **over)).to_wire(), "Completed")
    provider_for(c).delete(current.id or "", {**checked(name="a-3", **over), "job_id": current.id})
    assert set(c.jobs) == ({other.id} if gone else {other.id, current.id, *(j.id for j in kept)})

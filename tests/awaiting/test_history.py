"""Run history (awaiting/history.py): every run of a key stays on record after it is replaced or removed,
read once when it left before its phase was final, secret parameter values never recorded in plain text."""

from __future__ import annotations

from typing import Any

import pytest

from modelarts_provider.core import masking
from modelarts_provider.awaiting.args import AwaitedStatus
from modelarts_provider.awaiting.history import dumped, merged
from modelarts_provider.client.models import TrainingJob


def view(job_id: str, phase: str, **params: str) -> TrainingJob:
    return TrainingJob.model_validate({
        "kind": "job", "metadata": {"id": job_id, "name": f"name-{job_id}", "create_time": 1_700_000_000_000},
        "algorithm": {"parameters": [{"name": k, "value": v} for k, v in params.items()],
                      "outputs": [{"name": "out", "remote": {"obs": {"obs_url": f"/bkt/out/{job_id}/"}}}]},
        "status": {"phase": phase, "start_time": 1_700_000_001_000, "duration": 61_000}})


def status(job_id: str, phase: str, **over: Any) -> AwaitedStatus:
    return AwaitedStatus(job_id=job_id, job_name=f"name-{job_id}", wait_for="completed", phase=phase,
                         reached=phase == "Completed", **over)


def no_read(job_id: str, _ws: str | None) -> None:
    raise AssertionError(f"read {job_id}")


def test_a_completed_run_is_recorded_and_carried_after_its_replacement():
    first = dumped(merged(None, {"m": status("j1", "Completed", objective=0.9)}, {"j1": view("j1", "Completed", lr="0.1")},
                          no_read))
    (rec,) = first["m"]
    assert rec == {"job_id": "j1", "job_name": "name-j1", "parameters": {"lr": "0.1"}, "phase": "Completed",
                   "objective": 0.9, "output_path": "obs://bkt/out/j1/", "create_time": "2023-11-14T22:13:20Z",
                   "start_time": "2023-11-14T22:13:21Z", "duration_s": 61.0}
    second = dumped(merged(first, {"m": status("j2", "Completed")}, {"j2": view("j2", "Completed", lr="0.2")},
                           no_read))
    assert [(r["job_id"], r["parameters"]["lr"]) for r in second["m"]] == [("j1", "0.1"), ("j2", "0.2")]
    # an update that does not touch the key keeps it as it was; a removed key keeps its history
    assert dumped(merged(second, {}, {}, no_read)) == second


def test_a_run_that_left_before_its_phase_was_final_is_read_once():
    reads: list[str] = []

    def read(job_id: str, _ws: str | None) -> TrainingJob | None:
        reads.append(job_id)
        return view(job_id, "Completed", lr="0.1") if job_id == "j1" else None

    first = dumped(merged(None, {"m": status("j1", "Pending"), "n": status("k1", "Running")}, {}, no_read))
    second = merged(first, {"m": status("j2", "Creating"), "n": status("k2", "Creating")}, {}, read)
    assert sorted(reads) == ["j1", "k1"]
    assert second["m"][0].phase == "Completed" and second["m"][0].parameters == {"lr": "0.1"}
    assert second["n"][0].phase == "Running" and second["n"][0].note == "gone before it was seen to finish"
    merged(dumped(second), {"m": status("j2", "Creating"), "n": status("k2", "Creating")}, {}, no_read)  # not again


def test_runs_of_a_state_written_before_the_history_are_taken_from_its_statuses():
    previous = {"m": status("j1", "Completed", objective=0.5).model_dump()}
    runs = merged(None, {"m": status("j2", "Creating")}, {}, no_read, previous)
    assert [(r.job_id, r.objective) for r in runs["m"]] == [("j1", 0.5), ("j2", None)]


def test_secret_parameter_values_are_never_recorded():
    secrets = {"m": masking.Secrets.of(["s3cr3t-value-42"])}  # the job's own (the JobsAwait's `secrets` of m)
    seen = {"j1": view("j1", "Completed", lr="0.1", seed="s3cr3t-value-42", api_token="abc"),
            "k1": view("k1", "Completed", lr="0.1", seed="s3cr3t-value-42")}
    runs = dumped(merged(None, {"m": status("j1", "Completed"), "n": status("k1", "Completed")}, seen, no_read,
                         None, secrets))
    assert runs["m"][0]["parameters"] == {"lr": "0.1", "seed": masking.MASK, "api_token": masking.MASK}
    assert "s3cr3t-value-42" not in repr(runs["m"])
    assert runs["n"][0]["parameters"] == {"lr": "0.1", "seed": "s3cr3t-value-42"}  # another job's plain value


def test_a_run_whose_up_was_killed_during_its_wait_is_recorded_when_its_successor_replaces_it():
    """Issue 43: the killed `up`'s JobsAwait never finished, so no record has its run; the next `up` replaces it
    (an edit) and the engine deletes it after the wait. The successor's create noted what it replaces
    (core/replaced_runs.py): the history records the run, read once (what it became), older than its successor."""
    reads: list[str] = []

    def read(job_id: str, _ws: str | None) -> TrainingJob | None:
        reads.append(job_id)
        return view(job_id, "Terminated", lr="0.1")  # stopped by its replacement before the engine deletes it

    runs = dumped(merged(None, {"m": status("j2", "Completed")}, {"j2": view("j2", "Completed", lr="0.2")}, read,
                         replaced=lambda job_id: ("j1",) if job_id == "j2" else ()))
    assert [(r["job_id"], r["phase"], r["parameters"]["lr"]) for r in runs["m"]] == [("j1", "Terminated", "0.1"),
                                                                                    ("j2", "Completed", "0.2")]
    assert reads == ["j1"]
    # gone already: recorded all the same, with a note
    gone = dumped(merged(None, {"m": status("j2", "Completed")}, {"j2": view("j2", "Completed")},
                         lambda _id, _ws: None, replaced=lambda job_id: ("j1",)))
    assert gone["m"][0] == {"job_id": "j1", "parameters": {}, "note": "gone before it was seen to finish"}
    # a run the history has already is not recorded twice, nor read again
    again = dumped(merged(runs, {"m": status("j2", "Completed")}, {"j2": view("j2", "Completed", lr="0.2")}, no_read,
                          replaced=lambda job_id: ("j1",)))
    assert again == runs


def test_the_create_writes_the_runs_of_its_key_the_state_holds_into_the_new_job():
    from modelarts_provider.core import replaced_runs
    from modelarts_provider.training_job import lifecycle
    from modelarts_provider.training_job.args import TrainingJobArgs
    from modelarts_provider.training_job.name_index import NameIndex
    from tests.provider.common import job_inputs
    from tests.provider.fakes import FakeClient

    c = FakeClient()
    args = TrainingJobArgs.model_validate(job_inputs())
    old = c.add(args.to_wire(), "Running", name="job-old")  # the killed up's run, in the state
    new = lifecycle.submit(c, args, NameIndex(c), lambda _: None, tracked=frozenset({old.id or ""}))
    # in what the service holds (the POST's annotations), which the JobsAwait reads from the job it waits for
    posted = c.get_job(new.id or "").metadata.annotations
    assert posted[replaced_runs.REPLACES_ANNOTATION] == old.id
    assert replaced_runs.replaced_by(new.id or "", posted) == (old.id,)
    # a first run replaces nothing: no annotation
    first = lifecycle.submit(c, args.model_copy(update={"name": "job-first"}), NameIndex(c), lambda _: None)
    assert replaced_runs.REPLACES_ANNOTATION not in (c.get_job(first.id or "").metadata.annotations or {})


def test_the_replaced_runs_read_from_a_job_are_well_formed_ids_only():
    from modelarts_provider.core.replaced_runs import REPLACES_ANNOTATION, annotation, replaced_by

    ids = ["b3f1c2d4-0000-4000-8000-000000000002", "a3f1c2d4-0000-4000-8000-000000000001"]
    assert annotation("new", ids + ["", "new"]) == {REPLACES_ANNOTATION: ",".join(sorted(ids))}
    assert replaced_by("new", {REPLACES_ANNOTATION: ",".join(ids)}) == tuple(sorted(ids))
    # its own id, junk, an absent or foreign annotation: nothing taken from them
    assert replaced_by("j", {REPLACES_ANNOTATION: "j,,../x, a b"}) == ()
    assert replaced_by("j", None) == () and replaced_by("j", {"other": "x"}) == ()
    assert len(annotation(None, [f"id-{i:03d}" for i in range(50)])[REPLACES_ANNOTATION].split(",")) == 20

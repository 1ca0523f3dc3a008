"""Await conditions, each alone, and first_decisive's order (failed before reached, reached before deadline)."""

from __future__ import annotations

import pytest

from modelarts_provider.awaiting.conditions import (Outcome, Verdict, before, exists, first_decisive, not_failed,
                                                    reached, reaches, still_running)
from modelarts_provider.client.models import TrainingJob

PHASES = ["Creating", "Pending", "Running", "Completed", "Failed", "Abnormal", "Terminating", "Terminated"]


def job(phase: str | None, **status) -> TrainingJob:
    return TrainingJob.model_validate({"metadata": {"id": "job-1", "name": "train"},
                                       "status": {"phase": phase, "secondary_phase": phase, **status}})


REACHED = {
    "none": set(PHASES) | {None},
    "created": {"Pending", "Running", "Completed"},
    "running": {"Running", "Completed"},
    "completed": {"Completed"},
}


@pytest.mark.parametrize("target", sorted(REACHED))
@pytest.mark.parametrize("phase", PHASES + [None])
def test_reached_table(target, phase):
    assert reached(target, phase) is (phase in REACHED[target])


def test_exists():
    judge = exists("train", "job-1")
    assert judge(job("Running"), 0) is None
    assert judge(None, 0) == Outcome(Verdict.GONE, "training job train (job-1) disappeared while being waited for")


@pytest.mark.parametrize("phase", PHASES)
def test_not_failed(phase):
    outcome = not_failed()(job(phase), 0)
    if phase in ("Failed", "Abnormal", "Terminating", "Terminated"):
        assert outcome == Outcome(Verdict.FAILED, f"training job train (job-1) is {phase}")
    else:
        assert outcome is None
    assert not_failed()(None, 0) is None  # gone is exists()'s call


def test_not_failed_tells_the_tasks_exit_codes():
    failed = job("Failed", task_statuses=[{"task": "worker-0", "exit_code": 3, "message": "boom"},
                                          {"task": "worker-1", "exit_code": 137}])
    assert not_failed()(failed, 0) == Outcome(
        Verdict.FAILED, "training job train (job-1) is Failed; task worker-0: exit code 3: boom; "
                        "task worker-1: exit code 137")


@pytest.mark.parametrize("target", sorted(REACHED))
def test_reaches(target):
    for phase in PHASES:
        outcome = reaches(target)(job(phase), 0)
        assert outcome == (Outcome(Verdict.REACHED) if phase in REACHED[target] else None), phase
    assert reaches(target)(None, 0) is None


def test_before():
    judge = before(100.0, 60, "completed", "train", "job-1")
    assert judge(job("Running"), 99.99) is None
    assert judge(job("Running"), 100.0) == Outcome(
        Verdict.TIMED_OUT, "training job train (job-1) timed out after 60s waiting for completed: it is Running")
    assert judge(None, 150.0).reason.endswith("it is unknown")


def test_still_running():
    assert [p for p in PHASES if still_running(job(p))] == ["Creating", "Pending", "Running"]
    assert not still_running(None)


def test_first_decisive_failed_before_reached():
    # wait_for none counts any phase as reached: only the order tells a Failed job apart
    failed = job("Failed")
    assert first_decisive(not_failed(), reaches("none"))(failed, 0).verdict is Verdict.FAILED
    assert first_decisive(reaches("none"), not_failed())(failed, 0).verdict is Verdict.REACHED


def test_first_decisive_reached_before_deadline():
    late = 200.0
    chain = first_decisive(reaches("completed"), before(100.0, 60, "completed", "train", "job-1"))
    assert chain(job("Completed"), late) == Outcome(Verdict.REACHED)
    assert chain(job("Running"), late).verdict is Verdict.TIMED_OUT
    reversed_chain = first_decisive(before(100.0, 60, "completed", "train", "job-1"), reaches("completed"))
    assert reversed_chain(job("Completed"), late).verdict is Verdict.TIMED_OUT


def test_first_decisive_gone_first_and_no_opinion_is_none():
    chain = first_decisive(exists("train", "job-1"), not_failed(), reaches("running"),
                           before(100.0, 60, "running", "train", "job-1"))
    assert chain(None, 500.0).verdict is Verdict.GONE
    assert chain(job("Pending"), 10.0) is None
    assert first_decisive()(job("Running"), 0) is None

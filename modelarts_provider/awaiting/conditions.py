"""Await conditions: small composable judgements of one job at one moment.

Each condition looks at the latest view of a job (None when the service says it is gone) and the
current time, and either decides (an `Outcome`) or has no opinion (None). `first_decisive` chains
them in order, so "failed" is judged before "reached" and "reached" before "too late": a job that
got there at the last moment counts as arrived.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

from ..client.models import ACTIVE_PHASES, FAILED_PHASES, TrainingJob
from ..core.rules import WaitFor
from ..core.job_text import describe_failure


class Verdict(str, Enum):
    REACHED = "reached"
    FAILED = "failed"
    TIMED_OUT = "timed_out"
    GONE = "gone"


@dataclass(frozen=True)
class Outcome:
    verdict: Verdict
    reason: str = ""


Condition = Callable[[TrainingJob | None, float], Outcome | None]

# Phases from which a job will never reach a target it has not reached yet.
_DEAD = FAILED_PHASES | {"Terminating", "Terminated"}


def reached(target: WaitFor, phase: str | None) -> bool:
    if target == "none":
        return True
    if target == "created":
        return phase is not None and phase not in ("Creating", *_DEAD)
    if target == "running":
        return phase in ("Running", "Completed")
    return phase == "Completed"


def exists(name: str, job_id: str) -> Condition:
    def judge(job: TrainingJob | None, _now: float) -> Outcome | None:
        if job is None:
            return Outcome(Verdict.GONE, f"training job {name} ({job_id}) disappeared while being waited for")
        return None
    return judge


def not_failed() -> Condition:
    def judge(job: TrainingJob | None, _now: float) -> Outcome | None:
        if job is not None and job.phase in _DEAD:
            return Outcome(Verdict.FAILED, describe_failure(job))
        return None
    return judge


def reaches(target: WaitFor) -> Condition:
    def judge(job: TrainingJob | None, _now: float) -> Outcome | None:
        if job is not None and reached(target, job.phase):
            return Outcome(Verdict.REACHED)
        return None
    return judge


def before(deadline: float, timeout_s: float, target: WaitFor, name: str, job_id: str) -> Condition:
    def judge(job: TrainingJob | None, now: float) -> Outcome | None:
        if now >= deadline:
            phase = job.phase if job is not None else "unknown"
            return Outcome(Verdict.TIMED_OUT, f"training job {name} ({job_id}) timed out after {timeout_s:g}s "
                                              f"waiting for {target}: it is {phase}")
        return None
    return judge


def first_decisive(*conditions: Condition) -> Condition:
    def judge(job: TrainingJob | None, now: float) -> Outcome | None:
        for condition in conditions:
            outcome = condition(job, now)
            if outcome is not None:
                return outcome
        return None
    return judge


def still_running(job: TrainingJob | None) -> bool:
    """A job that may still be billed (terminate it when its wait is abandoned)."""
    return job is not None and job.phase in ACTIVE_PHASES

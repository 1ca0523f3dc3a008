"""A live job's state in words, for error messages of every resource that watches jobs."""

from __future__ import annotations

from ..client.models import TrainingJob


def describe_failure(job: TrainingJob) -> str:
    """'training job NAME (ID) is PHASE; task worker-0: exit code 1: message' for error messages."""
    parts = [f"training job {job.name} ({job.id}) is {job.phase}"
             + (f" ({job.secondary_phase})" if job.secondary_phase and job.secondary_phase != job.phase else "")]
    for t in job.task_statuses:
        parts.append(f"task {t.task}: exit code {t.exit_code}" + (f": {t.message}" if t.message else ""))
    return "; ".join(parts)


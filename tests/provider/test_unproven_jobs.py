"""NameIndex.unproven_like: the active jobs of a name shape that carry no owner token anywhere the service answers
(annotations dropped, no tags: an `up` killed before its tag call). What a create names in one line and never
stops (training_job/lifecycle._say_unproven); a job with a token, a finished one or another shape is not listed."""

from __future__ import annotations

import re
from typing import Any

from modelarts_provider.client.models import TrainingJob
from modelarts_provider.training_job.name_index import NameIndex


def _job(job_id: str, name: str, phase: str, annotations: dict[str, str] | None = None) -> TrainingJob:
    return TrainingJob.model_validate({"metadata": {"id": job_id, "name": name, "annotations": annotations or {},
                                                    "create_time": 1},
                                       "status": {"phase": phase}})


class Listing:
    def __init__(self, jobs: list[TrainingJob]) -> None:
        self.jobs = jobs

    def list_jobs(self, name_like: Any = None, phases: Any = None, limit: int = 50, *,
                  workspace_id: Any = None) -> list[TrainingJob]:
        return self.jobs


def test_only_active_tokenless_jobs_of_the_shape_are_listed() -> None:
    index = NameIndex(Listing([
        _job("1", "a-killed", "Running"),  # the killed up's: no mark answered
        _job("2", "a-xyz123", "Running", {"modelarts-pulumi/token": "0123456789abcdef"}),  # carries a token
        _job("3", "a-done12", "Completed"),  # finished: bills nothing
        _job("4", "b-killed", "Running"),  # another resource's shape
        _job("5", "a-toolongname", "Running"),
    ]))
    found = index.unproven_like(re.compile("a-[a-z0-9]{6}"))
    assert [j.id for j in found] == ["1"]

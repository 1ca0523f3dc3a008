"""`status` shows every job's tags as the service holds them (issue 54, case 5): a job the owner tag's filter does not
find (tagged after it was created, by a version that wrote no owner tag on it) has its tags read on its own."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from modelarts_provider.cli.status import live_tags
from modelarts_provider.client.errors import ModelArtsError


class _Client:
    def __init__(self) -> None:
        self.read: list[str] = []

    def iter_jobs_tagged(self, key: str, workspace_id: Any = None) -> Any:
        tags = [SimpleNamespace(key="team", value="a"), SimpleNamespace(key="modelarts-pulumi.token", value="t")]
        yield SimpleNamespace(resource_id="found", tags=tags)
        yield SimpleNamespace(resource_id="not-in-this-stack", tags=tags)

    def get_job_tags(self, job_id: str) -> dict[str, str]:
        self.read.append(job_id)
        if job_id == "gone":
            raise ModelArtsError(error_msg="no such job", status=404, error_code="ModelArts.2775")
        return {"stage": "dev", "modelarts-pulumi.mark": "x"}


def test_a_job_the_filter_misses_has_its_tags_read_and_the_marks_are_not_shown() -> None:
    client = _Client()
    jobs = [("a", "found", None, None), ("b", "tagged-later", None, None), ("c", "gone", None, None)]
    assert live_tags(client, jobs) == {"found": {"team": "a"}, "tagged-later": {"stage": "dev"}}
    assert client.read == ["gone", "tagged-later"]  # only those the filter missed, and a job of another stack never

"""Training-job tag operations of ``ModelArtsClient`` (a mixin: api.py's plumbing), in the official SDK's
paths and shapes (huaweicloudsdkmodelarts ``show_train_job_tags``, ``create_train_job_tags``,
``delete_train_job_tags``, ``list_training_jobs_by_tags``):

    GET    /v2/{project}/modelarts-training-job/{id}/tags                -> {"tags": [{key, value}]}
    POST   /v2/{project}/modelarts-training-job/{id}/tags/create         {"tags": [{key, value}]}
    DELETE /v2/{project}/modelarts-training-job/{id}/tags/delete         {"tags": [{key, value?}]}
    POST   /v2/{project}/modelarts-training-job/resource-instances/filter?limit&offset
                                                                       {workspace_id, tags: [{key, values}]}

Creating a job takes no tags (the SDK's JobMetadata has none): they are set right after it exists.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Optional

import requests
from pydantic import BaseModel, ConfigDict, Field, ValidationError

FILTER_PAGE = 1000  # the filter's documented maximum limit


class _Wire(BaseModel):
    model_config = ConfigDict(extra="allow")


class TmsTag(_Wire):
    key: str
    value: str = ""


class TagList(_Wire):
    tags: list[TmsTag] = Field(default_factory=list)

    def as_dict(self) -> dict[str, str]:
        return {t.key: t.value for t in self.tags}


class TaggedJob(_Wire):
    """ResourceInstance: a job the tag filter found, with its tags."""

    resource_id: str
    resource_name: Optional[str] = None
    workspace_id: Optional[str] = None
    tags: list[TmsTag] = Field(default_factory=list)


class TaggedJobPage(_Wire):
    resources: list[TaggedJob] = Field(default_factory=list)
    total_count: Optional[int] = None


class TagOperations:
    """Mixed into ModelArtsClient: uses its _call, _error, _bad_response and _check_id."""

    def _tag_read(self, response: requests.Response, model: type[BaseModel], what: str) -> Any:
        if response.status_code != 200:
            raise self._error(response)  # type: ignore[attr-defined]
        try:
            return model.model_validate(response.json())
        except (ValueError, ValidationError):
            raise self._bad_response(response, f"the {what} is not in the documented format") from None  # type: ignore[attr-defined]

    def get_job_tags(self, job_id: str) -> dict[str, str]:
        """A job's tags (an unknown job: ModelArts.2775, raised)."""
        path = f"/modelarts-training-job/{self._check_id(job_id)}/tags"  # type: ignore[attr-defined]
        return self._tag_read(self._call("GET", path), TagList, "tag list").as_dict()  # type: ignore[attr-defined]

    def create_job_tags(self, job_id: str, tags: Mapping[str, str]) -> None:
        """Sets these tags on the job (a key it has already takes the new value). Idempotent: retried."""
        if not tags:
            return
        body = {"tags": [{"key": k, "value": v} for k, v in tags.items()]}
        path = f"/modelarts-training-job/{self._check_id(job_id)}/tags/create"  # type: ignore[attr-defined]
        response = self._call("POST", path, body=body, idempotent=True)  # type: ignore[attr-defined]
        if response.status_code not in (200, 201, 204):
            raise self._error(response)  # type: ignore[attr-defined]

    def delete_job_tags(self, job_id: str, keys: list[str]) -> None:
        """Removes these tag keys from the job. Idempotent: retried."""
        if not keys:
            return
        body = {"tags": [{"key": k} for k in keys]}
        path = f"/modelarts-training-job/{self._check_id(job_id)}/tags/delete"  # type: ignore[attr-defined]
        response = self._call("DELETE", path, body=body, idempotent=True)  # type: ignore[attr-defined]
        if response.status_code not in (200, 202, 204):
            raise self._error(response)  # type: ignore[attr-defined]

    def iter_jobs_tagged(self, key: str, values: list[str] | None = None, *,
                         workspace_id: Optional[str] = None) -> Iterator[TaggedJob]:
        """Every job carrying tag `key` (with one of `values`, if given) in the workspace, with its tags."""
        body: dict[str, Any] = {"tags": [{"key": key, "values": list(values or [])}]}
        if workspace_id:
            body["workspace_id"] = workspace_id
        offset = 0
        while True:
            response = self._call("POST", "/modelarts-training-job/resource-instances/filter",  # type: ignore[attr-defined]
                                  body=body, idempotent=True, params={"limit": FILTER_PAGE, "offset": offset})
            page: TaggedJobPage = self._tag_read(response, TaggedJobPage, "tag filter page")
            yield from page.resources
            offset += len(page.resources)
            if len(page.resources) < FILTER_PAGE or (page.total_count is not None and offset >= page.total_count):
                return

"""Batch delete (SDK ``batch_delete_training_job``, API page BatchDeleteTrainingJob):
``POST /v2/{project}/training-jobs/batch-delete`` ``{"jobs": [{"kind", "metadata": {"id"}}]}`` -> 202, no body.

The page: at most 100 jobs, all of one workspace; a job that does not exist is an error. The local ModelArts
checks every job before it deletes any (all or nothing: the page does not say whether the service deletes the
others, the safe reading for a caller), then deletes each as ``DELETE .../training-jobs/{id}`` does
(asynchronously). A job listed twice is deleted once.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .. import errors

MAX_JOBS = 100
KINDS = Literal["job", "edge_job", "mrs_job", "hetero_job", "autosearch_job", "diag_job", "visualization_job",
                "federated_pool_job"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="ignore")


class BatchDeleteJobMetadata(_Model):
    id: str = Field(min_length=1)


class BatchDeleteJobItem(_Model):
    kind: KINDS = "job"
    metadata: BatchDeleteJobMetadata


class BatchDeleteJobsReq(_Model):
    jobs: list[BatchDeleteJobItem] = Field(min_length=1, max_length=MAX_JOBS)


def job_ids(body: Any) -> list[str]:
    """The ids to delete, in order, each once; a body breaking the page's rules is a ModelArts.2788."""
    try:
        req = BatchDeleteJobsReq.model_validate(body)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "body"
        raise errors.invalid_param(where, first["msg"]) from None
    return list(dict.fromkeys(item.metadata.id for item in req.jobs))


def check_one_workspace(workspaces: dict[str, str]) -> None:
    """`workspaces`: job id -> its workspace. The page: "all jobs must belong to the same workspace"."""
    if len(set(workspaces.values())) > 1:
        raise errors.invalid_param("jobs", "all jobs must belong to the same workspace")

"""Training quotas (SDK ``show_training_quotas``, API page ShowTrainingQuotas):
``GET /v2/{project}/training-quotas?user_id&resource`` -> 200 ``{"quotas": [{"resource", "quota", "used"}]}``.

The only documented resource is ``job-num`` (the number of training jobs); any other value of ``resource`` is
refused as an invalid parameter (ModelArts.2788, our reading of "currently supported: job-num"). The page
documents no default quota: its example answers ``"quota": 10000``, which the local ModelArts takes as the
quota (an assumption, docs/assumptions.md). ``used`` counts the project's jobs as stored now (a deleted job
stops counting once it is gone). The quota is reported, not enforced at create.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from .. import errors
from .query import query_params

JOB_NUM = "job-num"
JOB_NUM_QUOTA = 10000  # the page's example value (no documented default)


class TrainingQuota(BaseModel):
    resource: str
    quota: int
    used: int


def quotas(jobs_stored: int, raw_query: str) -> dict[str, Any]:
    wanted = query_params(raw_query).get("resource") or JOB_NUM
    if wanted != JOB_NUM:
        raise errors.invalid_param("resource", f"only {JOB_NUM} is supported, not {wanted!r}")
    return {"quotas": [TrainingQuota(resource=JOB_NUM, quota=JOB_NUM_QUOTA, used=jobs_stored).model_dump()]}

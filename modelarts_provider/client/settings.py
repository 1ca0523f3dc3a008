"""``ClientSettings``: everything a ModelArtsClient needs (no I/O here)."""

from __future__ import annotations

from typing import Optional, Union

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from .auth import AkSkCredentials, IamPasswordCredentials
from .clouds import CloudName
from .endpoints import Endpoints, resolve_endpoints

__all__ = ["ClientSettings"]


class ClientSettings(BaseModel):
    """Settings of a :class:`~.api.ModelArtsClient` (contract: docs/ARCHITECTURE.md).

    Beyond the contract: retry tuning (``max_retries``, ``backoff_factor``, ``backoff_max``,
    ``retry_total_s``, ``retry_after_max``), ``pool_maxsize`` and ``user_agent``.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    region: str
    project_id: str
    cloud: CloudName = "huaweicloud"
    endpoint: Optional[str] = None
    iam_endpoint: Optional[str] = None
    credentials: Union[AkSkCredentials, IamPasswordCredentials]
    verify_tls: bool = True
    ca_bundle: Optional[str] = None
    connect_timeout: float = Field(default=5.0, gt=0)
    read_timeout: float = Field(default=30.0, gt=0)
    # retry tuning (additions to the contract)
    max_retries: int = Field(default=4, ge=0, le=20)
    backoff_factor: float = Field(default=0.5, ge=0)
    backoff_max: float = Field(default=8.0, ge=0)
    retry_total_s: float = Field(default=60.0, gt=0)
    retry_after_max: float = Field(default=60.0, ge=0)
    pool_maxsize: int = Field(default=16, ge=1)
    user_agent: str = "modelarts-pulumi-client/0.1"

    @field_validator("project_id")
    @classmethod
    def _project_id(cls, v: str) -> str:
        v = v.strip()
        if not v or "/" in v:
            raise ValueError("project_id must be a non-empty id without '/'")
        return v

    @model_validator(mode="after")
    def _check(self) -> "ClientSettings":
        self.endpoints()  # validates cloud/region/override URLs
        if self.ca_bundle and not self.verify_tls:
            raise ValueError("ca_bundle is set but verify_tls is False")
        return self

    def endpoints(self) -> Endpoints:
        return resolve_endpoints(self.cloud, self.region, self.endpoint, self.iam_endpoint)

    @property
    def requests_verify(self) -> Union[bool, str]:
        """The value for requests' ``verify``: False, True or the CA bundle path."""
        if not self.verify_tls:
            return False
        return self.ca_bundle or True

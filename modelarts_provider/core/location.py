"""Where a resource lives (cloud, region, project, endpoint), recorded in its state when it is created.

A job id means something only in the project and region that made it: asked in another place, the
service answers "not found", which must never be read as "gone". So read, update and delete compare
the recorded place with the provider's configured one first, and refuse naming both when they differ
(two shells with different HW_REGION_NAME, a changed modelarts:endpoint). A state written before the
place was recorded is not checked; its next create or refresh records it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict

from ..client.endpoints import resolve_endpoints
from .provider_config import ProviderSettings


class Location(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")

    cloud: str
    region: str
    project_id: str
    endpoint: str

    def describe(self) -> str:
        return f"{self.cloud} region {self.region}, project {self.project_id} ({self.endpoint})"


class WrongPlaceError(Exception):
    """The provider points at another place than the one the state records; the message is one line."""


def location_of(settings: ProviderSettings) -> Location:
    endpoint = resolve_endpoints(settings.cloud, settings.region, settings.endpoint).modelarts
    return Location(cloud=settings.cloud, region=settings.region, project_id=settings.project_id,
                    endpoint=endpoint.lower())


def check_same_place(recorded: Mapping[str, Any] | None, current: Location, what: str) -> None:
    """Raise WrongPlaceError when `recorded` (a state's location) is not `current`."""
    if not recorded:
        return
    was = Location.model_validate(recorded)
    if was == current:
        return
    raise WrongPlaceError(
        f"{what} lives in {was.describe()}, but the provider is configured for {current.describe()}; nothing "
        "was read, changed or deleted (a job is not gone because another place does not have it): point the "
        "provider back (modelarts:cloud, modelarts:region, modelarts:projectId, modelarts:endpoint, or "
        "HW_REGION_NAME / HW_PROJECT_ID), or `pulumi state delete` the resource to stop managing it")

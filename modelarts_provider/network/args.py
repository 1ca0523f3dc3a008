"""NetworkArgs: the inputs of a Network (the CreateNetwork fields we manage, and provider options)."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from ..core.ownership import OwnerMark

from ..core.messages import CIDR_RE, NETWORK_NAME_RE  # documented name rule, IPv4 CIDR

OUTPUT_KEYS = ("network_name", "phase", "location")


class NetworkArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: Annotated[str, Field(pattern=NETWORK_NAME_RE, description="the user's name (os.modelarts/name)")]
    cidr: Annotated[str, Field(pattern=CIDR_RE, description="e.g. 192.168.128.0/17")]
    workspace_id: str | None = Field(None, description="the workspace of the network (default: the service's)")
    timeout_seconds: Annotated[float, Field(gt=0, le=7200, description=(
        "how long create waits until the network is Active (customTimeouts take precedence)"))] = 600
    poll_interval_seconds: Annotated[float, Field(gt=0, le=300, description="seconds between polls")] = 2.0
    force_delete: bool = Field(False, description=(
        "delete the pools this stack made on the network that no state holds any more even while jobs of another "
        "owner run on them (they fail); without it such a delete stops naming them"))
    owner: OwnerMark | None = Field(None, description="this resource's owner mark (set by the resource)")


class NetworkOutputs(BaseModel):
    """What the provider returns beside the inputs (the plugin's schema)."""

    network_name: str = Field(description="the service's name of the network (metadata.name), also its id")
    phase: str | None = Field(None, description="Creating, Active, Abnormal, Deleting")
    location: dict[str, str] | None = Field(None, description="where the network lives (cloud, region, project, endpoint)")


REPLACING = ("name", "cidr", "workspace_id")  # CreateNetwork fields: none changes in place

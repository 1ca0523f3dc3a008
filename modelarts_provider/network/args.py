"""NetworkArgs: the inputs of a Network (the CreateNetwork fields we manage, and provider options)."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from ..ownership import OwnerMark

from ..messages import CIDR_RE, NETWORK_NAME_RE  # documented name rule, IPv4 CIDR

OUTPUT_KEYS = ("network_name", "phase", "location")


class NetworkArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: Annotated[str, Field(pattern=NETWORK_NAME_RE, description="the user's name (os.modelarts/name)")]
    cidr: Annotated[str, Field(pattern=CIDR_RE, description="e.g. 192.168.128.0/17")]
    workspace_id: str | None = None
    timeout_seconds: Annotated[float, Field(gt=0, le=7200)] = 600
    poll_interval_seconds: Annotated[float, Field(gt=0, le=300)] = 2.0
    owner: OwnerMark | None = None


REPLACING = ("name", "cidr", "workspace_id")  # CreateNetwork fields: none changes in place

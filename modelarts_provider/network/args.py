"""NetworkArgs: the inputs of a Network (the CreateNetwork fields we manage, and provider options)."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from ..ownership import OwnerMark

# Documented for os.modelarts/name of a network: 4-64 characters, lower-case letters, digits and hyphens,
# starting with a letter and ending with a letter or digit.
NETWORK_NAME_RE = r"^[a-z][a-z0-9-]{2,62}[a-z0-9]$"
CIDR_RE = r"^(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}/([0-9]|[12]\d|3[0-2])$"
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

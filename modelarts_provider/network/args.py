"""NetworkArgs: the inputs of a Network (the CreateNetwork fields we manage, and provider options)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from ..client.pool_models import NAME_LABEL, WORKSPACE_LABEL, label_marks
from ..core.fields import Change, Declared, names_changing, to_wire as declared_wire
from ..core.ownership import OwnerMark

from ..core.messages import CIDR_RE, NETWORK_NAME_RE  # documented name rule, IPv4 CIDR

OUTPUT_KEYS = ("network_name", "phase", "location")


class NetworkArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    # Each field declared once (core/fields.py): the CreateNetwork fields replace (none changes in place), the
    # options are recorded without a call, the owner mark never diffs (the resource sets it); `config`: the key of a
    # stack config's `networks.<key>` that sets it as it is (stack/declared_keys.py).
    name: Annotated[str, Field(pattern=NETWORK_NAME_RE, description="the user's name (os.modelarts/name)"),
                    Declared(api=f"metadata.labels[{NAME_LABEL}]")]
    cidr: Annotated[str, Field(pattern=CIDR_RE, description="e.g. 192.168.128.0/17"), Declared(api="spec.cidr")]
    workspace_id: Annotated[str | None, Declared(api=f"metadata.labels[{WORKSPACE_LABEL}]")] = Field(
        None, description="the workspace of the network (default: the service's)")
    timeout_seconds: Annotated[float, Field(gt=0, le=7200, description=(
        "how long create waits until the network is Active (customTimeouts take precedence)")),
        Declared(change=Change.PROVIDER)] = 600
    poll_interval_seconds: Annotated[float, Field(gt=0, le=300, description="seconds between polls"),
                                     Declared(change=Change.PROVIDER)] = 2.0
    owner: Annotated[OwnerMark | None, Declared(change=Change.IGNORED)] = Field(
        None, description="this resource's owner mark (set by the resource)")
    force_delete: Annotated[bool, Declared(change=Change.PROVIDER, config="forceDelete")] = Field(False, description=(
        "delete the pools this stack made on the network that no state holds any more even while jobs of another "
        "owner run on them (they fail); without it such a delete stops naming them"))

    def to_wire(self, marks: dict[str, str]) -> dict[str, Any]:
        """The NetworkCreationRequest: every declared field along its API path (core/fields.py), the owner mark
        `marks` in the annotations (the SDK's NetworkMetadataCreation has labels only; assumed kept, as on pools and
        jobs) and its tokens also as labels. Without a mark, the body is exactly the SDK's."""
        metadata: dict[str, Any] = {"labels": label_marks(marks), **({"annotations": dict(marks)} if marks else {})}
        return declared_wire(self, {"apiVersion": "v1", "kind": "Network", "metadata": metadata})


class NetworkOutputs(BaseModel):
    """What the provider returns beside the inputs (the plugin's schema; a field whose type admits no None is always
    set: provider._outputs)."""

    network_name: str = Field(description="the service's name of the network (metadata.name), also its id")
    phase: str | None = Field(None, description="Creating, Active, Abnormal, Deleting")
    location: dict[str, str] = Field(description="where the network lives (cloud, region, project, endpoint)")


REPLACING = names_changing(NetworkArgs, Change.REPLACE)  # CreateNetwork fields: none changes in place
OPTIONS = names_changing(NetworkArgs, Change.PROVIDER)

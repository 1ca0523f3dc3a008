"""Request bodies of the pool and network APIs (SDK models ``CreatePoolRequestBody``, ``PoolUpdateRequest``,
``NetworkCreationRequest``) and the pool flavors the emulator sells (``GET /v1/{project}/resourceflavors``).

A body that breaks a rule is refused naming the field (api.py: 400 ``ModelArts.0104``, the service's
"Parameter error"), before any state changes.
"""

from __future__ import annotations

from typing import Generic, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

# User names of pools and networks (os.modelarts/name): 4-32 characters, lower-case letters, digits and
# hyphens, starting with a letter, not ending with a hyphen. Networks too: the CreateNetwork reference
# (NetworkMetadataLabels) and Terraform's huaweicloud_modelarts_network documentation say 4 to 32.
POOL_NAME = r"^[a-z][a-z0-9-]{2,30}[a-z0-9]$"
NETWORK_NAME = POOL_NAME
CIDR = r"^(\d{1,3}\.){3}\d{1,3}/\d{1,2}$"
NAME_LABEL = "os.modelarts/name"
WORKSPACE_LABEL = "os.modelarts/workspace.id"
ORDER_LABEL = "os.modelarts/order.name"  # the order of a pool's latest create or scale (Terraform waits on it)
DESCRIPTION_ANNOTATION = "os.modelarts/description"
Scope = Literal["Train", "Infer", "Notebook"]


class _Body(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True)


class _Labels(_Body):
    """A pool's or network's labels: its user name (each kind its own pattern) and workspace; others kept."""
    model_config = ConfigDict(extra="allow", populate_by_name=True)
    name: str = Field(alias=NAME_LABEL)
    workspace_id: str = Field(default="0", alias=WORKSPACE_LABEL)


LabelsT = TypeVar("LabelsT", bound=_Labels)


class MetadataCreation(_Body, Generic[LabelsT]):
    """The metadata of a create body, the same for pools and networks but for their labels."""
    labels: LabelsT
    annotations: dict[str, str] = Field(default_factory=dict)


class PoolLabels(_Labels):
    name: str = Field(alias=NAME_LABEL, pattern=POOL_NAME)


PoolMetadataCreation = MetadataCreation[PoolLabels]


class PoolResource(_Body):
    flavor: str = Field(min_length=1)
    count: int = Field(ge=1, le=500)
    max_count: int | None = Field(default=None, alias="maxCount")

    @model_validator(mode="after")
    def _physical(self) -> "PoolResource":
        # Documented: in a physical (Dedicate) pool maxCount must equal count.
        if self.max_count is not None and self.max_count != self.count:
            raise ValueError("maxCount must equal count in a physical pool")
        return self


class PoolNetworkRef(_Body):
    name: str = Field(min_length=1)


class PoolSpecCreation(_Body):
    type: Literal["Dedicate"] = "Dedicate"  # Logical pools are not emulated
    scope: list[Scope] = Field(default_factory=lambda: ["Train"], min_length=1)
    resources: list[PoolResource] = Field(min_length=1)
    network: PoolNetworkRef

    @field_validator("resources")
    @classmethod
    def _one_entry_per_flavor(cls, v: list[PoolResource]) -> list[PoolResource]:
        flavors = [r.flavor for r in v]
        if len(set(flavors)) != len(flavors):
            raise ValueError("each flavor may appear once")
        return v


class CreatePoolBody(_Body):
    api_version: Literal["v2"] = Field(alias="apiVersion")
    kind: Literal["Pool"]
    metadata: PoolMetadataCreation
    spec: PoolSpecCreation


class PoolSpecUpdateResource(_Body):
    flavor: str = Field(min_length=1)
    count: int = Field(ge=0, le=500)


class PoolSpecUpdate(_Body):
    """What a PATCH changes in place (SDK PoolSpecUpdate): the job types, and node counts per flavor, a
    flavor the pool does not have yet being added (Terraform's resource updates `scope` and `resources`
    with one PATCH); a flavor left out keeps its nodes."""
    scope: list[Scope] | None = Field(default=None, min_length=1)
    resources: list[PoolSpecUpdateResource] | None = None

    @field_validator("resources")
    @classmethod
    def _one_entry_per_flavor(cls, v: list[PoolSpecUpdateResource] | None) -> list[PoolSpecUpdateResource] | None:
        flavors = [r.flavor for r in v or []]
        if len(set(flavors)) != len(flavors):
            raise ValueError("each flavor may appear once")
        return v


class PoolMetadataUpdate(_Body):
    # application/merge-patch+json (RFC 7396), as Terraform sends it: a key set to null is removed.
    annotations: dict[str, str | None] = Field(default_factory=dict)


class PatchPoolBody(_Body):
    metadata: PoolMetadataUpdate | None = None
    spec: PoolSpecUpdate | None = None


class NetworkLabels(_Labels):
    name: str = Field(alias=NAME_LABEL, pattern=NETWORK_NAME)


NetworkMetadataCreation = MetadataCreation[NetworkLabels]


class NetworkSpec(_Body):
    cidr: str = Field(pattern=CIDR)


class CreateNetworkBody(_Body):
    api_version: Literal["v1"] = Field(alias="apiVersion")
    kind: Literal["Network"]
    metadata: NetworkMetadataCreation
    spec: NetworkSpec


class PeerConnection(_Body):
    """One VPC the network is connected to by peering (SDK PeerConnectionItem)."""
    peer_vpc_id: str = Field(alias="peerVpcId", min_length=1)
    peer_subnet_id: str = Field(alias="peerSubnetId", min_length=1)
    default_gateway: bool = Field(default=False, alias="defaultGateWay")


class NetworkConnection(_Body):
    """spec.connection of a network PATCH (SDK NetworkConnection): the peer connections replace the network's.
    Terraform's provider also sends `sfsTurboConnectionList` (null when it has none): SFS Turbo is not emulated,
    so only an empty one is accepted."""
    peer_connection_list: list[PeerConnection] | None = Field(default=None, alias="peerConnectionList")
    sfs_turbo_connection_list: list[dict] | None = Field(default=None, alias="sfsTurboConnectionList",
                                                         max_length=0)


class NetworkSpecUpdate(_Body):
    connection: NetworkConnection | None = None


class PatchNetworkBody(_Body):
    """PATCH /v1/{project}/networks/{name} (SDK NetworkUpdateRequest, a merge patch as for pools)."""
    metadata: PoolMetadataUpdate | None = None
    spec: NetworkSpecUpdate | None = None


class PoolFault(BaseModel):
    """POST /_emulator/pool-faults: ``abnormal`` turns the pool Abnormal (at once if it exists, else when its
    nodes would have become available); ``create_fail``: a later create's nodes fail when they would have come
    up (bucket ``creationFailed``, phase CreationFailed, its order failed with the message); ``scale_fail``:
    the nodes a later scale-up adds fail so (phase ScalingFailed, the pool keeps the nodes it had)."""

    model_config = ConfigDict(extra="forbid")
    name: str | None = None  # the user's name (os.modelarts/name); None: every pool
    kind: Literal["abnormal", "create_fail", "scale_fail"]
    message: str = Field(default="", max_length=512)


# The pool flavors of GET /v1/{project}/resourceflavors (ResourceFlavor): a node of the flavor, and the
# job flavors a job in the pool may ask for.
RESOURCE_FLAVORS: list[dict] = [
    {"name": "modelarts.vm.cpu.8u32g", "type": "CPU", "cpu": "8", "memory": "32Gi", "jobFlavors": []},
    {"name": "modelarts.vm.gpu.tnt004", "type": "GPU", "cpu": "8", "memory": "32Gi",
     "gpu": {"type": "nvidia-t4", "size": 1},
     "jobFlavors": ["modelarts.pool.visual.xlarge"]},
    {"name": "modelarts.vm.gpu.8v100", "type": "GPU", "cpu": "64", "memory": "512Gi",
     "gpu": {"type": "nvidia-v100", "size": 8},
     "jobFlavors": ["modelarts.pool.visual.xlarge", "modelarts.pool.visual.2xlarge",
                    "modelarts.pool.visual.4xlarge", "modelarts.pool.visual.8xlarge"]},
]
FLAVORS_BY_NAME = {f["name"]: f for f in RESOURCE_FLAVORS}


def render_flavor(f: dict) -> dict:
    spec: dict = {"type": "Dedicate", "cpuArch": "x86", "cpu": f["cpu"], "memory": f["memory"],
                  "billingModes": [0, 1], "jobFlavors": f["jobFlavors"]}
    if "gpu" in f:
        spec["gpu"] = f["gpu"]
    return {"apiVersion": "v1", "kind": "ResourceFlavor",
            "metadata": {"name": f["name"], "labels": {"os.modelarts/scope": "Train"}},
            "spec": spec, "status": {"phase": {"cn-north-4a": "normal"}}}

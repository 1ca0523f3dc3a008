"""ResourcePool: a dedicated ModelArts resource pool (CreatePool), billed per node-hour from its create
until it is deleted, busy or idle.

    net = Network("main", {"name": "dev-main", "cidr": "192.168.128.0/17"})
    pool = ResourcePool("gpu", {"name": "dev-gpu", "network": net.network_name,
                                "resources": [{"flavor": "modelarts.vm.gpu.tnt004", "count": 2}]})
    TrainingJob("train", {..., "pool_id": pool.id})      # the job depends on the pool

Outputs: pool_name (the service's name, also the id: use the id, which a preview of a scale keeps known where an
output is unknown, so a job on the pool is not previewed as replaced), phase, message, available / creating / abnormal
node counts, location. Node counts, added flavors, the job types (scope) and the description change in
place (one merge-patch PATCH, waited for); the name, the network, the workspace and a flavor taken away replace.
The pool carries this resource's owner mark and is deleted only with it.
"""

from __future__ import annotations

from typing import Optional, TypedDict

import pulumi

from ..core.marks import OwnedResource
from .args import OUTPUT_KEYS
from .provider import ResourcePoolProvider

PROVIDER = ResourcePoolProvider()


class PoolNodesInputs(TypedDict):
    flavor: pulumi.Input[str]
    count: pulumi.Input[int]


class ResourcePoolInputs(TypedDict, total=False):
    name: pulumi.Input[str]
    resources: pulumi.Input[list[PoolNodesInputs]]
    network: pulumi.Input[str]
    scope: pulumi.Input[list[str]]
    workspace_id: pulumi.Input[str]
    description: pulumi.Input[str]
    timeout_seconds: pulumi.Input[float]
    poll_interval_seconds: pulumi.Input[float]
    force_delete: pulumi.Input[bool]


class ResourcePool(OwnedResource, module="modelarts", name="ResourcePool"):
    """Args: ResourcePoolInputs (ResourcePoolArgs for the rules)."""

    PROVIDER = PROVIDER
    OUTPUT_KEYS = OUTPUT_KEYS
    pool_name: pulumi.Output[str]
    phase: pulumi.Output[str]
    message: pulumi.Output[str]
    available: pulumi.Output[int]
    creating: pulumi.Output[int]
    abnormal: pulumi.Output[int]
    location: pulumi.Output[Optional[dict[str, str]]]

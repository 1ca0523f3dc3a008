"""ResourcePool: a dedicated ModelArts resource pool (CreatePool), billed per node-hour from its create
until it is deleted, busy or idle.

    net = Network("main", {"name": "dev-main", "cidr": "192.168.128.0/17"})
    pool = ResourcePool("gpu", {"name": "dev-gpu", "network": net.network_name,
                                "resources": [{"flavor": "modelarts.vm.gpu.tnt004", "count": 2}]})
    TrainingJob("train", {..., "pool_id": pool.pool_name})      # the job depends on the pool

Outputs: pool_name (the service's name, also the id), phase, message, available / creating / abnormal
node counts, location. Node counts change in place (PATCH, waited for); the name, flavors, network,
scope and workspace replace. The pool carries this resource's owner mark and is deleted only with it.
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

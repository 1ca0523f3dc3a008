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

from collections.abc import Mapping
from typing import Any, Optional, TypedDict

import pulumi
from pulumi.dynamic import Resource

from ..core.marks import owned_props
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


class ResourcePool(Resource, module="modelarts", name="ResourcePool"):
    pool_name: pulumi.Output[str]
    phase: pulumi.Output[str]
    message: pulumi.Output[str]
    available: pulumi.Output[int]
    creating: pulumi.Output[int]
    abnormal: pulumi.Output[int]
    location: pulumi.Output[Optional[dict[str, str]]]

    def __init__(self, resource_name: str, args: ResourcePoolInputs | Mapping[str, Any],
                 opts: Optional[pulumi.ResourceOptions] = None) -> None:
        opts = opts or pulumi.ResourceOptions()
        super().__init__(PROVIDER, resource_name, owned_props(resource_name, args, opts, OUTPUT_KEYS), opts)

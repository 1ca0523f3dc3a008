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

from typing import TypedDict

import pulumi

from ..core.marks import OwnedResource, inputs_of, outputs_of
from .args import OUTPUT_KEYS, ResourcePoolArgs, ResourcePoolOutputs
from .provider import ResourcePoolProvider

PROVIDER = ResourcePoolProvider()


class PoolNodesInputs(TypedDict):
    flavor: pulumi.Input[str]
    count: pulumi.Input[int]


# Every input of a ResourcePool, typed as its declaration takes it (args.py), its node groups spelt out; the owner
# mark is the resource's own.
ResourcePoolInputs = inputs_of("ResourcePoolInputs", ResourcePoolArgs, skip=frozenset({"owner"}),
                               typed={"resources": list[PoolNodesInputs]})


class ResourcePool(OwnedResource, module="modelarts", name="ResourcePool"):
    """Args: ResourcePoolInputs (ResourcePoolArgs for the rules)."""

    PROVIDER = PROVIDER
    OUTPUT_KEYS = OUTPUT_KEYS
    __annotations__ = outputs_of(ResourcePoolOutputs)  # its outputs, declared once (ResourcePoolOutputs)

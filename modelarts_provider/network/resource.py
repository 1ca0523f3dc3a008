"""Network: a ModelArts network (CreateNetwork) that dedicated pools are created in.

    net = Network("main", {"name": "dev-main", "cidr": "192.168.128.0/17"})
    ResourcePool("gpu", {..., "network": net.network_name})   # an Output: the pool depends on the network

Outputs: network_name (the service's name, also the id), phase, location. Every input but the provider
options replaces. The network carries this resource's owner mark (modelarts_provider.core.ownership) and is
deleted only when it carries its token.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional, TypedDict

import pulumi
from pulumi.dynamic import Resource

from ..core.marks import owned_props
from .args import OUTPUT_KEYS
from .provider import NetworkProvider

PROVIDER = NetworkProvider()


class NetworkInputs(TypedDict, total=False):
    name: pulumi.Input[str]
    cidr: pulumi.Input[str]
    workspace_id: pulumi.Input[str]
    timeout_seconds: pulumi.Input[float]
    poll_interval_seconds: pulumi.Input[float]


class Network(Resource, module="modelarts", name="Network"):
    network_name: pulumi.Output[str]
    phase: pulumi.Output[str]
    location: pulumi.Output[Optional[dict[str, str]]]

    def __init__(self, resource_name: str, args: NetworkInputs | Mapping[str, Any],
                 opts: Optional[pulumi.ResourceOptions] = None) -> None:
        opts = opts or pulumi.ResourceOptions()
        super().__init__(PROVIDER, resource_name, owned_props(resource_name, args, opts, OUTPUT_KEYS), opts)

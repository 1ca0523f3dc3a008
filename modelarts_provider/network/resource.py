"""Network: a ModelArts network (CreateNetwork) that dedicated pools are created in.

    net = Network("main", {"name": "dev-main", "cidr": "192.168.128.0/17"})
    ResourcePool("gpu", {..., "network": net.network_name})   # an Output: the pool depends on the network

Outputs: network_name (the service's name, also the id), phase, location. Every input but the provider
options replaces. The network carries this resource's owner mark (modelarts_provider.core.ownership) and is
deleted only when it carries its token.
"""

from __future__ import annotations

from typing import Optional, TypedDict

import pulumi

from ..core.marks import OwnedResource
from .args import OUTPUT_KEYS
from .provider import NetworkProvider

PROVIDER = NetworkProvider()


class NetworkInputs(TypedDict, total=False):
    name: pulumi.Input[str]
    cidr: pulumi.Input[str]
    workspace_id: pulumi.Input[str]
    timeout_seconds: pulumi.Input[float]
    poll_interval_seconds: pulumi.Input[float]
    force_delete: pulumi.Input[bool]


class Network(OwnedResource, module="modelarts", name="Network"):
    """Args: NetworkInputs (NetworkArgs for the rules)."""

    PROVIDER = PROVIDER
    OUTPUT_KEYS = OUTPUT_KEYS
    network_name: pulumi.Output[str]
    phase: pulumi.Output[str]
    location: pulumi.Output[Optional[dict[str, str]]]

"""Network: a ModelArts network (CreateNetwork) that dedicated pools are created in.

    net = Network("main", {"name": "dev-main", "cidr": "192.168.128.0/17"})
    ResourcePool("gpu", {..., "network": net.network_name})   # an Output: the pool depends on the network

Outputs: network_name (the service's name, also the id), phase, location. Every input but the provider
options replaces. The network carries this resource's owner mark (modelarts_provider.core.ownership) and is
deleted only when it carries its token.
"""

from __future__ import annotations



from ..core.marks import OwnedResource, inputs_of, outputs_of
from .args import OUTPUT_KEYS, NetworkArgs, NetworkOutputs
from .provider import NetworkProvider

PROVIDER = NetworkProvider()


# Every input of a Network, typed as its declaration takes it (args.py); the owner mark is the resource's own.
NetworkInputs = inputs_of("NetworkInputs", NetworkArgs, skip=frozenset({"owner"}))


class Network(OwnedResource, module="modelarts", name="Network"):
    """Args: NetworkInputs (NetworkArgs for the rules)."""

    PROVIDER = PROVIDER
    OUTPUT_KEYS = OUTPUT_KEYS
    __annotations__ = outputs_of(NetworkOutputs)  # its outputs, declared once (NetworkOutputs)

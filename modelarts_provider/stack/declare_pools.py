"""Networks and the dedicated pools a stack creates -> Network and ResourcePool resources (issue 24).

A pool's network is the Network's output and a job's pool_id the pool's output, so Pulumi orders them:
up creates network, pool, jobs; destroy deletes jobs, then the pool, then the network. Unnamed pools and
networks get `<key>-<6 random chars>` (a RandomString in the state), so two stacks of one project never
share a user name.
"""

from __future__ import annotations

import re

import pulumi
import pulumi_random as random

from ..network import Network
from ..network.args import NetworkArgs
from ..resource_pool import ResourcePool
from ..resource_pool.args import ResourcePoolArgs
from .config import StackConfig
from .declared_keys import arg_values

SUFFIX = 6
NAME_MAX = 32  # pools' and networks' names alike (core/messages.py's POOL_NAME_RE, NETWORK_NAME_RE)


def _derived(resource: str, key: str, max_len: int) -> pulumi.Output[str]:
    prefix = re.sub(r"[^a-z0-9-]+", "-", key.lower()).strip("-") or "x"
    if not prefix[0].isalpha():
        prefix = "p" + prefix
    prefix = prefix[: max_len - SUFFIX - 1].rstrip("-")
    suffix = random.RandomString(f"{resource}-name", length=SUFFIX, special=False, upper=False)
    return pulumi.Output.concat(prefix, "-", suffix.result)


def declare_pools(cfg: StackConfig) -> dict[str, ResourcePool]:
    """One Network per networks entry used by a created pool... and every declared one; one ResourcePool per
    pool entry with `create`. Returns the pools by key."""
    networks: dict[str, Network] = {}
    for key, net in cfg.networks.items():
        res = f"network-{key}"
        networks[key] = Network(res, {"name": net.name or _derived(res, key, NAME_MAX), "cidr": net.cidr,
                                      **arg_values(net, NetworkArgs)})
    pools: dict[str, ResourcePool] = {}
    for key, pool in cfg.pools.items():
        if pool.create is None:
            continue
        c, res = pool.create, f"pool-{key}"
        pools[key] = ResourcePool(res, {
            "name": c.name or _derived(res, key, NAME_MAX), "network": networks[c.network].network_name,
            "resources": [{"flavor": c.flavor, "count": c.nodes}],
            **arg_values(c, ResourcePoolArgs)})  # the keys that set an argument as it is (declared_keys.py)
    return pools

"""The client reads the local ModelArts' pool and network shapes over real HTTP (issue 42): a network's
subnet, a pool's order label and its order (SDK ShowOrder), job types Enabling then Enabled, the failure
phases and the creationFailed bucket with the order's reason, and a merge-patch PATCH of the same pool."""

from __future__ import annotations

import re
from typing import Any, Iterator

import pytest

from modelarts_provider.client import ModelArtsClient
from modelarts_provider.core.fields import changed_in_place, patch_body
from modelarts_provider.resource_pool.args import ResourcePoolArgs
from modelarts_provider.network.args import NetworkArgs
from modelarts_provider.resource_pool.args import ResourcePoolArgs

from .test_emulator_client import settings_for


def _pool_body(name: str, network: str) -> dict:
    """A CreatePoolRequestBody as the ResourcePool sends it (its declarations, resource_pool/args.py), no mark."""
    return ResourcePoolArgs.model_validate({"name": name, "resources": [{"flavor": FLAVOR, "count": 2}],
                                            "network": network}).to_wire({})

FLAVOR = "modelarts.vm.gpu.tnt004"
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


@pytest.fixture(scope="module")
def emulator_times() -> dict[str, float]:  # tests/conftest.py's module_emu (reset per test as `emu`) runs with these
    # Held: nothing moves unless the test moves the emulated clock.
    return {"phase_seconds": 30, "network_seconds": 10, "pool_seconds": 100, "scope_seconds": 5}


@pytest.fixture
def client(emu: Any) -> Iterator[ModelArtsClient]:
    with ModelArtsClient(settings_for(emu)) as c:
        yield c


def _network(client: ModelArtsClient, emu: Any) -> str:
    net = client.create_network(NetworkArgs(name="net-main", cidr="192.168.128.0/17").to_wire({}))
    assert net.subnet_id is None  # Creating: no subnet yet
    emu.advance(10)
    return net.name


def test_subnet_order_scopes_and_an_in_place_patch_are_read(client: ModelArtsClient, emu: Any) -> None:
    net = _network(client, emu)
    shown = client.get_network(net)
    assert shown is not None and shown.status.phase == "Active" and UUID.match(shown.subnet_id or "")

    pool = client.create_pool(_pool_body("gpu-pool", net))
    assert pool.metadata.order_name and client.get_order(pool.metadata.order_name).failure() is None
    emu.advance(50)
    running = client.get_pool(pool.name)
    assert running is not None and running.status.phase == "Running"
    assert not running.status.scopes_enabled(["Train"])  # Running, but its job type still Enabling
    emu.advance(55)
    ready = client.get_pool(pool.name)
    assert ready is not None and ready.status.scopes_enabled(["Train"]) and not ready.status.failed()
    order = client.get_order(pool.metadata.order_name)
    assert [(i.action, i.status) for i in order.items] == [("createPool", "succeed"), ("createNode", "succeed"),
                                                           ("createNode", "succeed")]

    # the update's merge patch, derived from the declarations: counts (a flavor added), job types, a description
    before = ResourcePoolArgs(name="gpu-pool", resources=[{"flavor": FLAVOR, "count": 1}], network="n")  # type: ignore[list-item]
    after = ResourcePoolArgs(name="gpu-pool", resources=[{"flavor": FLAVOR, "count": 2},  # type: ignore[list-item]
                                                  {"flavor": "modelarts.vm.cpu.8u32g", "count": 1}],
                             network="n", scope=["Infer", "Train"], description="vision")
    changed = changed_in_place(before, after)
    assert [f.name for f in changed] == ["resources", "scope", "description"]
    patched = client.patch_pool(pool.name, patch_body(after, changed))
    assert patched.name == pool.name and sorted(patched.spec.scope) == ["Infer", "Train"]
    assert patched.metadata.annotations["os.modelarts/description"] == "vision"
    assert patched.metadata.order_name != pool.metadata.order_name  # the added flavor's node: a new order
    assert not patched.status.scopes_enabled(["Infer"])


def test_failure_phases_and_bucket_are_read_with_the_orders_reason(client: ModelArtsClient, emu: Any) -> None:
    net = _network(client, emu)
    emu.pool_fault("create_fail", name="no-pool", message="Insufficient ECS quota.")
    pool = client.create_pool(_pool_body("no-pool", net))
    emu.advance(100)
    failed = client.get_pool(pool.name)
    assert failed is not None and failed.status.phase == "CreationFailed" and failed.status.failed()
    assert failed.status.counts("creationFailed") == {FLAVOR: 2}
    assert client.get_order(failed.metadata.order_name or "").failure() == \
        "3 of 3 resources of the order failed: Insufficient ECS quota."

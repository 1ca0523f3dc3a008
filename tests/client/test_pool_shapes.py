"""Pool and network bodies against the official SDK's models (issue 24): what the client sends fits the
SDK's request models (no unknown key, nothing lost), and every field of the SDK's responses parses and is
kept, the per-flavor node counts read from one object (the SDK's type) or an array (the API's examples)."""

from __future__ import annotations

from typing import Any

import pytest

from modelarts_provider.client.pool_models import Network, Order, Pool
from modelarts_provider.core.fields import declarations, patch_body
from modelarts_provider.network.args import NetworkArgs
from modelarts_provider.resource_pool.args import ResourcePoolArgs

from .sdk_reference import round_trip, synthetic


def _patched(nodes: list[tuple[str, int]], scope: list[str] | None = None) -> dict[str, Any]:
    """The update's merge patch derived from the declarations (core/fields.patch_body): the node counts, and the job
    types when they changed."""
    args = ResourcePoolArgs(name="gpu-pool", resources=[{"flavor": f, "count": n} for f, n in nodes],  # type: ignore[misc]
                            network="network-1", scope=scope or ["Train"])
    fields = {f.name: f for f in declarations(ResourcePoolArgs)}
    return patch_body(args, [fields["resources"], *([fields["scope"]] if scope else [])])


def _scalar(t: str, where: str) -> Any:
    return {"int": 3, "bool": True, "float": 1.5}.get(t, "flavor-a" if where.endswith(".flavor") else "x")


@pytest.mark.parametrize("body,sdk_type", [
    (ResourcePoolArgs(name="gpu-pool", resources=[{"flavor": "modelarts.vm.gpu.tnt004", "count": 2}],  # type: ignore[list-item]
                      network="network-1", scope=["Train"], workspace_id="0").to_wire({}), "CreatePoolRequestBody"),
    (_patched([("modelarts.vm.gpu.tnt004", 3)]), "PoolUpdateRequest"),
    (_patched([("modelarts.vm.gpu.tnt004", 3), ("modelarts.vm.cpu.8u32g", 1)], ["Infer", "Train"]),
     "PoolUpdateRequest"),
    (NetworkArgs(name="net-main", cidr="192.168.128.0/17", workspace_id="0").to_wire({}), "NetworkCreationRequest"),
])
def test_request_bodies_fit_the_sdk(body: dict, sdk_type: str) -> None:
    sent, problems = round_trip(body, sdk_type)
    assert problems == [] and sent == body


def test_our_owner_mark_on_a_network_is_the_one_key_beyond_the_sdk() -> None:
    # in annotations and, as the service may answer without them (issue 42), as a label
    body = NetworkArgs(name="net-main", cidr="10.0.0.0/16").to_wire({"modelarts-pulumi/token": "t"})
    _, problems = round_trip(body, "NetworkCreationRequest")
    assert sorted(problems) == ["body.metadata.annotations: not a field of the SDK's NetworkMetadataCreation",
                                "body.metadata.labels.modelarts-pulumi/token: not a field of the SDK's "
                                "NetworkMetadataLabels"]


@pytest.mark.parametrize("one_for_many", [False, True])
def test_every_sdk_pool_field_parses_and_is_kept(one_for_many: bool) -> None:
    body = synthetic("ShowPoolResponse", _scalar, one_for_many=one_for_many)
    pool = Pool.model_validate(body)
    assert pool.model_dump(by_alias=True, exclude_unset=True)["metadata"]["name"] == body["metadata"]["name"]
    assert pool.status.phase == body["status"]["phase"]
    # each bucket is one PoolResourceFlavorCount in the SDK: read as a one-item list
    assert pool.status.counts("available") == {"flavor-a": 3}
    assert pool.spec.resources[0].count == 3


def test_counts_from_arrays_and_summary() -> None:
    pool = Pool.model_validate({
        "metadata": {"name": "pool-1", "labels": {"os.modelarts/name": "gpu"}},
        "spec": {"resources": [{"flavor": "a", "count": 2}, {"flavor": "b", "count": 1}]},
        "status": {"phase": "Running", "resources": {"available": [{"flavor": "a", "count": 2}],
                                                     "creating": [{"flavor": "b", "count": 1}], "abnormal": []}}})
    assert pool.metadata.user_name == "gpu"
    assert pool.summary() == "Running: 2/3 nodes available, 1 creating"


def test_every_sdk_network_field_parses() -> None:
    body = synthetic("ShowNetworkResponse", _scalar)
    net = Network.model_validate(body)
    assert net.name == body["metadata"]["name"] and net.status.phase == body["status"]["phase"]


def test_every_sdk_order_field_parses_and_a_failure_reads_as_one_line() -> None:
    body = synthetic("ShowOrderResponse", _scalar)
    order = Order.model_validate(body)
    assert order.count == body["count"] and order.items[0].resource_name == body["items"][0]["resourceName"]
    assert order.failure() is None  # status "x": nothing failed
    order = Order.model_validate({"count": 3, "items": [
        {"resourceName": "pool-1", "action": "createPool", "status": "failed", "message": "Insufficient ECS quota."},
        {"resourceName": "pool-1-node-0", "action": "createNode", "status": "failed",
         "message": "Insufficient ECS quota."},
        {"resourceName": "pool-1-node-1", "action": "createNode", "status": "succeed", "message": ""}]})
    assert order.failure() == "2 of 3 resources of the order failed: Insufficient ECS quota."


def test_failure_phases_bucket_scopes_order_label_and_subnets_are_read() -> None:
    pool = Pool.model_validate({
        "metadata": {"name": "pool-1", "labels": {"os.modelarts/order.name": "order-1"}},
        "spec": {"resources": [{"flavor": "a", "count": 2}], "scope": ["Train", "Infer"]},
        "status": {"phase": "Running", "resources": {"available": [{"flavor": "a", "count": 1}],
                                                     "creationFailed": [{"flavor": "a", "count": 1}]},
                   "scope": [{"scopeType": "Train", "state": "Enabled"}, {"scopeType": "Infer", "state": "Enabling"}]}})
    assert pool.metadata.order_name == "order-1"
    assert pool.status.failed() and pool.summary() == "Running: 1/2 nodes available, 1 failed to create"
    assert pool.status.scopes_enabled(["Train"]) and not pool.status.scopes_enabled(["Train", "Infer"])
    for phase in ("CreationFailed", "ScalingFailed", "Abnormal", "Error"):
        assert Pool.model_validate({"metadata": {"name": "p"}, "status": {"phase": phase}}).status.failed()
    assert not Pool.model_validate({"metadata": {"name": "p"}, "status": {"phase": "Running"}}).status.failed()
    net = Network.model_validate({"metadata": {"name": "network-1"}, "status": {
        "phase": "Active", "subnets": [{"networkId": "2b7e3c3a-1f0e-4c53-9a56-0f4b1e2d3c4b"}]}})
    assert net.subnet_id == "2b7e3c3a-1f0e-4c53-9a56-0f4b1e2d3c4b"
    assert Network.model_validate({"metadata": {"name": "n"}, "status": {"phase": "Creating"}}).subnet_id is None

"""Network and ResourcePool providers against the local ModelArts over real HTTP (issue 24): create waits
for every node and prints counts as they change, scaling is a PATCH waited for, an unusable pool is deleted
and the error says so, only our pools and networks are deleted, check refuses bad counts, diff ignores order."""

from __future__ import annotations

import threading

from typing import Any

import pytest

from modelarts_emulator.testing import RunningEmulator
from modelarts_provider.network.provider import NetworkProvider
from modelarts_provider.wait_engine import cancel
from modelarts_provider.core.provider_error import ProviderError
from modelarts_provider.core.provider_config import resolve_settings
from modelarts_provider.resource_pool import provider as pool_provider_module
from modelarts_provider.resource_pool.diff import decide
from modelarts_provider.resource_pool.provider import ResourcePoolProvider

from .common import owner_of

FLAVOR = "modelarts.vm.gpu.tnt004"


@pytest.fixture(scope="module")
def emulator_times() -> dict[str, float]:  # tests/conftest.py's module_emu (reset per test) runs with these
    return {"phase_seconds": 0.2, "run_seconds": 1, "network_seconds": 0.2, "pool_seconds": 0.6}


def _configured(cls: type, emu: RunningEmulator) -> Any:
    p = cls()
    p._settings = resolve_settings({"region": "cn-north-4", "projectId": emu.project_id, "accessKey": emu.access_key,
                                    "secretKey": emu.secret_key, "endpoint": emu.url}.get, {})
    return p


@pytest.fixture
def said(monkeypatch) -> list[str]:
    lines: list[str] = []
    monkeypatch.setattr(pool_provider_module, "say", lines.append)
    monkeypatch.setattr(cancel, "_CANCELLED", threading.Event())  # not cancelled, whatever an earlier test did
    return lines


def _network(emu: RunningEmulator) -> tuple[NetworkProvider, str, dict]:
    nets = _configured(NetworkProvider, emu)
    props = {"name": "net-main", "cidr": "192.168.128.0/17", "poll_interval_seconds": 0.05,
             "owner": owner_of("network-main")}
    created = nets.create(props)
    assert created.outs["phase"] == "Active"
    return nets, created.id, created.outs


def _pool_props(network: str, count: int = 2, **over: Any) -> dict:
    return {"name": "gpu-pool", "network": network, "resources": [{"flavor": FLAVOR, "count": count}],
            "poll_interval_seconds": 0.05, "timeout_seconds": 20, "owner": owner_of("pool-gpu"), **over}


def test_create_scale_destroy_in_order(emu, said):
    nets, net, net_outs = _network(emu)
    pools = _configured(ResourcePoolProvider, emu)
    created = pools.create(_pool_props(net))
    assert (created.outs["phase"], created.outs["available"], created.outs["creating"]) == ("Running", 2, 0)
    progress = [line for line in said if "nodes available" in line]
    assert progress[0].endswith("Creating: 0/2 nodes available, 2 creating")
    assert progress[-1].endswith("Running: 2/2 nodes available")
    assert len(progress) >= 3, "each change of the counts is printed once"
    assert len(set(progress)) == len(progress)

    said.clear()
    updated = pools.update(created.id, created.outs, _pool_props(net, count=3))
    assert (updated.outs["available"], updated.outs["creating"]) == (3, 0)
    assert any("scaling" in line and "2 -> 3" in line for line in said)
    live = emu.pools()["items"]
    assert [p["spec"]["resources"][0]["count"] for p in live if p["kind"] == "Pool"] == [3]

    read = pools.read(created.id, updated.outs)
    assert read.outs["available"] == 3 and read.outs["resources"] == [{"flavor": FLAVOR, "count": 3}]

    pools.delete(created.id, updated.outs)  # Pulumi deletes the pool first (dependency)
    nets.delete(net, net_outs)
    events = [(e["kind"], e["action"]) for e in emu.pools()["events"]]
    assert events == [("network", "create"), ("pool", "create"), ("pool", "scale"), ("pool", "delete"),
                      ("network", "delete")]
    assert all(item["gone"] for item in emu.pools()["items"])


def _pools_on_a_network(emu) -> tuple[Any, str]:
    """The ResourcePool provider against `emu`, and the network a pool of the tests goes on."""
    _, net, _ = _network(emu)
    return _configured(ResourcePoolProvider, emu), net


def _the_pool(emu) -> dict:
    """The one pool the emulator holds (gone or not)."""
    (pool,) = [p for p in emu.pools()["items"] if p["kind"] == "Pool"]
    return pool


def _unusable_create(emu, fault: str, message: str, **over: Any) -> tuple[str, dict]:
    """A pool create the emulator's `fault` makes unusable: the create's error, and the pool as recorded."""
    pools, net = _pools_on_a_network(emu)
    emu.pool_fault(fault, name="gpu-pool", message=message)
    with pytest.raises(ProviderError) as failed:
        pools.create(_pool_props(net, **over))
    return str(failed.value), _the_pool(emu)


def test_a_pool_that_turns_abnormal_fails_the_create_and_is_deleted(emu, said):
    msg, pool = _unusable_create(emu, "abnormal", "Insufficient GPU capacity in cn-north-4a.")
    assert "Abnormal: Insufficient GPU capacity in cn-north-4a." in msg
    assert "was deleted, not left billing" in msg
    assert pool["metadata"].get("deletionTimestamp"), "the unusable pool was deleted"


def test_a_failed_scale_up_fails_the_update_at_once_naming_the_order_and_keeps_the_pool(emu, said):
    pools, net = _pools_on_a_network(emu)
    created = pools.create(_pool_props(net))
    emu.pool_fault("scale_fail", name="gpu-pool", message="Scale-up failed: no capacity.")
    with pytest.raises(ProviderError) as failed:
        pools.update(created.id, created.outs, _pool_props(net, count=3, timeout_seconds=3600))
    msg = str(failed.value)
    assert "is ScalingFailed: 1 of 1 resources of the order failed: Scale-up failed: no capacity." in msg, msg
    assert "the pool keeps the nodes it has" in msg
    pool = _the_pool(emu)
    assert not pool["gone"] and "deletionTimestamp" not in pool["metadata"]
    assert pool["status"]["resources"]["available"] == [{"flavor": FLAVOR, "count": 2}]


def test_a_failed_create_fails_at_once_naming_the_order_and_the_pool_is_deleted(emu, said):
    """Not at the deadline (an hour here): the first answer in CreationFailed ends the wait."""
    msg, pool = _unusable_create(emu, "create_fail", "Insufficient ECS quota.", timeout_seconds=3600)
    # at the first node that failed to create (or the order failed as a whole), whichever is seen first
    assert msg.startswith(("pool gpu-pool has nodes that failed to create", "pool gpu-pool is CreationFailed")), msg
    assert "resources of the order failed: Insufficient ECS quota." in msg, msg
    assert "was deleted, not left billing" in msg
    assert pool["metadata"].get("deletionTimestamp"), "the pool that failed to create was deleted"


def test_job_types_and_an_added_flavor_change_in_place_and_ready_waits_for_enabled(emu, said):
    pools, net = _pools_on_a_network(emu)
    created = pools.create(_pool_props(net))
    assert any("job types Train Enabling" in line for line in said), said  # Running alone is not ready
    before = _the_pool(emu)
    assert before["status"]["scope"] == [{"scopeType": "Train", "state": "Enabled"}]
    other = "modelarts.vm.cpu.8u32g"
    news = _pool_props(net, scope=["Train", "Infer"], description="shared by the vision team",
                       resources=[{"flavor": FLAVOR, "count": 2}, {"flavor": other, "count": 1}])
    assert decide(created.outs, news) == ([], ["resources", "scope", "description"])  # declaration order
    said.clear()
    sent: list[tuple[str, str | None]] = []
    pools._api().transport.session.hooks["response"].append(
        lambda r, *_, **__: sent.append((r.request.method, r.request.headers.get("Content-Type"))))
    updated = pools.update(created.id, created.outs, news)
    assert [c for m, c in sent if m == "PATCH"] == ["application/merge-patch+json"]  # as Terraform sends it
    assert any("scaling" in line and f"{other} 0 -> 1" in line and "job types Train -> Infer, Train" in line
               for line in said), said
    pool = _the_pool(emu)
    assert pool["metadata"]["name"] == created.id  # the same pool
    assert {s["scopeType"]: s["state"] for s in pool["status"]["scope"]} == {"Train": "Enabled", "Infer": "Enabled"}
    assert {r["flavor"]: r["count"] for r in pool["spec"]["resources"]} == {FLAVOR: 2, other: 1}
    assert updated.outs["available"] == 3
    assert pool["metadata"]["annotations"]["os.modelarts/description"] == "shared by the vision team"
    assert pool["metadata"]["annotations"]["modelarts-pulumi/token"] == news["owner"]["token"]  # the mark kept
    # the description alone: a PATCH of the annotation, no order, no wait for nodes
    plain = {**news, "description": None}
    assert decide(updated.outs, plain) == ([], ["description"])
    pools.update(created.id, updated.outs, plain)
    pool = _the_pool(emu)
    assert "os.modelarts/description" not in pool["metadata"]["annotations"]  # merge-patch null removed it
    assert [(e["kind"], e["action"]) for e in emu.pools()["events"] if e["kind"] == "pool"] == [
        ("pool", "create"), ("pool", "scale")]


def test_only_our_pool_is_deleted_or_taken_over(emu, said):
    pools, net = _pools_on_a_network(emu)
    created = pools.create(_pool_props(net))
    other = _pool_props(net, owner=owner_of("pool-gpu", stack="organization/proj/alice"))
    with pytest.raises(ProviderError, match="belongs to organization/proj/dev::pool-gpu"):
        pools.create(other)  # same user name, another owner: refused, nothing created
    with pytest.raises(ProviderError, match="not deleted"):
        pools.delete(created.id, {**created.outs, "owner": other["owner"]})
    assert [p["gone"] for p in emu.pools()["items"] if p["kind"] == "Pool"] == [False]
    again = pools.create(_pool_props(net))  # ours (same token): taken over, no second pool
    assert again.id == created.id
    assert len([p for p in emu.pools()["items"] if p["kind"] == "Pool"]) == 1


def test_check_and_diff_make_no_call():
    pools = ResourcePoolProvider()
    bad = pools.check({}, _pool_props("network-x", count=0))
    assert [(f.property, f.reason) for f in bad.failures] == [("resources[0].count", "must be at least 1, not 0")]
    two = [{"flavor": "a", "count": 1}, {"flavor": "b", "count": 2}]
    olds = _pool_props("n", resources=two)
    assert decide(olds, _pool_props("n", resources=list(reversed(two)))) == ([], [])
    assert decide(olds, _pool_props("n", resources=[{"flavor": "b", "count": 2}, {"flavor": "a", "count": 3}])) \
        == ([], ["resources"])
    assert decide(olds, _pool_props("n", resources=[{"flavor": "c", "count": 1}, {"flavor": "b", "count": 2}])) \
        == (["resources"], [])  # a flavor taken away replaces
    assert decide(olds, _pool_props("n", resources=[*two, {"flavor": "c", "count": 1}])) == ([], ["resources"])
    assert decide(olds, _pool_props("n", resources=two, scope=["Infer", "Train"])) == ([], ["scope"])
    assert decide(olds, _pool_props("m", resources=two)) == (["network"], [])


def test_a_network_name_over_32_characters_is_refused_at_check_naming_the_rule():
    nets = NetworkProvider()
    bad = nets.check({}, {"name": "n" * 33, "cidr": "192.168.128.0/17", "owner": owner_of("network-main")})
    assert [(f.property, f.reason) for f in bad.failures] == [
        ("name", f"'{'n' * 33}' is not a valid network name: 4-32 characters: lowercase letters, digits and '-'; "
                 "starts with a letter, ends with a letter or digit")]
    assert nets.check({}, {"name": "n" * 32, "cidr": "192.168.128.0/17", "owner": owner_of("network-main")}).failures == []


def test_a_pool_past_its_deadline_fails_naming_its_counts_and_is_deleted(emu, said):
    pools, net = _pools_on_a_network(emu)
    with pytest.raises(ProviderError) as failed:
        pools.create(_pool_props(net, timeout_seconds=0.1))
    msg = str(failed.value)
    assert "not usable after 0.1 s (" in msg and "/2 nodes available" in msg, msg
    assert "was deleted, not left billing" in msg
    pool = _the_pool(emu)
    assert pool["metadata"].get("deletionTimestamp")


# --- after a killed `up`: our pool or network found by its mark ------------------------------------------


def _kinds(emu: RunningEmulator, kind: str) -> list[dict]:
    return [p for p in emu.pools()["items"] if p["kind"] == kind]


def test_our_earlier_pool_with_other_counts_is_taken_over_and_scaled(emu, said):
    pools, net = _pools_on_a_network(emu)
    first = pools.create(_pool_props(net, count=2))  # a killed up: this pool is in no state
    said.clear()
    again = pools.create(_pool_props(net, count=3))  # the next up, with another node count
    assert again.id == first.id and (again.outs["available"], again.outs["creating"]) == (3, 0)
    assert any("taken over and scaled" in line and "2 -> 3" in line for line in said), said
    (pool,) = _kinds(emu, "Pool")
    assert pool["spec"]["resources"][0]["count"] == 3
    assert [(e["kind"], e["action"]) for e in emu.pools()["events"] if e["kind"] == "pool"] == [
        ("pool", "create"), ("pool", "scale")]


def test_our_earlier_pool_on_another_network_is_replaced_not_adopted(emu, said):
    nets, net, _ = _network(emu)
    other = nets.create({"name": "net-two", "cidr": "10.0.0.0/16", "poll_interval_seconds": 0.05,
                         "owner": owner_of("network-two")})
    pools = _configured(ResourcePoolProvider, emu)
    first = pools.create(_pool_props(net))
    said.clear()
    again = pools.create(_pool_props(other.id))
    assert again.id != first.id
    assert any("differs (network" in line for line in said), said
    live = [p for p in _kinds(emu, "Pool") if not p["gone"]]
    assert [p["metadata"]["name"] for p in live] == [again.id] and live[0]["spec"]["network"]["name"] == other.id


def test_a_network_delete_removes_our_untracked_pool_first_and_never_a_foreign_one(emu, said):
    nets, net, net_outs = _network(emu)
    pools = _configured(ResourcePoolProvider, emu)
    orphan = pools.create(_pool_props(net))  # left by a killed up: in no state
    nets.delete(net, net_outs)  # destroy: the network's delete removes our pool first, then the network
    events = [(e["kind"], e["action"]) for e in emu.pools()["events"] if e["action"] == "delete"]
    assert events == [("pool", "delete"), ("network", "delete")], events
    assert all(item["gone"] for item in emu.pools()["items"]), "no pool is left billing"
    assert orphan.id in " ".join(said)

    # a pool on our network that does not carry our network's token (someone else's): never deleted
    nets, net, net_outs = _network(emu)
    from modelarts_provider.resource_pool.args import ResourcePoolArgs
    foreign = pools._api().create_pool(ResourcePoolArgs.model_validate(
        {"name": "theirs", "resources": [{"flavor": FLAVOR, "count": 1}], "network": net}).to_wire({}))
    with pytest.raises(Exception, match="(?i)in use|used"):
        nets.delete(net, net_outs)
    assert not next(p for p in _kinds(emu, "Pool") if p["metadata"]["name"] == foreign.name)["gone"]


def test_our_earlier_network_with_another_cidr_is_replaced_not_adopted(emu, said, monkeypatch):
    nets, net, _ = _network(emu)  # a killed up: in no state
    said_here: list[str] = []
    monkeypatch.setattr("modelarts_provider.network.provider.say", said_here.append)
    again = nets.create({"name": "net-main", "cidr": "10.1.0.0/16", "poll_interval_seconds": 0.05,
                         "owner": owner_of("network-main")})
    assert again.id != net and again.outs["phase"] == "Active"
    assert any("cidr 192.168.128.0/17 -> 10.1.0.0/16" in line for line in said_here), said_here
    live = [n for n in _kinds(emu, "Network") if not n["gone"]]
    assert [(n["metadata"]["name"], n["spec"]["cidr"]) for n in live] == [(again.id, "10.1.0.0/16")]

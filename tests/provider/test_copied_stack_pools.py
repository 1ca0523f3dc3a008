"""Issue 43: a copied stack (`stack export`, the URNs renamed to another stack, `stack import`) shares the original's
seed, hence its owner tokens; its pools' and networks' owner text names the original. The copy's calls name the copy
(their URN), so it never takes over, changes or deletes the original's pools and networks, whatever its state
records. Against the local ModelArts over HTTP; the engine end to end: tests/e2e/test_copied_stack_pools.py."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from modelarts_provider.wait_engine import cancel
from modelarts_provider.core.call_urn import CURRENT_URN
from modelarts_provider.core.provider_error import ProviderError
from modelarts_provider.network.provider import NetworkProvider
from modelarts_provider.resource_pool.provider import ResourcePoolProvider

from .common import owner_of
from .test_resource_pool import _configured, _kinds, _network, _pool_props

ORIGINAL = "organization/proj/dev"  # the stack of owner_of's marks


@pytest.fixture(scope="module")
def emulator_times() -> dict[str, float]:
    return {"phase_seconds": 0.2, "run_seconds": 600, "network_seconds": 0.2, "pool_seconds": 0.6}


@pytest.fixture
def said(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    lines: list[str] = []
    monkeypatch.setattr("modelarts_provider.resource_pool.provider.say", lines.append)
    monkeypatch.setattr("modelarts_provider.network.provider.say", lines.append)
    monkeypatch.setattr(cancel, "_CANCELLED", threading.Event())
    return lines


def _untouched(emu: Any) -> None:
    assert all(not o["gone"] and "deletionTimestamp" not in o["metadata"] for o in emu.pools()["items"])
    assert [(e["kind"], e["action"]) for e in emu.pools()["events"]] == [("network", "create"), ("pool", "create")]


@pytest.mark.parametrize("annotations", ["answered", "dropped"])
def test_the_copy_never_takes_over_changes_or_deletes_the_originals_pool_and_network(emu: Any, said: list[str],
                                                                                      annotations: str) -> None:
    # "dropped": the service answers without annotations (owner text): the labels' stack digest tells the stacks apart
    emu.settings(drop_annotations=annotations == "dropped")
    nets, net, net_outs = _network(emu)
    pools = _configured(ResourcePoolProvider, emu)
    made = pools.create(_pool_props(net))
    copy_owner = {**owner_of("pool-gpu"), "stack": "organization/proj/copy"}  # the copy's program: same token

    # what the refusal names: the owner text, or where only labels come back, the mark's token alone

    def belongs(resource: str) -> str:
        return (f"it belongs to {ORIGINAL}::{resource}" if annotations == "answered"
                else r"it belongs to another resource \(owner token [0-9a-f]{8}\.\.\.\)")

    reset = CURRENT_URN.set("urn:pulumi:copy::proj::pulumi-python:dynamic/modelarts:ResourcePool::pool-gpu")
    try:
        # Its state (exported from the original) records the original's mark: the call's URN decides.
        for props in (made.outs, {**made.outs, "owner": copy_owner}):
            with pytest.raises(ProviderError, match=f"not deleted, {belongs('pool-gpu')}"):
                pools.delete(made.id, props)
            with pytest.raises(ProviderError, match=f"not changed, {belongs('pool-gpu')}"):
                pools.update(made.id, made.outs, {**_pool_props(net, count=3), "owner": props["owner"]})
        with pytest.raises(ProviderError, match=f"a pool of that name exists .* {belongs('pool-gpu')}"):
            pools.create({**_pool_props(net), "owner": copy_owner})  # the copy's state forgot it: not taken over
        with pytest.raises(ProviderError, match=f"not deleted, {belongs('network-main')}"):
            nets.delete(net, net_outs)
        with pytest.raises(ProviderError, match=f"a network of that name exists .* {belongs('network-main')}"):
            nets.create({"name": "net-main", "cidr": "192.168.128.0/17", "poll_interval_seconds": 0.05,
                         "owner": {**owner_of("network-main"), "stack": "organization/proj/copy"}})
    finally:
        CURRENT_URN.reset(reset)
    _untouched(emu)
    assert [p["spec"]["resources"][0]["count"] for p in _kinds(emu, "Pool")] == [2]

    # The original's own calls (their URN names it) still do all of it.
    pools.delete(made.id, made.outs)
    nets.delete(net, net_outs)
    assert all(o["gone"] for o in emu.pools()["items"])


def test_a_call_the_server_serves_before_its_handlers_are_wrapped_names_its_stack() -> None:
    """The dynamic-provider server's first calls set no URN (provider_server.clean_errors wraps the handlers while
    the first call configures the provider): the stack is read from the request the SDK's handler serves."""
    from modelarts_provider.core.call_urn import current_stack

    class Request:
        urn = "urn:pulumi:copy::proj::pulumi-python:dynamic/modelarts:ResourcePool::pool-gpu"

    def Delete(request: Any, context: Any) -> str | None:  # noqa: N802 - the SDK servicer's method, in spirit
        return current_stack()

    assert Delete(Request(), None) == "proj/copy"
    assert current_stack() is None  # outside a served call: nothing

"""A network's peer connections updated in place (PatchNetwork, issue 57: Terraform's huaweicloud_modelarts_network
changes them with one merge-patch PATCH), driven by the official SDK (huaweicloudsdkmodelarts) over real HTTP."""

from __future__ import annotations

import pytest
from huaweicloudsdkcore.exceptions.exceptions import ClientRequestException
from huaweicloudsdkmodelarts.v1 import ModelArtsClient
from huaweicloudsdkmodelarts.v1 import model as m

from tests.emulator.helpers import Api
from tests.emulator.test_pools import TIMES, _network

VPC, SUBNET = "5b7a3c1e-0d2f-4e6a-9b8c-7d6e5f4a3b20", "9c8b7a6d-5e4f-4a3b-8c2d-1e0f9a8b7c60"


@pytest.fixture(scope="module")
def emulator_times() -> dict[str, float]:
    return TIMES


def _patch(sdk: ModelArtsClient, name: str, *peers: tuple[str, str]) -> m.PatchNetworkResponse:
    items = [m.PeerConnectionItem(peer_vpc_id=vpc, peer_subnet_id=subnet) for vpc, subnet in peers]
    body = m.NetworkUpdateRequest(spec=m.NetworkSpecUpdate(connection=m.NetworkConnection(peer_connection_list=items)))
    return sdk.patch_network(m.PatchNetworkRequest(network_name=name, body=body))


def test_peer_connections_replace_the_networks_own_and_connect(emu, sdk: ModelArtsClient) -> None:
    name = _network(sdk)
    with pytest.raises(ClientRequestException) as refused:  # still Creating
        _patch(sdk, name, (VPC, SUBNET))
    assert refused.value.status_code == 400
    emu.advance(TIMES["network_seconds"])
    patched = _patch(sdk, name, (VPC, SUBNET))
    assert [(p.peer_vpc_id, p.peer_subnet_id) for p in patched.spec.connection.peer_connection_list] == [(VPC, SUBNET)]
    assert [p.phase for p in patched.status.connection_status.peer_connection_status] == ["Connecting"]
    emu.advance(TIMES["network_seconds"])
    shown = sdk.show_network(m.ShowNetworkRequest(network_name=name))
    assert [p.phase for p in shown.status.connection_status.peer_connection_status] == ["Active"]
    assert shown.spec.cidr == "192.168.128.0/17" and shown.status.phase == "Active"
    emptied = _patch(sdk, name)  # an empty list: no connection left
    assert emptied.spec.connection is None and emptied.status.connection_status is None


def test_a_patch_of_sfs_turbo_connections_is_refused_as_not_emulated(emu, sdk: ModelArtsClient, api: Api) -> None:
    name = _network(sdk, "net-turbo")
    emu.advance(TIMES["network_seconds"])
    base = f"/v1/{emu.project_id}/networks/{name}"
    # what Terraform sends when it has none: accepted
    empty = api.call("PATCH", base, {"spec": {"connection": {"peerConnectionList": None,
                                                               "sfsTurboConnectionList": None}}})
    assert empty.status_code == 200, empty.text
    turbo = api.call("PATCH", base, {"spec": {"connection": {"sfsTurboConnectionList": [
        {"name": "turbo", "sfsId": "f0e1d2c3-b4a5-4697-8879-6a5b4c3d2e1f", "subnetId": SUBNET}]}}})
    assert turbo.status_code == 400 and turbo.json()["error_code"] == "ModelArts.0104", turbo.text

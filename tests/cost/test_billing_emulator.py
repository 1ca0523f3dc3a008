"""The local billing service speaks BSS's rating API: the official SDK (huaweicloudsdkbss) reads it, signing
with AK/SK as it does against the real service; a wrong key, an unpriced spec, another cloud service type,
resource type or region are refused in BSS's shape with its documented codes; the list price and the
discounted amount differ (the local account's discount), as on an account with a discount."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import huaweicloudsdkbss.v2 as bss_v2  # the `test` extra pins it
import pytest
from huaweicloudsdkcore.auth.credentials import GlobalCredentials
from huaweicloudsdkcore.exceptions.exceptions import ClientRequestException

from billing_emulator.testing import RunningBilling, running_billing
from modelarts_provider.client.billing_models import CLOUD_SERVICE_TYPE, MEASURE_HOUR, RESOURCE_TYPE


@pytest.fixture
def bss(billing: RunningBilling) -> RunningBilling:
    """The module's local billing service (tests/conftest.py)."""
    return billing


def _client(bss: RunningBilling, sk: str | None = None) -> Any:
    creds = GlobalCredentials(bss.access_key, sk or bss.secret_key, "emulator-domain-id")
    return bss_v2.BssClient.new_builder().with_credentials(creds).with_endpoints([bss.url]).build()


def _product(pid: str, spec: str, hours: str = "1", num: int = 1, service: str = CLOUD_SERVICE_TYPE,
             resource: str = RESOURCE_TYPE, region: str = "cn-north-4") -> Any:
    return bss_v2.DemandProductInfo(id=pid, cloud_service_type=service, resource_type=resource,
                                    resource_spec=spec, region=region, usage_factor="Duration",
                                    usage_value=Decimal(hours), usage_measure_id=MEASURE_HOUR, subscription_num=num)


def _rate(client: Any, *products: Any) -> Any:
    body = bss_v2.RateOnDemandReq(project_id="a1b2c3d4e5f60718293a4b5c6d7e8f90", product_infos=list(products))
    return client.list_on_demand_resource_ratings(bss_v2.ListOnDemandResourceRatingsRequest(body=body))


def test_the_official_sdk_reads_the_local_rating_api(bss: RunningBilling) -> None:
    before = bss.counters()["rate_on_demand"]
    resp = _rate(_client(bss), _product("a", "modelarts.vm.gpu.v100", "6", 2), _product("b", "modelarts.vm.cpu.2u"))
    by_id = {r.id: r for r in resp.product_rating_results}
    # list prices: 12.5 CNY per hour (billing_emulator/prices.json) x 6 h x 2; 0.45 x 1 h x 1
    assert Decimal(str(by_id["a"].official_website_amount)) == Decimal("150")
    assert Decimal(str(by_id["b"].official_website_amount)) == Decimal("0.45")
    assert Decimal(str(resp.official_website_amount)) == Decimal("150.45")
    # the local account's 20 % discount: `amount` is what it pays, `discount_amount` the difference
    assert Decimal(str(by_id["a"].amount)) == Decimal("120") and Decimal(str(by_id["a"].discount_amount)) == 30
    assert Decimal(str(resp.amount)) == Decimal("120.36") and Decimal(str(resp.discount_amount)) == Decimal("30.09")
    (discount,) = by_id["a"].discount_rating_results
    assert discount.discount_type == 605 and Decimal(str(discount.amount)) == 30
    assert resp.currency == "CNY" and by_id["a"].product_id
    assert bss.counters()["rate_on_demand"] == before + 1


def test_a_wrong_secret_key_is_refused_as_the_gateway_does(bss: RunningBilling) -> None:
    with pytest.raises(ClientRequestException) as err:
        _rate(_client(bss, sk="not-the-secret-key-of-this-access-key"), _product("a", "modelarts.vm.cpu.2u"))
    assert err.value.status_code == 401 and err.value.error_code == "APIGW.0301"


def test_a_spec_without_a_price_is_a_product_not_found(bss: RunningBilling) -> None:
    with pytest.raises(ClientRequestException) as err:
        _rate(_client(bss), _product("a", "no.such.billing.code"))
    assert err.value.status_code == 400 and err.value.error_code == "CBC.99006006"
    assert "no.such.billing.code" in err.value.error_msg


@pytest.mark.parametrize("field, product", [
    ("cloud_service_type hws.service.type.ecs", dict(service="hws.service.type.ecs")),
    ("resource_type hws.resource.type.vm", dict(resource="hws.resource.type.vm")),
    ("region xx-nowhere-1", dict(region="xx-nowhere-1")),
])
def test_another_service_type_resource_type_or_region_is_a_product_not_found(bss: RunningBilling, field: str,
                                                                              product: dict[str, str]) -> None:
    """BSS prices a product of a cloud service type, resource type and region: a wrong one is not found, named."""
    with pytest.raises(ClientRequestException) as err:
        _rate(_client(bss), _product("a", "modelarts.vm.cpu.2u"), _product("b", "modelarts.vm.cpu.2u", **product))
    assert err.value.status_code == 400 and err.value.error_code == "CBC.99006006"
    assert field in err.value.error_msg, err.value.error_msg


def test_another_usage_measure_is_a_measure_error(bss: RunningBilling) -> None:
    p = _product("a", "modelarts.vm.cpu.2u")
    p.usage_measure_id = 5
    with pytest.raises(ClientRequestException) as err:
        _rate(_client(bss), p)
    assert err.value.status_code == 400 and err.value.error_code == "CBC.99006050"


def test_a_fault_rule_changes_the_answer_of_its_spec_only(bss: RunningBilling) -> None:
    """The hook the product's tests use to make the service answer badly (a negative price, a foreign id)."""
    bss.set_faults([{"spec": "modelarts.vm.cpu.2u", "result": {"official_website_amount": -100, "id": "7"}}])
    try:
        resp = _rate(_client(bss), _product("a", "modelarts.vm.cpu.2u"), _product("b", "modelarts.vm.gpu.v100"))
    finally:
        bss.clear_faults()
    by_id = {r.id: r for r in resp.product_rating_results}
    assert set(by_id) == {"7", "b"} and Decimal(str(by_id["7"].official_website_amount)) == -100
    assert Decimal(str(by_id["b"].official_website_amount)) == Decimal("12.5")


def test_another_price_list(tmp_path: Path) -> None:
    prices = tmp_path / "prices.json"
    prices.write_text('{"currency": "EUR", "hourly": {"modelarts.vm.cpu.2u": 0.1}}')  # no discount, any region
    with running_billing(tmp_path, prices=str(prices)) as other:
        resp = _rate(_client(other), _product("a", "modelarts.vm.cpu.2u", "3", region="eu-de"))
    assert resp.currency == "EUR" and Decimal(str(resp.amount)) == Decimal("0.3")
    assert Decimal(str(resp.official_website_amount)) == Decimal("0.3")

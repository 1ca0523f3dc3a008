"""The local billing service speaks BSS's rating API: the official SDK (huaweicloudsdkbss) reads it, signing
with AK/SK as it does against the real service; a wrong key and an unpriced spec are refused in BSS's shape."""

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


def _product(pid: str, spec: str, hours: str = "1", num: int = 1) -> Any:
    return bss_v2.DemandProductInfo(id=pid, cloud_service_type=CLOUD_SERVICE_TYPE, resource_type=RESOURCE_TYPE,
                                    resource_spec=spec, region="cn-north-4", usage_factor="Duration",
                                    usage_value=Decimal(hours), usage_measure_id=MEASURE_HOUR, subscription_num=num)


def _rate(client: Any, *products: Any) -> Any:
    body = bss_v2.RateOnDemandReq(project_id="a1b2c3d4e5f60718293a4b5c6d7e8f90", product_infos=list(products))
    return client.list_on_demand_resource_ratings(bss_v2.ListOnDemandResourceRatingsRequest(body=body))


def test_the_official_sdk_reads_the_local_rating_api(bss: RunningBilling) -> None:
    before = bss.counters()["rate_on_demand"]
    resp = _rate(_client(bss), _product("a", "modelarts.vm.gpu.v100", "6", 2), _product("b", "modelarts.vm.cpu.2u"))
    by_id = {r.id: r for r in resp.product_rating_results}
    # 12.5 CNY per hour (billing_emulator/prices.json) x 6 h x 2; 0.45 x 1 h x 1
    assert Decimal(str(by_id["a"].amount)) == Decimal("150")
    assert Decimal(str(by_id["b"].amount)) == Decimal("0.45")
    assert Decimal(str(resp.amount)) == Decimal("150.45")
    assert resp.currency == "CNY" and by_id["a"].product_id
    assert bss.counters()["rate_on_demand"] == before + 1


def test_a_wrong_secret_key_is_refused_as_the_gateway_does(bss: RunningBilling) -> None:
    with pytest.raises(ClientRequestException) as err:
        _rate(_client(bss, sk="not-the-secret-key-of-this-access-key"), _product("a", "modelarts.vm.cpu.2u"))
    assert err.value.status_code == 401 and err.value.error_code == "APIGW.0301"


def test_a_spec_without_a_price_is_a_parameter_error(bss: RunningBilling) -> None:
    with pytest.raises(ClientRequestException) as err:
        _rate(_client(bss), _product("a", "no.such.billing.code"))
    assert err.value.status_code == 400 and err.value.error_code == "CBC.0100"
    assert "no.such.billing.code" in err.value.error_msg


def test_another_price_list(tmp_path: Path) -> None:
    prices = tmp_path / "prices.json"
    prices.write_text('{"currency": "EUR", "hourly": {"modelarts.vm.cpu.2u": 0.1}}')
    with running_billing(tmp_path, prices=str(prices)) as other:
        resp = _rate(_client(other), _product("a", "modelarts.vm.cpu.2u", "3"))
    assert resp.currency == "EUR" and Decimal(str(resp.amount)) == Decimal("0.3")

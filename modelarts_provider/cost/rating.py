"""A small client of the billing service's rating API (BSS ListOnDemandResourceRatings): the hourly price of
one unit of each product, in one request (the API takes up to 100 products per request).

Signed with AK/SK as the official SDK signs (client/signer.py). The billing service is global: one endpoint
per cloud (Huawei Cloud: https://bss.myhuaweicloud.com), set as `modelarts:billingEndpoint`.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from pydantic import SecretStr, ValidationError

from ..client.billing_models import (CLOUD_SERVICE_TYPE, MEASURE_HOUR, RATING_PATH, RESOURCE_TYPE,
                                     DemandProductInfo, ListOnDemandResourceRatingsResponse, RateOnDemandReq)

MAX_PRODUCTS = 100  # per request (RateOnDemandReq.product_infos)
TIMEOUT_S = 15.0


class RatingError(Exception):
    """Prices cannot be had; the message says why in a few words (never a key)."""


@dataclass(frozen=True)
class Product:
    spec: str      # the flavor's billing code (or a pool flavor's name)
    units: int     # billing units per node (the flavor's billing.unit_num)


@dataclass(frozen=True)
class HourlyRate:
    amount: Decimal  # for one node (its units) for one hour
    currency: str


def rate_hourly(endpoint: str, access_key: str, secret_key: SecretStr, security_token: SecretStr | None, *,
                region: str, project_id: str, products: list[Product],
                verify: bool | str = True) -> dict[str, HourlyRate]:
    """{spec: HourlyRate}: one request per 100 products. Raises RatingError."""
    # The HTTP stack here, not at the top: the stack program imports this module on every engine command and
    # sends a rating request only where a price is asked of the billing service (client/__init__.py).
    import requests

    from ..client.signer import SdkHmacAuth

    out: dict[str, HourlyRate] = {}
    auth = SdkHmacAuth(access_key, secret_key, security_token)
    for start in range(0, len(products), MAX_PRODUCTS):
        chunk = products[start:start + MAX_PRODUCTS]
        req = RateOnDemandReq(project_id=project_id, inquiry_precision=1, product_infos=[
            DemandProductInfo(id=str(i), cloud_service_type=CLOUD_SERVICE_TYPE, resource_type=RESOURCE_TYPE,
                              resource_spec=p.spec, region=region, usage_factor="Duration", usage_value=Decimal(1),
                              usage_measure_id=MEASURE_HOUR, subscription_num=p.units)
            for i, p in enumerate(chunk)])
        try:
            r = requests.post(endpoint + RATING_PATH, data=req.model_dump_json(exclude_none=True), auth=auth,
                              headers={"Content-Type": "application/json"}, timeout=TIMEOUT_S, verify=verify)
        except requests.RequestException as err:
            raise RatingError(f"the billing service at {endpoint} did not answer ({type(err).__name__})") from None
        if r.status_code != 200:
            try:
                body = r.json()
                why = f"{body.get('error_code')}: {body.get('error_msg')}"
            except ValueError:
                why = r.text[:200]
            raise RatingError(f"the billing service answered {r.status_code} ({why})")
        try:
            resp = ListOnDemandResourceRatingsResponse.model_validate_json(r.content)
        except ValidationError:
            raise RatingError("the billing service's answer is not a rating result") from None
        currency = resp.currency or "CNY"  # an empty currency is the yuan (the API reference)
        for res in resp.product_rating_results:
            out[chunk[int(res.id)].spec] = HourlyRate(res.amount, currency)
    return out

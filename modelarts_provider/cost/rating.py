"""A small client of the billing service's rating API (BSS ListOnDemandResourceRatings): the hourly price of
one unit of each product, in one request (the API takes up to 100 products per request).

Signed with AK/SK as the official SDK signs (client/signer.py). The billing service is global: one endpoint
per cloud (Huawei Cloud: https://bss.myhuaweicloud.com), set as `modelarts:billingEndpoint`.

Which price: each result carries `official_website_amount` (the SDK: "按需产品的官网价", the product's list
price), `amount` ("折扣的金额", after the account's discounts) and `discount_amount` (their difference). The
bound is read from the list price: a discount (a promotion, a commercial or partner discount) may end while a
job runs, and the bill is then at the list price, never above it; the discounted amount is kept beside it for
what it says, never used as the bound. An answer whose discounted amount exceeds its list price is bounded by
the higher of the two (docs/cost.md).

Every answer is checked before it is believed (issue 55): a result for an id the request did not carry, or two
for one, makes the whole answer untrustworthy (each of its products is refused); a price that is missing, not a
number, negative or in another unit than the yuan is refused for its product. A refused product has no price,
so a budget refuses the preview (fails closed) and a preview without one says why, naming the flavor.

The call runs through the project's Transport: one overall deadline (its retry budget plus one connect and
read timeout, or the earlier one of the scope it runs in) and the engine's Cancel (client/call_limits.py), as
every other API call: a server that drips its answer is cut at the deadline, not waited on per read.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from pydantic import BaseModel, ConfigDict, SecretStr, ValidationError

from ..client.billing_models import (CLOUD_SERVICE_TYPE, MEASURE_HOUR, MEASURE_YUAN, RATING_PATH, RESOURCE_TYPE,
                                     DemandProductInfo, RateOnDemandReq)

MAX_PRODUCTS = 100  # per request (RateOnDemandReq.product_infos)
# The ModelArts client's defaults (client/settings.py): one call ends within retry_total_s + connect + read.
CONNECT_TIMEOUT_S = 5.0
READ_TIMEOUT_S = 30.0
RETRY_TOTAL_S = 60.0
LIST_PRICE, DISCOUNTED = "official_website_amount", "amount"
_CURRENCY = re.compile(r"^[A-Z]{3}$")


class RatingError(Exception):
    """Prices cannot be had; the message says why in a few words (never a key)."""


@dataclass(frozen=True)
class Product:
    spec: str      # the flavor's billing code (or a pool flavor's name)
    units: int     # billing units per node (the flavor's billing.unit_num)


@dataclass(frozen=True)
class HourlyRate:
    amount: Decimal            # for one node (its units) for one hour: the list price, the bound's
    currency: str
    discounted: Decimal | None = None  # the account's price today (the answer's `amount`): shown, never a bound


@dataclass
class Rating:
    rates: dict[Product, HourlyRate] = field(default_factory=dict)
    refused: dict[Product, str] = field(default_factory=dict)  # product -> why its answer is not believed


class _Answer(BaseModel):
    """The answer's envelope only: each result is checked on its own (`_price`), so one bad result names its
    product instead of failing the whole answer."""

    model_config = ConfigDict(extra="ignore")
    currency: str | None = None
    product_rating_results: list[dict[str, Any]]


def _number(res: dict[str, Any], name: str) -> Decimal | str:
    """The amount `name` of a result, or why it is not one."""
    if name not in res or res[name] is None:
        return f"no {name}"
    raw = res[name]
    if isinstance(raw, bool) or not isinstance(raw, (int, float, str)):
        return f"{name} is not a number ({json.dumps(raw)[:40]})"
    try:
        value = Decimal(str(raw).strip())
    except InvalidOperation:
        return f"{name} is not a number ({json.dumps(raw)[:40]})"
    if not value.is_finite():
        return f"{name} is not a number ({json.dumps(raw)[:40]})"
    if value < 0:
        return f"a negative price ({name} {raw})"
    return value


def _price(res: dict[str, Any], currency: str) -> HourlyRate | str:
    """The hourly rate a result gives, or why it is refused."""
    measure = res.get("measure_id", MEASURE_YUAN)
    if measure != MEASURE_YUAN:
        return f"a price in another unit than the yuan (measure_id {json.dumps(measure)[:20]})"
    listed = _number(res, LIST_PRICE)
    if isinstance(listed, str):
        return listed
    discounted = _number(res, DISCOUNTED)
    if isinstance(discounted, str):
        return discounted
    return HourlyRate(max(listed, discounted), currency, discounted)


def _check(answer: _Answer, chunk: list[Product]) -> Rating:
    """Each product of one request with its rate or why it is refused."""
    out = Rating()
    ids = {str(i): p for i, p in enumerate(chunk)}
    currency = answer.currency or "CNY"  # an empty currency is the yuan (the API reference)
    seen: dict[str, dict[str, Any]] = {}
    mismatch = None
    if not _CURRENCY.match(currency):
        mismatch = f"its currency is not one ({json.dumps(answer.currency)[:20]})"
    for res in answer.product_rating_results:
        rid = res.get("id")
        if not isinstance(rid, str) or rid not in ids:
            mismatch = f"a result for id {json.dumps(rid)[:20]}, which the request did not ask for"
        elif rid in seen:
            mismatch = f"two results for id {rid}"
        else:
            seen[rid] = res
    if mismatch is not None:  # which result is whose cannot be told: none is believed
        why = f"the billing service's answer does not match its request ({mismatch})"
        out.refused = {p: why for p in chunk}
        return out
    for rid, product in ids.items():
        if rid not in seen:
            continue  # no result: the caller says the service returned no price for it
        rate = _price(seen[rid], currency)
        if isinstance(rate, str):
            out.refused[product] = f"the billing service answered {rate} for it"
        else:
            out.rates[product] = rate
    return out


def rate_hourly(endpoint: str, access_key: str, secret_key: SecretStr, security_token: SecretStr | None, *,
                region: str, project_id: str, products: list[Product], verify: bool | str = True,
                retry_total_s: float = RETRY_TOTAL_S, connect_timeout: float = CONNECT_TIMEOUT_S,
                read_timeout: float = READ_TIMEOUT_S) -> Rating:
    """Each product's hourly rate (or why it has none): one request per 100 products. Raises RatingError when
    the service cannot be asked or its answer is not a rating result."""
    # The HTTP stack here, not at the top: the stack program imports this module on every engine command and
    # sends a rating request only where a price is asked of the billing service (client/__init__.py).
    import requests

    from ..client.signer import SdkHmacAuth
    from ..client.transport import CallCut, RetryPolicy, Transport

    unique = list(dict.fromkeys(products))  # two flavors of one billing code and unit count: one product
    out = Rating()
    auth = SdkHmacAuth(access_key, secret_key, security_token)
    transport = Transport(verify=verify, connect_timeout=connect_timeout, read_timeout=read_timeout,
                          retry=RetryPolicy(total_s=retry_total_s))
    try:
        for start in range(0, len(unique), MAX_PRODUCTS):
            chunk = unique[start:start + MAX_PRODUCTS]
            req = RateOnDemandReq(project_id=project_id, inquiry_precision=1, product_infos=[
                DemandProductInfo(id=str(i), cloud_service_type=CLOUD_SERVICE_TYPE, resource_type=RESOURCE_TYPE,
                                  resource_spec=p.spec, region=region, usage_factor="Duration",
                                  usage_value=Decimal(1), usage_measure_id=MEASURE_HOUR, subscription_num=p.units)
                for i, p in enumerate(chunk)])
            try:
                # A rating changes nothing: retried as a read (throttling, 5xx, resets) within the budget.
                r = transport.request("POST", endpoint + RATING_PATH, auth=auth, idempotent=True,
                                      json_body=json.loads(req.model_dump_json(exclude_none=True)))
            except CallCut as err:
                raise RatingError(f"the billing service at {endpoint} "
                                  + (f"did not finish its answer within {err.seconds:.3g} s (the call's deadline)"
                                     if err.why == "deadline" else "was not waited for (cancelled)")) from None
            except requests.RequestException as err:
                raise RatingError(f"the billing service at {endpoint} did not answer ({type(err).__name__})") \
                    from None
            if r.status_code != 200:
                try:
                    body = r.json()
                    why = f"{body.get('error_code')}: {body.get('error_msg')}"
                except (ValueError, AttributeError):
                    why = " ".join(r.text[:200].split())
                raise RatingError(f"the billing service answered {r.status_code} ({why})")
            try:
                answer = _Answer.model_validate_json(r.content)
            except ValidationError:
                raise RatingError("the billing service's answer is not a rating result") from None
            checked = _check(answer, chunk)
            out.rates.update(checked.rates)
            out.refused.update(checked.refused)
    finally:
        transport.close()
    return out

"""The local billing service: BSS's rating API for pay-per-use resources over real HTTP.

- ``POST /v2/bills/ratings/on-demand-resources`` (ListOnDemandResourceRatings): each product's
  ``official_website_amount`` is its hourly list price (prices.json, by ``resource_spec``) x ``usage_value``
  hours x ``subscription_num``; its ``amount`` is that less the local account's discount
  (``accountDiscountPercent``, one commercial discount, BSS type 605, listed in ``discount_rating_results``), and
  ``discount_amount`` their difference, as the SDK documents them. Signed with AK/SK as the gateway checks it
  (local_cloud/gateway_signature.py: the local gateway's verifier, written from the signing guide, not the
  product's signer, so a mistake in that signer is refused here instead of agreeing with itself).
- ``/_billing/counters`` (GET) and ``/_billing/reset`` (POST): how many ratings were asked, for tests (a reset
  clears the faults too).
- ``/_billing/faults`` (POST ``{"rules": [{"spec", "result"}]}``, DELETE): a bad answer on purpose, for tests: the
  result of each product of ``spec`` gets the fields of ``result`` (``null``: the field is left out), e.g.
  ``{"official_website_amount": -100}`` or ``{"id": "7"}``.

Errors are BSS's body ``{"error_code", "error_msg"}`` with its documented codes (the API reference's error
table): 401 APIGW.0301 for a bad signature; 400 CBC.0100 (parameter error) for a body that is not a
RateOnDemandReq; 400 CBC.99006006 (product not found) for a cloud service type, resource type, region or spec
this service has no price for; 400 CBC.99006050 (usage measure error) for another measure than the hour.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import threading
import uuid
from dataclasses import dataclass
from datetime import datetime, timezone
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError

from local_cloud import gateway_signature
from local_cloud.server import AppHandler, LocalHTTPServer
from modelarts_provider.client.billing_models import (CLOUD_SERVICE_TYPE, MEASURE_HOUR, RATING_PATH, RESOURCE_TYPE,
                                                      DemandProductInfo, DemandProductRatingResult,
                                                      ListOnDemandResourceRatingsResponse, RateOnDemandReq)

from .config import CONTROL_PREFIX, BillingConfig


class FaultRule(BaseModel):
    """The result of every product of `spec` gets `result`'s fields (None: left out)."""

    model_config = ConfigDict(extra="forbid")
    spec: str
    result: dict[str, Any]


class _Faults(BaseModel):
    model_config = ConfigDict(extra="forbid")
    rules: list[FaultRule]


_FAULTS = TypeAdapter(_Faults)


class BillingError(Exception):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


# What this service rates: ModelArts training (a training flavor's billing code, a pool flavor's name).
SERVICE_TYPES = {CLOUD_SERVICE_TYPE: (RESOURCE_TYPE,)}
NOT_FOUND = "CBC.99006006"  # the API reference: "产品未发现" (product not found)
MEASURE_ERROR = "CBC.99006050"  # "使用量单位错误" (usage measure error)
DISCOUNT_TYPE = 605  # a commercial discount (商务授权折扣), as the SDK's DemandDiscountRatingResult lists


@dataclass(frozen=True)
class PriceList:
    currency: str
    hourly: dict[str, Decimal]  # list price per hour and unit, by resource_spec
    discount_percent: Decimal = Decimal(0)  # the local account's discount off every list price
    regions: frozenset[str] | None = None  # None: every region is priced alike


def load_prices(cfg: BillingConfig) -> PriceList:
    data = json.loads(cfg.prices.read_text())
    regions = data.get("regions")
    return PriceList(data.get("currency", "CNY"), {k: Decimal(str(v)) for k, v in data["hourly"].items()},
                     Decimal(str(data.get("accountDiscountPercent", 0))),
                     frozenset(regions) if regions is not None else None)


def _product_id(spec: str) -> str:
    """A stable id per priced product (the service's product ids are opaque)."""
    return "OFFI" + hashlib.sha256(spec.encode()).hexdigest()[:16]


class BillingApp:
    def __init__(self, config: BillingConfig) -> None:
        self.config = config
        self.prices = load_prices(config)
        self._lock = threading.Lock()
        self.counters: dict[str, int] = {"rate_on_demand": 0, "total": 0}
        self.faults: list[FaultRule] = []

    def authenticate(self, method: str, raw_path: str, raw_query: str, headers: dict[str, str],
                     body: bytes) -> None:
        cfg = self.config
        try:
            gateway_signature.verify(method, raw_path, raw_query, headers, body,
                                     lambda ak: cfg.secret_key if secrets.compare_digest(ak, cfg.access_key) else None,
                                     now=datetime.now(timezone.utc), max_skew_s=cfg.max_clock_skew_seconds)
        except gateway_signature.SignatureRefused as exc:
            raise BillingError(401, "APIGW.0301", f"Incorrect IAM authentication information: {exc}") from None
        if not gateway_signature.declared_hash_is_honest(headers, body):
            raise BillingError(401, "APIGW.0301", "Incorrect IAM authentication information: X-Sdk-Content-Sha256 "
                                                  "is not the body's hash")
        token = {k.lower(): v for k, v in headers.items()}.get("x-security-token")
        if token != cfg.security_token:
            raise BillingError(401, "APIGW.0301", "Incorrect IAM authentication information: security token")

    # --- actions: one thin method each ----------------------------------------------------------------

    def _check_product(self, p: DemandProductInfo) -> Decimal:
        """The hourly list price of one product, or BSS's refusal naming the field."""
        types = SERVICE_TYPES.get(p.cloud_service_type)
        if types is None:
            raise BillingError(400, NOT_FOUND, f"Product not found: cloud_service_type {p.cloud_service_type} (this "
                                               f"service rates {', '.join(SERVICE_TYPES)})")
        if p.resource_type not in types:
            raise BillingError(400, NOT_FOUND, f"Product not found: resource_type {p.resource_type} of "
                                               f"{p.cloud_service_type} (this service rates {', '.join(types)})")
        if self.prices.regions is not None and p.region not in self.prices.regions:
            raise BillingError(400, NOT_FOUND, f"Product not found: region {p.region}: no pay-per-use price there")
        if p.usage_measure_id != MEASURE_HOUR:
            raise BillingError(400, MEASURE_ERROR, f"Invalid usage measure: usage_measure_id {p.usage_measure_id} "
                                                   f"(this service rates hours: {MEASURE_HOUR})")
        price = self.prices.hourly.get(p.resource_spec)
        if price is None:
            raise BillingError(400, NOT_FOUND, f"Product not found: resource_spec {p.resource_spec}: "
                                               "no pay-per-use price")
        return price

    def rate_on_demand(self, body: bytes) -> dict[str, Any]:
        try:
            req = RateOnDemandReq.model_validate_json(body or b"{}")
        except ValidationError as e:
            first = e.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise BillingError(400, "CBC.0100", f"Invalid parameter: {where}: {first['msg']}") from None
        places = Decimal(10) ** -(10 if req.inquiry_precision == 1 else 6)
        off = self.prices.discount_percent / 100
        results = []
        for p in req.product_infos:
            listed = (self._check_product(p) * p.usage_value * p.subscription_num).quantize(places, ROUND_HALF_UP)
            discount = (listed * off).quantize(places, ROUND_HALF_UP)
            results.append(DemandProductRatingResult(
                id=p.id, product_id=_product_id(p.resource_spec), amount=listed - discount, discount_amount=discount,
                official_website_amount=listed,
                discount_rating_results=[{"discount_id": "local-account-discount", "discount_type": DISCOUNT_TYPE,
                                          "amount": discount, "measure_id": 1,
                                          "discount_name": "local account discount"}] if discount else []))
        total = sum((r.amount for r in results), Decimal(0))
        listed_total = sum((r.official_website_amount or Decimal(0) for r in results), Decimal(0))
        answer = ListOnDemandResourceRatingsResponse(
            amount=total, discount_amount=listed_total - total, official_website_amount=listed_total,
            currency=self.prices.currency, product_rating_results=results).model_dump(exclude_none=True)
        specs = [p.resource_spec for p in req.product_infos]
        with self._lock:
            faults = list(self.faults)
        for rule in faults:  # a bad answer on purpose (tests): the results of the rule's spec, changed
            for spec, res in zip(specs, answer["product_rating_results"]):
                if spec == rule.spec:
                    for k, v in rule.result.items():
                        if v is None:
                            res.pop(k, None)
                        else:
                            res[k] = v
        return answer

    # --- routing ----------------------------------------------------------------------------------------

    def dispatch(self, method: str, raw_path: str, raw_query: str, headers: dict[str, str],
                 body: bytes) -> tuple[int, Any]:
        if raw_path.startswith(CONTROL_PREFIX + "/"):
            return self.control(method, raw_path[len(CONTROL_PREFIX) + 1:], body)
        try:
            if raw_path.rstrip("/") != RATING_PATH or method != "POST":
                raise BillingError(404, "APIGW.0101", "The API does not exist or has not been published")
            with self._lock:
                self.counters["rate_on_demand"] += 1
                self.counters["total"] += 1
            self.authenticate(method, raw_path, raw_query, headers, body)
            return 200, self.rate_on_demand(body)
        except BillingError as err:
            return err.status, {"error_code": err.code, "error_msg": err.message}

    def control(self, method: str, name: str, body: bytes = b"") -> tuple[int, Any]:
        with self._lock:
            if name == "counters" and method == "GET":
                return 200, dict(self.counters)
            if name == "reset" and method == "POST":
                self.counters = {k: 0 for k in self.counters}
                self.faults = []
                return 200, {}
            if name == "faults" and method == "POST":
                try:
                    self.faults = _FAULTS.validate_json(body or b"{}").rules
                except ValidationError as e:
                    return 400, {"error": f"faults: {e.errors()[0]['msg']}"}
                return 200, {}
            if name == "faults" and method == "DELETE":
                self.faults = []
                return 200, {}
        return 404, {"error": f"no control {name}"}


class Handler(AppHandler):
    server_version = "BillingEmulator/1.0"

    def _handle(self) -> None:
        app: BillingApp = self.server.app  # type: ignore[attr-defined]
        status, reply = app.dispatch(self.command, *self.request_parts())
        payload = json.dumps(reply, default=float).encode()  # amounts as JSON numbers, as BSS
        self.send_response(status)
        self.send_header("Content-Type", "application/json;charset=UTF-8")
        self.send_header("Content-Length", str(len(payload)))
        self.send_header("X-Request-Id", uuid.uuid4().hex)
        self.end_headers()
        self.wfile.write(payload)

    do_GET = do_POST = do_PUT = do_DELETE = _handle


class BillingServer(LocalHTTPServer):
    def __init__(self, config: BillingConfig) -> None:
        self.app = BillingApp(config)
        super().__init__((config.host, config.port), Handler)

"""The local billing service: BSS's rating API for pay-per-use resources over real HTTP.

- ``POST /v2/bills/ratings/on-demand-resources`` (ListOnDemandResourceRatings): each product's amount is its
  hourly list price (prices.json, by ``resource_spec``) x ``usage_value`` hours x ``subscription_num``; no
  discounts (discount_amount 0, the official website amount is the amount). Signed with AK/SK as the gateway
  checks it (modelarts_provider.client.signer.verify_request).
- ``/_billing/counters`` (GET) and ``/_billing/reset`` (POST): how many ratings were asked, for tests.

Errors are BSS's body ``{"error_code", "error_msg"}``: 401 APIGW.0301 for a bad signature, 400 CBC.0100 (BSS's
parameter error) for a body that is not a RateOnDemandReq or a spec without a price.
"""

from __future__ import annotations

import hashlib
import json
import threading
import uuid
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from pydantic import ValidationError

from local_cloud.server import AppHandler, LocalHTTPServer
from modelarts_provider.client import signer
from modelarts_provider.client.billing_models import (MEASURE_HOUR, RATING_PATH, DemandProductRatingResult,
                                                      ListOnDemandResourceRatingsResponse, RateOnDemandReq)

from .config import CONTROL_PREFIX, BillingConfig


class BillingError(Exception):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def load_prices(cfg: BillingConfig) -> tuple[str, dict[str, Decimal]]:
    data = json.loads(cfg.prices.read_text())
    return data.get("currency", "CNY"), {k: Decimal(str(v)) for k, v in data["hourly"].items()}


def _product_id(spec: str) -> str:
    """A stable id per priced product (the service's product ids are opaque)."""
    return "OFFI" + hashlib.sha256(spec.encode()).hexdigest()[:16]


class BillingApp:
    def __init__(self, config: BillingConfig) -> None:
        self.config = config
        self.currency, self.hourly = load_prices(config)
        self._lock = threading.Lock()
        self.counters: dict[str, int] = {"rate_on_demand": 0, "total": 0}

    def authenticate(self, method: str, raw_path: str, raw_query: str, headers: dict[str, str],
                     body: bytes) -> None:
        cfg = self.config
        try:
            signer.verify_request(method, raw_path, raw_query, headers, body,
                                  lambda ak: cfg.secret_key if ak == cfg.access_key else None,
                                  max_skew_s=cfg.max_clock_skew_seconds)
        except signer.SignatureError as exc:
            raise BillingError(401, "APIGW.0301", f"Incorrect IAM authentication information: {exc}") from None
        token = {k.lower(): v for k, v in headers.items()}.get("x-security-token")
        if token != cfg.security_token:
            raise BillingError(401, "APIGW.0301", "Incorrect IAM authentication information: security token")

    # --- actions: one thin method each ----------------------------------------------------------------

    def rate_on_demand(self, body: bytes) -> dict[str, Any]:
        try:
            req = RateOnDemandReq.model_validate_json(body or b"{}")
        except ValidationError as e:
            first = e.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise BillingError(400, "CBC.0100", f"Invalid parameter: {where}: {first['msg']}") from None
        places = Decimal(10) ** -(10 if req.inquiry_precision == 1 else 6)
        results = []
        for p in req.product_infos:
            if p.usage_measure_id != MEASURE_HOUR:
                raise BillingError(400, "CBC.0100", f"Invalid parameter: usage_measure_id {p.usage_measure_id} "
                                                    f"(this service rates hours: {MEASURE_HOUR})")
            price = self.hourly.get(p.resource_spec)
            if price is None:
                raise BillingError(400, "CBC.0100", f"Invalid parameter: resource_spec {p.resource_spec}: "
                                                    "no pay-per-use price")
            amount = (price * p.usage_value * p.subscription_num).quantize(places, ROUND_HALF_UP)
            results.append(DemandProductRatingResult(id=p.id, product_id=_product_id(p.resource_spec),
                                                     amount=amount, official_website_amount=amount))
        total = sum((r.amount for r in results), Decimal(0))
        return ListOnDemandResourceRatingsResponse(
            amount=total, official_website_amount=total, currency=self.currency,
            product_rating_results=results).model_dump(exclude_none=True)

    # --- routing ----------------------------------------------------------------------------------------

    def dispatch(self, method: str, raw_path: str, raw_query: str, headers: dict[str, str],
                 body: bytes) -> tuple[int, Any]:
        if raw_path.startswith(CONTROL_PREFIX + "/"):
            return self.control(method, raw_path[len(CONTROL_PREFIX) + 1:])
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

    def control(self, method: str, name: str) -> tuple[int, Any]:
        with self._lock:
            if name == "counters" and method == "GET":
                return 200, dict(self.counters)
            if name == "reset" and method == "POST":
                self.counters = {k: 0 for k in self.counters}
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

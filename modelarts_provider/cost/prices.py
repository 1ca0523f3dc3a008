"""The price of a node-hour per flavor: the stack's `prices:` table first, else the billing service.

For the billing service, a training flavor's billing code (``billing: {code, unit_num}``, from the
service's public flavor list) is rated for one hour; a dedicated pool's flavor is rated by its name. Read
once per program run (a preview or an up) for every flavor the stack uses together: two reads in all (the
flavor list, one rating request), never one per job. A price that cannot be had is recorded with why.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from decimal import Decimal

from ..client import call_limits
from ..core.provider_config import ProviderSettings
from ..wait_engine.cancel import cancelled
from .config import FlavorPrice
from .rating import Product, RatingError, rate_hourly

# Where prices come from when `modelarts:billingEndpoint` is not set but the stack asks for prices (a budget
# or a prices table that misses a flavor).
HUAWEICLOUD_BSS = "https://bss.myhuaweicloud.com"
# A cloud without a rating API this provider reads: why, in the one line that says a price cannot be had.
# OTC's public price API (https://calculator.otc-service.com/en/open-telekom-price-api/, documented at
# docs.otc.t-systems.com/price-calculator/api-ref) lists prices per service (ecs, cce, obs, ...): no ModelArts
# service and no billing code of a training flavor to ask it by, so it is not read (docs/cost.md).
NO_PRICE_API = {"otc": "Open Telekom Cloud's price API lists no ModelArts training flavor"}


@dataclass(frozen=True)
class Price:
    per_node_hour: Decimal  # the bound's: a table's price, or the billing service's list price (rating.py)
    currency: str
    source: str  # "prices table" | "billing service"
    discounted: Decimal | None = None  # the billing service's price after the account's discounts: never a bound


@dataclass
class PriceBook:
    prices: dict[str, Price] = field(default_factory=dict)
    missing: dict[str, str] = field(default_factory=dict)  # flavor -> why it has no price

    def notes(self) -> list[str]:
        """One line per reason (a failed read is said once, not once per flavor)."""
        by_reason: dict[str, list[str]] = {}
        for flavor, why in sorted(self.missing.items()):
            by_reason.setdefault(why, []).append(flavor)
        return [f"cost: no price for {', '.join(flavors)}: {why}; set modelarts-jobs:prices.<flavor>."
                f"perNodeHour to give one" for why, flavors in by_reason.items()]


_cache: dict[tuple[object, ...], PriceBook] = {}
_lock = threading.Lock()


def billing_endpoint(settings: ProviderSettings) -> str | None:
    """The billing service to ask: the one set, else Huawei Cloud's own, unless ModelArts is another endpoint
    (the local one, a proxy): its prices are not the public cloud's to guess."""
    if settings.billing_endpoint:
        return settings.billing_endpoint
    return HUAWEICLOUD_BSS if settings.cloud == "huaweicloud" and settings.endpoint is None else None


def price_book(settings: ProviderSettings, table: dict[str, FlavorPrice], training: set[str],
               pool_flavors: set[str]) -> PriceBook:
    """Prices of the training flavors (public pools) and the pool flavors (pools the stack creates)."""
    key = (settings.billing_endpoint, settings.region, settings.endpoint, tuple(sorted(training)),
           tuple(sorted(pool_flavors)), tuple(sorted((k, v.per_node_hour, v.currency) for k, v in table.items())))
    with _lock:  # per process: a program run asks once
        if key not in _cache:
            _cache[key] = _lookup(settings, table, training, pool_flavors)
        return _cache[key]


def _lookup(settings: ProviderSettings, table: dict[str, FlavorPrice], training: set[str],
            pool_flavors: set[str]) -> PriceBook:
    book = PriceBook()
    for flavor in training | pool_flavors:
        if flavor in table:
            t = table[flavor]
            book.prices[flavor] = Price(Decimal(str(t.per_node_hour)), t.currency, "prices table")
    ask_training = sorted(training - set(book.prices))
    ask_pools = sorted(pool_flavors - set(book.prices))
    if not ask_training and not ask_pools:
        return book
    endpoint = billing_endpoint(settings)
    if endpoint is None:
        why = (NO_PRICE_API.get(settings.cloud, f"{settings.cloud}'s price API is not read by this provider")
               if settings.cloud != "huaweicloud" else "modelarts:endpoint is set but modelarts:billingEndpoint is not")
        for f in ask_training + ask_pools:
            book.missing[f] = why
        return book
    if settings.access_key is None or settings.secret_key is None:
        for f in ask_training + ask_pools:
            book.missing[f] = "the billing service needs AK/SK credentials (modelarts:accessKey)"
        return book
    products: dict[str, Product] = {f: Product(f, 1) for f in ask_pools}
    if ask_training:
        try:
            codes = _billing_codes(settings)
        except Exception as err:  # any failure to read the flavor list: said once, the preview goes on
            why = f"the flavor list cannot be read ({type(err).__name__}: {str(err)[:120]})"
            for f in ask_training:
                book.missing[f] = why
            codes = {}
        for f in ask_training:
            if f in codes:
                products[f] = codes[f]
            elif f not in book.missing:
                book.missing[f] = "the service's flavor list gives it no billing code"
    if not products:
        return book
    try:
        # Under the engine's Cancel as every other call (client/call_limits.py): the plugin checks a resource on
        # a thread of its own, where a Ctrl-C reaches this process as the engine's Cancel, not as a signal.
        with call_limits.limits(abort=cancelled):
            rating = rate_hourly(endpoint, settings.access_key, settings.secret_key, settings.security_token,
                                 region=settings.region, project_id=settings.project_id,
                                 products=list(products.values()), verify=settings.ca_bundle or settings.verify_tls,
                                 retry_total_s=settings.retry_timeout_seconds)
    except RatingError as err:
        for f in products:
            book.missing[f] = str(err)
        return book
    for f, product in products.items():
        rate = rating.rates.get(product)
        if product in rating.refused:
            book.missing[f] = rating.refused[product]
        elif rate is None:
            book.missing[f] = "the billing service returned no price for it"
        else:
            book.prices[f] = Price(rate.amount, rate.currency, "billing service", rate.discounted)
    return book


def _billing_codes(settings: ProviderSettings) -> dict[str, Product]:
    """{flavor id: its billing product} from the public flavor list (one read)."""
    from ..client import ModelArtsClient

    with ModelArtsClient(settings.to_client_settings()) as client:
        flavors = client.list_training_flavors().flavors
    return {f.flavor_id: Product(f.billing.code, f.billing.unit_num or 1)
            for f in flavors if f.flavor_id and f.billing is not None and f.billing.code}

"""The plugin door's cost (YAML, TypeScript, Go programs): a line per TrainingJob about to be submitted and per
ResourcePool about to be created or rescaled, the running total, and the provider's budget (`modelarts:budget`).

The engine checks a program's resources one at a time, each through the one plugin process of its provider, and
tells the provider nothing of the program as a whole: so this process keeps what it has checked in this run
(a `Tally`) and says, under each resource, its line and the total of every resource checked so far; the last
resource's total is the program's. A budget is held the same way: the check of the resource that takes the
total above it fails, naming that total and the three largest items, so the preview fails before anything is
created. Prices come from the provider's own table (`modelarts:prices`, per flavor: contract prices, another
currency, Open Telekom Cloud whose price API has no ModelArts), else the billing service
(`modelarts:billingEndpoint`), once per flavor and process. A job's bound is the service's own limit
(`autoStop`), which a job waited for until it completes (`waitFor: completed`, `waitTimeoutSeconds`) gets from
its deadline, rounded up to whole hours, in the TrainingJob provider's check
(training_job/service_limit.with_service_limit: the same code as the stack program's jobs), so the service stops
it even when no process of ours runs.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from pydantic import TypeAdapter, ValidationError

from ..core.failures import format_loc
from ..core.messages import explain
from ..core.provider_config import ProviderSettings
from ..core.unknowns import is_unknown
from ..training_job.service_limit import WAIT_FOR_DEFAULT, WAIT_TIMEOUT_DEFAULT
from .items import Item, pool_item, search_detail, total_lines
from .budget import refusal
from .config import COST_MODEL_NAMES, BudgetConfig, FlavorPrice
from .enforced import bound_of
from .prices import PriceBook, price_book

WHERE = "modelarts:budget"
PRICES_WHERE = "modelarts:prices"
TRIALS_KEY, PARALLEL_KEY = "num_samples", "max_concurrent"  # the search algorithm's params (stack/search_config.py)
PRICE_FIX = ("set modelarts:prices.<flavor>.perNodeHour to give one, or modelarts:billingEndpoint to a billing "
             "service that prices it")
_PRICES_TABLE: Any = TypeAdapter(dict[str, FlavorPrice])


class BudgetError(ValueError):
    """`modelarts:budget` or `modelarts:prices` is not one: one line naming the field."""


def _config_map(raw: Any, where: str, shape: str) -> Any:
    """A map of the provider's config: an object, or its JSON text as older engines send it; None when unset."""
    if raw is None or raw == "":
        return None
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError:
            raise BudgetError(f"{where}: must be a map {shape}, not {raw!r}") from None
    return raw


def _refused(err: ValidationError, where: str) -> BudgetError:
    loc, reason = explain(err.errors(), COST_MODEL_NAMES)[0]  # in words, as the stack config's refusals
    return BudgetError(f"{where}{'.' + format_loc(loc) if loc else ''}: {reason}")


def parse_budget(raw: Any) -> BudgetConfig | None:
    """`modelarts:budget: {max, currency, poolHours}`."""
    raw = _config_map(raw, WHERE, "{max, currency, poolHours}")
    if raw is None:
        return None
    if isinstance(raw, dict) and isinstance(raw.get("max"), float) and raw["max"].is_integer():
        raw = {**raw, "max": int(raw["max"])}  # the engine sends numbers as floats
    try:
        return BudgetConfig.model_validate(raw)
    except ValidationError as err:
        raise _refused(err, WHERE) from None


def parse_prices(raw: Any) -> dict[str, FlavorPrice]:
    """`modelarts:prices: {<flavor>: {perNodeHour, currency}}`: the same table as the stack's `prices:`."""
    raw = _config_map(raw, PRICES_WHERE, "{<flavor>: {perNodeHour, currency}}")
    if raw is None:
        return {}
    try:
        return _PRICES_TABLE.validate_python(raw)  # type: ignore[no-any-return]
    except ValidationError as err:
        raise _refused(err, PRICES_WHERE) from None


def _search_detail(inputs: dict[str, Any]) -> str:
    """'a search: every trial in this job, 8 trials, 2 at once' for a job with the service's search."""
    policies = (inputs.get("algorithm") or {}).get("policies") if isinstance(inputs.get("algorithm"), dict) else None
    search = policies.get("auto_search") if isinstance(policies, dict) else None
    if not isinstance(search, dict):
        return ""
    params = {p.get("key"): p.get("value") for c in search.get("algo_configs") or [] if isinstance(c, dict)
              for p in c.get("params") or [] if isinstance(p, dict)}
    return search_detail(params.get(TRIALS_KEY), params.get(PARALLEL_KEY))


def job_items(name: str, inputs: dict[str, Any], book: PriceBook | None) -> list[Item]:
    """The item of a TrainingJob (none while its flavor or node count is another resource's unknown output)."""
    flavor, pool, nodes = inputs.get("flavor_id"), inputs.get("pool_id"), inputs.get("node_count") or 1
    if not isinstance(flavor, str) or is_unknown(flavor) or not isinstance(nodes, int):
        return []
    detail = _search_detail(inputs)
    kind = "search" if detail else "job"
    if pool:  # a ResourcePool's id is not known at its first preview: the pool's own line prices it
        shown = "a pool not known yet" if is_unknown(pool) else f"dedicated pool {pool}"
        return [Item(name, kind, name, 1, nodes, None, None, None, billed_by=shown)]
    wait_s = inputs.get("wait_timeout_seconds", WAIT_TIMEOUT_DEFAULT)
    b = bound_of(inputs.get("wait_for", WAIT_FOR_DEFAULT), wait_s if isinstance(wait_s, (int, float)) else None,
                 inputs.get("auto_stop"), bool(detail))
    return [Item(name, kind, name, 1, nodes, b.hours, flavor, book.prices.get(flavor) if book else None,
                 detail=detail, bound_field=f"{name}'s autoStop: {{duration: N}} (hours), or waitFor: completed with "
                                            f"{name}'s waitTimeoutSeconds", enforcement=b.note())]


def pool_items(name: str, inputs: dict[str, Any], book: PriceBook | None,
               pool_hours: float | None) -> list[Item]:
    """One item per flavor of a ResourcePool: its nodes bill every hour the pool exists."""
    hours = Decimal(str(pool_hours)) if pool_hours is not None else None
    rows = [r for r in inputs.get("resources") or [] if isinstance(r, dict) and isinstance(r.get("flavor"), str)
            and not is_unknown(r["flavor"]) and isinstance(r.get("count"), int)]
    return [pool_item(name if len(rows) == 1 else f"{name} ({r['flavor']})", name, r["count"], hours, r["flavor"],
                      book.prices.get(r["flavor"]) if book else None, "this program creates it",
                      f"{WHERE}.poolHours to bound it") for r in rows]


@dataclass
class Tally:
    """What this provider process has checked in this run, its budget and its prices table."""

    budget: BudgetConfig | None = None
    prices: dict[str, FlavorPrice] = field(default_factory=dict)
    _items: dict[str, list[Item]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def say(self, resource: str, found: list[Item], book: PriceBook | None) -> tuple[list[str], str | None]:
        """The lines to say under this resource (notes on missing prices, its items, the total so far) and the
        budget's refusal, or None. A resource checked again replaces its items."""
        with self._lock:
            self._items[resource] = found
            every = [it for items in self._items.values() for it in items]
            count = len(self._items)
        notes = [n.replace("set modelarts-jobs:prices.<flavor>.perNodeHour to give one", PRICE_FIX)
                 .replace("modelarts-jobs:prices", PRICES_WHERE) for n in (book.notes() if book else [])]
        lines = notes + [f"cost: {it.line()}" for it in found]
        so_far = f" ({count} resource{'s' if count != 1 else ''} of this provider checked so far)"
        lines += [f"cost: {t}{so_far}" for t in total_lines(every)]
        refused = refusal(self.budget, every, WHERE, "the resources checked so far", PRICE_FIX) \
            if self.budget is not None else None
        return lines, refused


def price_for(settings: ProviderSettings | None, training: set[str], pools: set[str], tally: Tally) -> PriceBook | None:
    """Prices when asked for (a billing endpoint, a budget or a prices table), the table's first, once per flavor
    set and process; None: not asked."""
    if settings is None or not (settings.billing_endpoint or tally.budget is not None or tally.prices):
        return None
    return price_book(settings, tally.prices, training, pools)

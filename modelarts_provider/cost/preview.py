"""At preview (and up), before anything is declared: the cost lines and the budget's verdict.

Prices are read only where the stack asks for them (`modelarts:billingEndpoint`, a `prices:` table or a
`budget:`): the billing API needs the account's billing permission, and an unchanged stack without them
keeps making no API call at preview.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..core.provider_config import ProviderSettings
from .items import total_lines
from .stack_cost import items
from .budget import first_refusal
from .config import ItemBudget
from .prices import PriceBook, price_book
from .recorded import recorded
from .shapes import CostedPlan, CostedStack
from .still_bills import spent_keys


def wanted(cfg: CostedStack, settings: ProviderSettings) -> bool:
    return bool(settings.billing_endpoint or cfg.prices or cfg.budget is not None or own_budgets(cfg))


def own_budgets(cfg: CostedStack) -> dict[str, ItemBudget]:
    """The sweeps' and searches' own budgets, by key (a sweep's and a job's keys are one namespace)."""
    out = {k: s.budget for k, s in cfg.sweeps.items() if s.budget is not None}
    out.update({k: j.search.budget for k, j in cfg.jobs.items() if j.search is not None and j.search.budget is not None})
    return out


@dataclass(frozen=True)
class CostPreview:
    lines: list[str] = field(default_factory=list)  # notes on missing prices, one line per item, the total
    refusal: str | None = None                      # the budget's one line, or None
    book: PriceBook | None = None                   # the prices read (None: not asked for)


def cost_preview(cfg: CostedStack, plans: list[CostedPlan], settings: ProviderSettings) -> CostPreview:
    if not wanted(cfg, settings):
        return CostPreview()
    training = {cfg.pools[j.pool].flavor for j in (*cfg.jobs.values(), *cfg.sweeps.values())
                if cfg.pools[j.pool].create is None and cfg.pools[j.pool].pool_id is None}
    pool_flavors = {p.create.flavor for p in cfg.pools.values() if p.create is not None}
    book = price_book(settings, cfg.prices, {f for f in training if f}, pool_flavors)
    # A run that finished and will not run again is spent, not bound (still_bills.py), and a recorded job keeps
    # its limit (training_job/service_limit.py): the state tells.
    rec = recorded()
    found = items(cfg, plans, book, spent_keys(plans, rec), rec)
    lines = book.notes() + [f"cost: {it.line()}" for it in found] + [f"cost: {t}" for t in total_lines(found)]
    return CostPreview(lines, first_refusal(cfg.budget, own_budgets(cfg), found), book)

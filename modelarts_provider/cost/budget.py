"""The stack's budget: refused, in one line, before anything that bills is created.

- every priced item must be bounded: an unbounded one names the field to set;
- every item billed by this stack must have a price (or a `prices:` entry), in the budget's currency;
- the bounds' sum must not exceed `max`: the line names the total and the three largest items.

A sweep's own budget (sweeps.<key>.budget) and a search's (jobs.<key>.search.budget) hold their item's bound
alone, by the same rules.
"""

from __future__ import annotations

from decimal import Decimal

from .config import PROJECT, ItemBudget
from .items import Item, money

LARGEST = 3


# Where an item's own budget is declared, below the item's config path.
OWN_BUDGET = {"sweep": "budget", "search": "search.budget"}


def first_refusal(stack_budget: ItemBudget | None, own_budgets: dict[str, ItemBudget], found: list[Item]) -> str | None:
    """The sweeps' and searches' own budgets first (each over its item alone; `own_budgets` by item name), then
    the stack's."""
    for it in found:
        if it.kind in OWN_BUDGET and it.name in own_budgets:
            refused = refusal(own_budgets[it.name], [it], f"{it.config_path}.{OWN_BUDGET[it.kind]}", f"the {it.kind}")
            if refused:
                return refused
    return refusal(stack_budget, found) if stack_budget is not None else None


def refusal(budget: ItemBudget, found: list[Item], where: str = f"{PROJECT}:budget",
            what: str = "the stack", price_fix: str | None = None) -> str | None:
    """The one line that fails the preview, or None when the items fit the budget."""
    billed = [it for it in found if it.bills]  # a finished run is spent, not bound (still_bills.py)
    for it in billed:
        if it.price is None:
            return (f"{where}: {it.config_path} has no price for {it.flavor} (see above): "
                    + (price_fix or f"set {PROJECT}:prices.{it.flavor}.perNodeHour, or make the billing service "
                                     "reachable"))
        if it.price.currency != budget.currency:
            return (f"{where}: {it.config_path} is priced in {it.price.currency}, the budget in {budget.currency}: "
                    + (f"set {where}.currency to {it.price.currency}" if price_fix
                       else f"set {PROJECT}:prices.{it.flavor} in {budget.currency}"))
        if it.bound is None:
            return f"{where}: {it.config_path} has no upper bound: set {it.bound_field}"
    total = sum((it.bound or Decimal(0) for it in billed), Decimal(0))
    maximum = Decimal(str(budget.max))
    if total <= maximum:
        return None
    largest = sorted(billed, key=lambda it: it.bound or Decimal(0), reverse=True)[:LARGEST]
    items = ", ".join(f"{it.name} {money(it.bound)}" for it in largest)
    return (f"{where}: {what} can bill up to {money(total)} {budget.currency}, more than its budget of "
            f"{money(maximum)} {budget.currency}; largest: {items}")

"""The stack config's cost keys (modelarts-jobs:prices and modelarts-jobs:budget), part of StackConfig.

    modelarts-jobs:prices:          # per flavor: overrides the billing service (contract prices, OTC)
      modelarts.p3.large.public: {perNodeHour: 12.5, currency: CNY}
    modelarts-jobs:budget:          # preview fails when the stack can bill more (docs/cost.md)
      max: 100
      currency: CNY                 # default CNY; every price must be in it
      poolHours: 24                 # how long the budget assumes a pool the stack creates exists
    modelarts-jobs:sweeps:
      lr: {..., budget: {max: 50, currency: CNY}}   # a sweep's own budget, besides the stack's
"""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

PROJECT = "modelarts-jobs"  # the stack config's namespace: where its cost keys are named in the lines


def _currency(v: str) -> str:
    if not re.fullmatch(r"[A-Z]{3}", v):
        raise ValueError(f"must be a currency code of three capital letters, e.g. CNY or EUR, not {v!r}")
    return v


Currency = Annotated[str, AfterValidator(_currency)]  # ISO 4217


class _Cfg(BaseModel):
    model_config = ConfigDict(extra="forbid", alias_generator=to_camel, populate_by_name=False)


class FlavorPrice(_Cfg):
    per_node_hour: Annotated[float, Field(ge=0, allow_inf_nan=False)]
    currency: Currency = "CNY"


class ItemBudget(_Cfg):
    """A sweep's own budget (sweeps.<key>.budget): its bound must fit, whatever the stack's."""

    max: Annotated[float, Field(gt=0, allow_inf_nan=False)]
    currency: Currency = "CNY"


class BudgetConfig(ItemBudget):
    pool_hours: Annotated[float, Field(gt=0, allow_inf_nan=False)] | None = None


COST_MODEL_NAMES = frozenset({"FlavorPrice", "BudgetConfig", "ItemBudget"})

"""The plugin door's cost line: one per TrainingJob that will be submitted, from its check (the engine shows it
under the resource, through the plugin's diagnostics). A plugin program has no stack config of ours, so no
`prices:` table, no budget and no total: the line prices the job alone, from the billing service
(`modelarts:billingEndpoint`), bounded by the service's own limit (`autoStop`). The JobsAwait's deadline is a
different resource's and is not known at the job's check: such a job shows its hourly rate.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from ..core.provider_config import ProviderSettings
from .bounds import Item
from .prices import price_book


def job_cost_line(name: str, inputs: dict[str, Any], settings: ProviderSettings | None) -> list[str]:
    """The lines to say for one job (notes on a missing price first), or none when prices are not asked for."""
    if settings is None or not settings.billing_endpoint:
        return []
    flavor, pool, nodes = inputs.get("flavor_id"), inputs.get("pool_id"), inputs.get("node_count") or 1
    if not isinstance(flavor, str) or not isinstance(nodes, int):
        return []  # not known yet at preview (another resource's output)
    if pool:
        return [f"cost: {name}: 1 job on dedicated pool {pool}: billed by the pool"]
    book = price_book(settings, {}, {flavor}, set())  # per process and flavor: never one read per job
    auto_stop = inputs.get("auto_stop") or {}
    hours = Decimal(auto_stop["duration"]) if isinstance(auto_stop, dict) and auto_stop.get("duration") else None
    item = Item(name, "job", name, 1, nodes, hours, flavor, book.prices.get(flavor),
                bound_field="autoStop: {duration: N} hours")
    return book.notes() + [f"cost: {item.line()}"]

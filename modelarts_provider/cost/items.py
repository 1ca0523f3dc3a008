"""What a declared thing can bill: one calculation and one wording for both front doors (the stack program's,
stack_cost.py, and the plugin's, plugin_cost.py), each reading its own declarations into these items.

One item per job, sweep, search and pool a stack creates:

- a job bills nodes x hours x the price of a node-hour of its pool's flavor; its hours are bounded by the limit
  the service enforces (``spec.auto_stop``: the user's ``autoStopHours``, or the wait deadline rounded up to
  whole hours: training_job/service_limit.py), which holds with no process of ours running; a job the service
  sets no limit on (a search, a job recorded without one) is bounded by its wait deadline alone, and its line says
  the service does not enforce it; any other job has no upper bound: its hourly rate is shown;
- a sweep is its points' jobs, each bounded as one job;
- a search is one job that runs every trial on its nodes (at most ``parallel`` at once), so the job's bound
  is the search's;
- a pool the stack creates bills its nodes every hour it exists, jobs or not: no upper bound unless the
  budget says how long it will exist (``budget.poolHours``); jobs on it bill nothing beyond it, and a job on
  a dedicated pool the stack does not create is billed by that pool, outside this stack.

The bound assumes the deadline counts from the job's creation (the wait starts right after) and the list
price; it leaves out storage (OBS), traffic and discounts (docs/cost.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_CEILING, Decimal

from .money import bound
from .prices import Price

# A pool's hours are the budget's assumption (poolHours): the service has no running-time limit for a pool.
POOL_NOT_ENFORCED = "not enforced by the service: a pool has no running-time limit; destroy deletes it"


@dataclass(frozen=True)
class Item:
    name: str
    kind: str                   # job | sweep | search | pool
    config_path: str            # where it is declared, e.g. modelarts-jobs:sweeps.lr
    count: int                  # jobs (a sweep's points); 1 for a job, search or pool
    nodes: int
    hours: Decimal | None       # the most hours each job bills; None: no upper bound
    flavor: str | None          # None: billed by a pool (see `billed_by`)
    price: Price | None
    billed_by: str = ""         # e.g. "pool own" for a job on a pool the stack creates
    detail: str = ""            # e.g. "8 trials, 2 at once"
    bound_field: str = ""       # what to set to bound it
    enforcement: str = ""       # who keeps the bound: "enforced by the service: autoStop 1 h; ..." or why not
    finished: int = 0           # jobs whose runs finished and will not run again: spent, not bound (still_bills.py)

    @property
    def hourly(self) -> Decimal | None:
        return None if self.price is None else self.price.per_node_hour * self.count * self.nodes

    @property
    def bound(self) -> Decimal | None:
        """The most it can bill; None when unbounded, unpriced or billed elsewhere; 0 when every run finished."""
        if self.count == 0:
            return Decimal(0)
        if self.hourly is None or self.hours is None:
            return None
        return self.hourly * self.hours

    @property
    def bills(self) -> bool:
        """It can still bill this stack (not billed by a pool; some of its jobs may still run)."""
        return not self.billed_by and self.count > 0

    def line(self) -> str:
        if self.count == 0 and self.finished:
            runs = f"{self.finished} finished run{'s' if self.finished != 1 else ''}"
            return f"{self.name}: {runs}, nothing left to run: spent, not bound"
        if self.billed_by:
            return f"{self.name}: {self._jobs()} on {self.billed_by}: billed by the pool"
        plural = "s" if self.nodes != 1 else ""
        head = (f"{self.name}: a pool of {self.nodes} node{plural}" if self.kind == "pool"
                else f"{self.name}: {self._jobs()} x {self.nodes} node{plural}")
        detail = ", ".join(d for d in (self.detail, self._finished_note()) if d)
        if detail:
            head += f" ({detail})"
        if self.price is None:
            hours = f" x {self._hours()}" if self.hours is not None else ""
            return f"{head}{hours}, no price for {self.flavor} (see above)"
        rate = f"{money(self.price.per_node_hour)} {self.price.currency}/node-hour"
        if self.hours is None:
            what = "while it exists" if self.kind == "pool" else "no upper bound"
            return (f"{head} x {rate} = {money(self.hourly)} {self.price.currency} per hour, {what} "
                    f"(set {self.bound_field})")
        return f"{head} x {self._hours()} x {rate} = up to {money(self.bound)} {self.price.currency}"

    def _hours(self) -> str:
        assert self.hours is not None
        return f"{hours_text(self.hours)} h max" + (f" ({self.enforcement})" if self.enforcement else "")

    def _finished_note(self) -> str:
        return f"{self.finished} more finished: spent, not bound" if self.finished else ""

    def _jobs(self) -> str:
        return f"{self.count} job{'s' if self.count != 1 else ''}"


def money(v: Decimal | None) -> str:
    return bound(v)  # rounded up, a non-zero never 0.00 (money.py)


def hours_text(h: Decimal) -> str:
    """Hours to two places, rounded up: a bound is never printed below what it holds (300 s: 0.09 h)."""
    if h == h.to_integral_value():
        return f"{h.normalize():f}"
    return f"{h.quantize(Decimal('0.01'), ROUND_CEILING)}".rstrip("0").rstrip(".")


def search_detail(trials: object, parallel: object) -> str:
    """'a search: every trial in this job, 8 trials, 2 at once': a search is one job that runs every trial."""
    return ("a search: every trial in this job" + (f", {trials} trials" if trials else "")
            + (f", {parallel} at once" if parallel else ""))


def pool_item(name: str, config_path: str, nodes: int, hours: Decimal | None, flavor: str, price: Price | None,
              detail: str, bound_field: str) -> Item:
    """A pool the stack creates: its nodes bill every hour it exists, jobs or not."""
    return Item(name, "pool", config_path, 1, nodes, hours, flavor, price, detail=detail, bound_field=bound_field,
                enforcement=POOL_NOT_ENFORCED)


def total_lines(found: list[Item]) -> list[str]:
    """`total: up to X CNY` per currency, plus what bills per hour without a bound."""
    bounded: dict[str, Decimal] = {}
    hourly: dict[str, Decimal] = {}
    for it in found:
        if it.price is None or not it.bills:
            continue
        if it.bound is not None:
            bounded[it.price.currency] = bounded.get(it.price.currency, Decimal(0)) + it.bound
        else:
            hourly[it.price.currency] = hourly.get(it.price.currency, Decimal(0)) + (it.hourly or Decimal(0))
    unpriced = sorted({it.flavor for it in found if it.price is None and it.bills and it.flavor})
    currencies = sorted(set(bounded) | set(hourly)) or ["CNY"]
    lines = []
    for cur in currencies:
        text = f"total: up to {money(bounded.get(cur))} {cur}"
        if cur in hourly:
            text += f", plus {money(hourly[cur])} {cur} per hour without an upper bound"
        lines.append(text)
    if unpriced:
        lines[-1] += f" (without {', '.join(unpriced)}: no price)"
    return lines

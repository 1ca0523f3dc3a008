"""Metric curves: every match of a metric's regex in a log is a point (step, value).

A metric is declared beside the objective (`metrics: [{name, regex, goal}]`): its regex has one group
around the number and may name a second group `step` or `epoch` (`epoch (?P<epoch>[0-9]+)/[0-9]+
loss=([0-9.]+)`), whose capture is the point's step; without one the step is the match's number (1, 2,
...). NaN, infinities and non-numbers are no point; the first non-finite value the metric printed, whether
or not the regex matches it (`accuracy=nan` for `accuracy=([0-9.]+)`: divergence.py), is the curve's
`diverged`, and a run with one diverged curve is never ranked (table.py). A curve records its last and best values (by the
metric's goal) and at most MAX_POINTS points: a longer one is thinned evenly, its first, best and last
points always kept, so a 1,000-point sweep's state and exports stay small (`matches` says how many
there were). Pure functions: the JobsAwait reads logs (awaiting/metrics.py), `results` draws (chart.py).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ..core.linear_regex import all_captures
from .divergence import first_divergence

MAX_POINTS = 60
Goal = Literal["max", "min"]


class Curve(BaseModel):
    """One metric of one run."""

    model_config = ConfigDict(extra="ignore")

    points: list[tuple[float, float]] = Field(default_factory=list, description="(step, value) pairs, in log "
                                              "order, at most 60 (thinned evenly; first, best and last kept).")
    last: float | None = Field(default=None, description="The value of the last match.")
    best: float | None = Field(default=None, description="The best value by the metric's goal.")
    matches: int = Field(default=0, description="How many matches the log held.")
    note: str | None = Field(default=None, description="Why there is no value (no match, log unavailable).")
    diverged: str | None = Field(default=None, description="Where the metric first turned non-finite, e.g. "
                                 "'nan at line 812': the run diverged and is never ranked.")


def first_diverged(curves: Mapping[str, Curve]) -> str | None:
    """The first of a run's curves that turned non-finite, with where: "accuracy nan at line 3" (None: none did).
    One rule for every reader: a sweep's point (table.py) and a lone job's objective (awaiting/objectives.py)."""
    return next((f"{name} {c.diverged}" for name, c in curves.items() if c.diverged), None)


def number(text: str | None) -> float | None:
    """A captured number; None for NaN, infinities and non-numbers."""
    try:
        value = float(text) if text is not None else None
    except (TypeError, ValueError):
        return None
    return value if value is not None and math.isfinite(value) else None


def better(a: float, b: float, goal: Goal) -> bool:
    return a > b if goal == "max" else a < b


def best_index(values: list[float], goal: Goal) -> int:
    at = 0
    for i, v in enumerate(values):
        if better(v, values[at], goal):
            at = i
    return at


def thinned(points: list[tuple[float, float]], goal: Goal, limit: int = MAX_POINTS) -> list[tuple[float, float]]:
    """At most `limit` points, evenly spread, the first, best and last always among them."""
    if len(points) <= limit:
        return points
    keep = {round(i * (len(points) - 1) / (limit - 2)) for i in range(limit - 1)}
    keep.add(best_index([v for _, v in points], goal))  # limit - 1 spread indices (first and last) + the best
    return [points[i] for i in sorted(keep)]


def curve(text: str, regex: str, goal: Goal) -> Curve:
    """The curve of one metric in `text`."""
    points: list[tuple[float, float]] = []
    for n, (step_text, value_text) in enumerate(all_captures(regex, text), start=1):
        value = number(value_text)
        if value is None:
            continue
        step = number(step_text)
        points.append((step if step is not None else float(n), value))
    diverged = first_divergence(regex, text)
    if not points:
        return Curve(note=f"no match for {regex!r} in the log", diverged=diverged)
    values = [v for _, v in points]
    return Curve(points=thinned(points, goal), last=values[-1], best=values[best_index(values, goal)],
                 matches=len(points), diverged=diverged)

"""A sweep's points, its best point, and the compact table people read.

The stack program exports, per sweep, `{objective, points: [Point], best: Point | None, failures}`
(camelCase keys, as the other exports); the provider prints the same table at the end of a wait, and
`python -m modelarts_provider results` prints it from the exports. Ranking: points with a value, best
first (by the objective's goal); then completed points without one; then the rest (failed, not done).
NaN and infinities are no value (a point that printed `loss=nan` is never best): such a point reads
"no value" and is counted apart in the head line.
"""

from __future__ import annotations

import math
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic.alias_generators import to_camel

Goal = Literal["max", "min"]
Scalar = str | int | float | bool


class Point(BaseModel):
    """One sweep point as exported (`pulumi stack output sweeps`)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")

    key: str
    job_id: str | None = None
    parameters: dict[str, Scalar] = Field(default_factory=dict)
    phase: str | None = None
    objective: float | None = None
    note: str | None = None  # no objective value (why), a tolerated failure (its cause), retries
    duration_seconds: float | None = None
    output_path: str | None = None
    retries: int | None = None

    @field_validator("objective", mode="before")
    @classmethod
    def _finite(cls, v: Any) -> Any:
        """NaN, infinities (as numbers or as text, e.g. from an older export) and non-numbers are no value:
        one such point never makes a whole sweep unreadable."""
        if v is None or isinstance(v, bool):
            return None
        try:
            value = float(v)
        except (TypeError, ValueError):
            return None
        return value if math.isfinite(value) else None

    def export(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True)


class SweepObjective(BaseModel):
    model_config = ConfigDict(extra="ignore")

    name: str
    goal: Goal = "max"


class SweepResults(BaseModel):
    """The `sweeps.<name>` export."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")

    objective: SweepObjective | None = None
    points: list[Point] = Field(default_factory=list)
    best: Point | None = None
    failures: int = 0

    def export(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True)


FAILED = frozenset({"Failed", "Abnormal", "Terminated", "Terminating"})


def rank(points: list[Point], goal: Goal = "max", *, ties_in_order: bool = False) -> list[Point]:
    """Best first. Equal values: by key (a grid's points), or as given (a search's trials, in the order they
    started: the earliest of equal trials wins, as the service's own best does)."""
    sign = -1.0 if goal == "max" else 1.0

    def order(p: Point) -> tuple[int, float, str]:
        tie = "" if ties_in_order else p.key
        if p.objective is not None and p.phase == "Completed":
            return 0, sign * p.objective, tie
        return (1 if p.phase == "Completed" else 2 if p.phase not in FAILED else 3), 0.0, tie
    return sorted(points, key=order)


def best(points: list[Point], goal: Goal = "max", *, ties_in_order: bool = False) -> Point | None:
    """The completed point with the best objective value (failed points never win)."""
    ranked = rank(points, goal, ties_in_order=ties_in_order)
    top = ranked[0] if ranked else None
    return top if top is not None and top.objective is not None and top.phase == "Completed" else None


def collect(objective: SweepObjective | None, points: list[Point], *, ties_in_order: bool = False) -> SweepResults:
    goal = objective.goal if objective else "max"
    return SweepResults(objective=objective, points=rank(points, goal, ties_in_order=ties_in_order),
                        best=best(points, goal, ties_in_order=ties_in_order) if objective else None,
                        failures=sum(1 for p in points if p.phase in FAILED))


def duration_text(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    s = int(round(seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"


def _value_text(value: Scalar) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def table_lines(name: str, results: SweepResults, limit: int | None = None, unit: str = "point") -> list[str]:
    """`name: N points, ...` (or trials) and one aligned row per point, best first; at most `limit` rows."""
    points = results.points
    obj = results.objective
    head = f"{name}: {len(points)} {unit}{'s' if len(points) != 1 else ''}"
    if results.failures:
        head += f", {results.failures} failed"
    no_value = sum(1 for p in points if p.phase == "Completed" and p.objective is None)
    if obj is not None and no_value:
        head += f", {no_value} completed with no value"
    if obj is not None:
        win = results.best
        head += (f"; best {win.key} ({obj.name} {win.objective:g}, {obj.goal})" if win is not None
                 else f"; no point has a value of {obj.name}")
    params = sorted({k for p in points for k in p.parameters})  # the same order whichever way it was read
    columns = ["#", *params, "phase", *([obj.name] if obj else []), "duration", "key", "note"]
    rows = []
    for i, p in enumerate(points, start=1):
        rank_text = str(i) if p.objective is not None else "-"
        value = [f"{p.objective:g}" if p.objective is not None
                 else "no value" if p.phase == "Completed" else "-"] if obj else []
        note = p.note or ""
        if p.retries:
            note = f"retried {p.retries}x" + (f"; {note}" if note else "")
        rows.append([rank_text, *(_value_text(p.parameters[k]) if k in p.parameters else "-" for k in params),
                     p.phase or "-", *value, duration_text(p.duration_seconds), p.key, note])
    if not any(r[-1] for r in rows):  # no notes: no note column
        columns, rows = columns[:-1], [r[:-1] for r in rows]
    shown = rows if limit is None else rows[:limit]
    widths = [max(len(r[c]) for r in [columns, *shown]) for c in range(len(columns))]
    lines = [head]
    for row in [columns, *shown]:
        lines.append("  " + "  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())
    if len(shown) < len(rows):
        lines.append(f"  ... {len(rows) - len(shown)} more (python -m modelarts_provider results --stack STACK {name})")
    return lines

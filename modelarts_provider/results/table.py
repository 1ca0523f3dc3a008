"""A sweep's points, its best point, and the compact table people read.

The stack program exports, per sweep, `{objective, points: [Point], best: Point | None, failures}`
(camelCase keys, as the other exports); the provider prints the same table at the end of a wait, and
`python -m modelarts_provider results` prints it from the exports. Ranking: completed points with a value,
best first (by the objective's goal), numbered 1, 2, 3, ...; then, listed apart under `not ranked` and never
numbered, completed points without one, the rest (not done), and the failed ones (a failed point's value is
never shown: a search's failed trial may carry a stale reward). NaN and infinities are no value (a point that
printed `loss=nan` is never best): such a point reads "no value" and is counted apart in the head line. A
point whose objective or a declared metric turned non-finite in its log, whatever the regex (curves.py,
divergence.py), is diverged: it has no value, reads "diverged" with where it happened in its note, is listed
apart and counted in the head line.
Declared metrics (curves.py) add a column each: the last value, and the best where it differs (`last/best`).
Numbers print with at most 6 significant digits (a search's parameter 0.03333333333333333 reads 0.0333333).
"""

from __future__ import annotations

import math
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic.alias_generators import to_camel

from .curves import Curve, first_diverged
from .show import duration_text

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
    metrics: dict[str, Curve] = Field(default_factory=dict)  # the objective's and each metric's curve, by name
    diverged: str | None = None  # the first curve that turned non-finite: "accuracy nan at line 3"

    @model_validator(mode="after")
    def _diverged(self) -> Point:
        """Diverged from its curves, however the point was built (the stack program's export, the state's
        JobsAwait, a test): a diverged point has no value, so nothing that ranks can crown it."""
        if self.diverged is None:
            self.diverged = first_diverged(self.metrics)
        if self.diverged is not None:
            self.objective = None
        return self

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
    metrics: list[SweepObjective] = Field(default_factory=list)  # declared metrics (name, goal), in order
    points: list[Point] = Field(default_factory=list)
    best: Point | None = None
    failures: int = 0

    def export(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True)


FAILED = frozenset({"Failed", "Abnormal", "Terminated", "Terminating"})


def ranked(p: Point) -> bool:
    """A point that takes a rank: completed, with a value, not diverged."""
    return p.objective is not None and p.phase == "Completed" and p.diverged is None


def rank(points: list[Point], goal: Goal = "max", *, ties_in_order: bool = False) -> list[Point]:
    """Best first. Equal values: by key (a grid's points), or as given (a search's trials, in the order they
    started: the earliest of equal trials wins, as the service's own best does)."""
    sign = -1.0 if goal == "max" else 1.0

    def order(p: Point) -> tuple[int, float, str]:
        tie = "" if ties_in_order else p.key
        if ranked(p):
            return 0, sign * (p.objective or 0.0), tie
        if p.diverged is not None:
            return 1, 0.0, tie
        return (2 if p.phase == "Completed" else 3 if p.phase not in FAILED else 4), 0.0, tie
    return sorted(points, key=order)


def best(points: list[Point], goal: Goal = "max", *, ties_in_order: bool = False) -> Point | None:
    """The completed point with the best objective value (failed and diverged points never win)."""
    return next((p for p in rank(points, goal, ties_in_order=ties_in_order) if ranked(p)), None)


def collect(objective: SweepObjective | None, points: list[Point], *, ties_in_order: bool = False) -> SweepResults:
    goal = objective.goal if objective else "max"
    return SweepResults(objective=objective, points=rank(points, goal, ties_in_order=ties_in_order),
                        best=best(points, goal, ties_in_order=ties_in_order) if objective else None,
                        failures=sum(1 for p in points if p.phase in FAILED))


def number(value: float) -> str:
    """A measured value: at most 6 significant digits."""
    return f"{value:.6g}"


def _value_text(value: Scalar) -> str:
    """A parameter's value: a long float (0.03333333333333333, as a search's service may send it) at 6
    significant digits; anything else as written."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        return number(value)
    if isinstance(value, str) and len(value) > 8:
        try:
            as_float = float(value)
        except ValueError:
            return value
        return number(as_float) if math.isfinite(as_float) else value
    return str(value)


def metric_text(c: Curve | None, p: Point) -> str:
    if c is not None and c.diverged:
        return "diverged"
    if c is None or c.last is None:
        return "-" if p.phase != "Completed" else "no value"
    return number(c.last) if c.best is None or c.best == c.last else f"{number(c.last)}/{number(c.best)}"


def _differs(c: Curve | None) -> bool:
    return c is not None and c.best is not None and c.last is not None and c.best != c.last


def table_lines(name: str, results: SweepResults, limit: int | None = None, unit: str = "point") -> list[str]:
    """`name: N points, ...` (or trials) and one aligned row per point, best first; at most `limit` rows."""
    points = results.points
    obj = results.objective
    head = f"{name}: {len(points)} {unit}{'s' if len(points) != 1 else ''}"
    if results.failures:
        head += f", {results.failures} failed"
    diverged = sum(1 for p in points if p.diverged is not None)
    if diverged:
        head += f", {diverged} diverged"
    no_value = sum(1 for p in points if p.phase == "Completed" and p.objective is None and p.diverged is None)
    if obj is not None and no_value:
        head += f", {no_value} completed with no value"
    if obj is not None:
        win = results.best
        head += (f"; best {win.key} ({obj.name} {number(win.objective)}, {obj.goal})"
                 if win is not None and win.objective is not None else f"; no {unit} has a value of {obj.name}")
    params = sorted({k for p in points for k in p.parameters})  # the same order whichever way it was read
    metrics = [m.name for m in results.metrics if obj is None or m.name != obj.name]
    curve_head = [f"{m} last/best" if any(_differs(p.metrics.get(m)) for p in points) else m for m in metrics]
    columns = ["#", *params, "phase", *([obj.name] if obj else []), *curve_head, "duration", "key", "note"]
    rows = []
    place = 0
    for p in points:
        place += ranked(p)
        rank_text = str(place) if ranked(p) else "-"
        value = [number(p.objective) if ranked(p) and p.objective is not None
                 else "diverged" if p.diverged is not None
                 else "no value" if p.phase == "Completed" else "-"] if obj else []
        # a diverged run's recorded note already says it (awaiting/objectives.py): said once
        note = "; ".join(n for n in dict.fromkeys((f"diverged: {p.diverged}" if p.diverged else None, p.note)) if n)
        if p.retries:
            note = f"retried {p.retries}x" + (f"; {note}" if note else "")
        rows.append([rank_text, *(_value_text(p.parameters[k]) if k in p.parameters else "-" for k in params),
                     p.phase or "-", *value, *(metric_text(p.metrics.get(m), p) for m in metrics),
                     duration_text(p.duration_seconds), p.key, note])
    if not any(r[-1] for r in rows):  # no notes: no note column
        columns, rows = columns[:-1], [r[:-1] for r in rows]
    shown = rows if limit is None else rows[:limit]
    widths = [max(len(r[c]) for r in [columns, *shown]) for c in range(len(columns))]
    lines = [head]
    apart = obj is not None and 0 < place < len(points)  # unranked points listed apart, under their own line
    for i, row in enumerate([columns, *shown]):
        if apart and i == place + 1:
            lines.append(f"  not ranked ({len(points) - place}: failed, {'diverged, ' if diverged else ''}no value or not done):")
        lines.append("  " + "  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())
    if len(shown) < len(rows):
        lines.append(f"  ... {len(rows) - len(shown)} more (python -m modelarts_provider results --stack STACK {name})")
    return lines

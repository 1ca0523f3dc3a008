"""A sweep's chart, as a PNG (matplotlib with its Agg backend: no display; imported only here, so the provider
never pays for it).

Two rows of panels:
- the objective against each swept parameter (one panel per parameter): numeric values spanning a decade or
  more (learning rates) on a log axis, other values as categories in grid order;
- the curves (curves.py): one panel per metric (the objective's too, when its log held more than its last
  value), x the step, one line per ranked point; a log value axis where the values span two decades or more.

Read at a glance: the best point is red, thicker, drawn last (never hidden under tied points or other
curves); the other points take muted colors, best first; every run is named once, in one legend beside the
panels (labels never overlap, whatever the number of points: beyond MAX_LABELLED the rest are counted, not
named); values in labels at 4 significant digits. A search's trials are named by id (`3: lr=0.01`), and so
is any run whose parameters read like another's: no two legend entries are alike. Failed, unfinished,
diverged and no-value points are never ranked nor in the legend: they are listed apart under the panels. A
diverged run's curves alone are drawn, dashed and grey under the ranked ones, up to its last finite value.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .table import Point, Scalar, SweepObjective, SweepResults, _value_text, ranked

MAX_LABELLED = 12  # runs named in the legend; the rest are counted
BEST = "tab:red"
DIVERGED = "dimgray"  # a diverged run's curves, dashed


def _numeric(values: list[Scalar]) -> list[float] | None:
    if any(isinstance(v, bool) for v in values):
        return None
    try:
        return [float(v) for v in values]
    except (TypeError, ValueError):
        return None


def spans_decades(values: list[float], ratio: float = 100) -> bool:
    """A log axis: every value positive and the largest at least `ratio` times the smallest."""
    return bool(values) and min(values) > 0 and max(values) / min(values) >= ratio


def log_rewards(ys: list[float]) -> bool:
    """A log objective axis: every value positive and spanning more than two decades (losses)."""
    return spans_decades(ys, 100) and max(ys) / min(ys) > 100


def short(value: float) -> str:
    return f"{value:.4g}"


def label(p: Point) -> str:
    """A run's name in the legend: its parameter values (shorter than keys), else its key (a trial's id)."""
    if not p.parameters:
        return p.key
    return ", ".join(f"{k}={_value_text(v)}" for k, v in sorted(p.parameters.items()))


def labels(points: list[Point], by_id: bool = False) -> dict[str, str]:
    """Each run's legend name, by key: its parameters, led by its key (a trial's id) when `by_id` or when its
    parameters read like another run's (a search may draw one point twice)."""
    base = {p.key: label(p) for p in points}
    seen: dict[str, int] = {}
    for text in base.values():
        seen[text] = seen.get(text, 0) + 1
    return {k: (f"{k}: {text}" if text != k and (by_id or seen[text] > 1) else text) for k, text in base.items()}


def series_names(results: SweepResults) -> list[tuple[str, str]]:
    """(name, goal) of each curve panel: the declared metrics, and the objective when some run has a curve of it
    with more than one point."""
    names = [(m.name, m.goal) for m in results.metrics]
    obj = results.objective
    if obj is not None and obj.name not in {n for n, _ in names} and any(
            len((p.metrics.get(obj.name) or _EMPTY).points) > 1 for p in results.points):
        names.insert(0, (obj.name, obj.goal))
    return [(n, g) for n, g in names if any((p.metrics.get(n) or _EMPTY).points for p in results.points)]


class _Empty:
    points: list[tuple[float, float]] = []


_EMPTY = _Empty()


def draw(name: str, results: SweepResults, *, by_id: bool = False) -> Any:
    """The chart's figure (write_chart saves it; tests look at its artists). `by_id`: a search's trials, named
    by id."""
    import matplotlib  # noqa: PLC0415 - heavy, and only this command draws

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt  # noqa: PLC0415

    # best first (results.points are ranked); without an objective, every completed point, unranked
    drawn = ranked if results.objective is not None else (lambda p: p.phase == "Completed" and p.diverged is None)
    runs = [p for p in results.points if drawn(p)]
    apart = [p for p in results.points if not drawn(p)]
    best = results.best.key if results.best is not None else None
    params = sorted({k for p in results.points for k in p.parameters})
    curves = series_names(results)
    rows = [r for r in (params if results.objective is not None and params else [], curves) if r]
    cols = max((len(r) for r in rows), default=1)
    free = any(len(r) < cols for r in rows)  # an empty panel slot holds the legend; else a column beside
    side = 0.0 if free else 2.8
    height = 3.4 * max(len(rows), 1) + _footer(apart)
    fig, axes = plt.subplots(max(len(rows), 1), cols, figsize=(4.4 * cols + side, height), squeeze=False)
    colors = _palette(plt, [p.key for p in runs], best)
    names = labels(results.points, by_id)
    obj = results.objective
    r = 0
    if results.objective is not None and params:
        for c, param in enumerate(params):
            _by_parameter(axes[r][c], param, runs, best, colors, obj)
        for c in range(len(params), cols):
            axes[r][c].set_axis_off()
        r += 1
    # A diverged run is never ranked, but its curves up to the divergence are what one looks at (as W&B draws a
    # run up to its NaN): dashed and grey under the ranked ones, named in the footer, never in the legend.
    diverged = [p for p in apart if p.diverged is not None]
    for c, (metric, goal) in enumerate(curves):
        _curves(axes[r][c], metric, goal, runs, best, colors, diverged)
    for c in range(len(curves), cols):
        if curves:
            axes[r][c].set_axis_off()
    if not rows:
        axes[0][0].text(0.5, 0.5, "no ranked point to draw", ha="center", va="center")
        axes[0][0].set_axis_off()
    title = f"{name}: {len(runs)} {'ranked ' if obj is not None else ''}point{'s' if len(runs) != 1 else ''}"
    if obj is not None:
        title += f" by {obj.name} ({obj.goal})"
        if results.best is not None and results.best.objective is not None:
            title += f", best {names.get(results.best.key, label(results.best))}: {short(results.best.objective)}"
    fig.suptitle(title, fontsize=10)
    if apart:
        _apart(fig, apart)
    fig.tight_layout(rect=(0, _footer(apart) / height, 1 - side / (4.4 * cols + side), 0.95))
    slot = next((ax for row in axes for ax in row if not ax.axison), None) if free else None
    _legend(fig, slot, runs, best, colors, "ranked runs, best first" if obj is not None else "completed runs", names)
    return fig


def write_chart(name: str, results: SweepResults, path: Path, *, by_id: bool = False) -> Path:
    from matplotlib import pyplot as plt  # noqa: PLC0415

    fig = draw(name, results, by_id=by_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, format="png", dpi=100)
    plt.close(fig)
    return path


def _footer(apart: list[Point]) -> float:
    """Inches under the panels for the points listed apart."""
    return 0.3 + 0.16 * (min(len(apart), 6) + (len(apart) > 6)) if apart else 0.0


def _palette(plt: Any, keys: list[str], best: str | None) -> dict[str, Any]:
    """Muted colors for the runs, best first; red for the best alone."""
    cmap = plt.get_cmap("viridis")
    others = [k for k in keys if k != best]
    out = {k: cmap(0.15 + 0.7 * i / max(len(others) - 1, 1)) for i, k in enumerate(others)}
    if best is not None:
        out[best] = BEST
    return out


def _in_order(runs: list[Point], best: str | None) -> list[Point]:
    """The runs to draw, the best last (on top of every other line and tied point)."""
    return [p for p in reversed(runs) if p.key != best] + [p for p in runs if p.key == best]


def _by_parameter(ax: Any, param: str, runs: list[Point], best: str | None, colors: dict[str, Any],
                  obj: SweepObjective) -> None:
    drawn = [p for p in _in_order(runs, best) if p.objective is not None]
    values = [p.parameters.get(param, "-") for p in drawn]
    numbers = _numeric(values)
    if numbers is not None:
        xs: list[float] = numbers
        if spans_decades(xs, 10):
            ax.set_xscale("log")
    else:
        order = list(dict.fromkeys(str(v) for v in (p.parameters.get(param, "-") for p in runs)))
        xs = [float(order.index(str(v))) for v in values]
        ax.set_xticks(range(len(order)), order)
    ys = [float(p.objective or 0.0) for p in drawn]
    for x, y, p in zip(xs, ys, drawn):
        top = p.key == best
        ax.scatter([x], [y], color=colors[p.key], s=70 if top else 28, zorder=4 if top else 2,
                   edgecolors="black" if top else "none", linewidths=0.8)
    if log_rewards(ys):
        ax.set_yscale("log")
    ax.set_xlabel(param)
    ax.set_ylabel(obj.name)
    ax.grid(True, alpha=0.3)


def _curves(ax: Any, metric: str, goal: str, runs: list[Point], best: str | None, colors: dict[str, Any],
            diverged: list[Point]) -> None:
    values: list[float] = []
    for p in diverged:  # first: under every ranked run
        c = p.metrics.get(metric)
        if c is not None and c.points:
            ys = [v for _, v in c.points]
            values += ys
            ax.plot([s for s, _ in c.points], ys, color=DIVERGED, linestyle="--", linewidth=1.0, zorder=1,
                    marker="x" if len(ys) <= 20 else None, markersize=3)
    for p in _in_order(runs, best):
        c = p.metrics.get(metric)
        if c is None or not c.points:
            continue
        xs, ys = [s for s, _ in c.points], [v for _, v in c.points]
        values += ys
        top = p.key == best
        ax.plot(xs, ys, color=colors[p.key], linewidth=2.4 if top else 1.1, alpha=1.0 if top else 0.75,
                zorder=4 if top else 2, marker="o" if len(xs) <= 20 else None, markersize=3 if top else 2)
    if spans_decades(values):
        ax.set_yscale("log")
    ax.set_title(f"{metric} ({goal})", fontsize=9)
    ax.set_xlabel("step")
    ax.grid(True, alpha=0.3)


def _legend(fig: Any, slot: Any, runs: list[Point], best: str | None, colors: dict[str, Any], title: str,
            names: dict[str, str]) -> None:
    """One legend for every panel, in an empty panel slot or beside the panels: each run named once, best first
    (labels never overlap)."""
    from matplotlib.lines import Line2D  # noqa: PLC0415

    named = runs[:MAX_LABELLED]
    handles = [Line2D([], [], color=colors[p.key], linewidth=2.4 if p.key == best else 1.2,
                      label=(f"{names[p.key]} (best)" if p.key == best else names[p.key])
                      + (f": {short(p.objective)}" if p.objective is not None else "")) for p in named]
    if len(runs) > len(named):
        handles.append(Line2D([], [], color="none", label=f"... {len(runs) - len(named)} more (see `results`)"))
    if not handles:
        return
    if slot is not None:
        slot.legend(handles=handles, loc="upper left", fontsize=8, frameon=False, title=title, title_fontsize=8)
    else:
        fig.legend(handles=handles, loc="upper right", fontsize=7, frameon=False, title=title, title_fontsize=8,
                   bbox_to_anchor=(1.0, 0.93))


def _apart(fig: Any, apart: list[Point]) -> None:
    """Failed, unfinished, diverged and no-value points: listed under the panels, never drawn or ranked."""
    shown = apart[:6]
    lines = [f"{label(p)} [{p.key}]: " + (f"diverged ({p.diverged}), dashed" if p.diverged is not None else
                                          f"{p.phase or 'not seen'}" + (" (no value)" if p.phase == "Completed" else ""))
             for p in shown]
    if len(apart) > len(shown):
        lines.append(f"... {len(apart) - len(shown)} more")
    fig.text(0.01, 0.01, "not ranked:\n" + "\n".join(lines), fontsize=7, va="bottom", ha="left", color="dimgray")

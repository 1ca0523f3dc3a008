"""A sweep's chart: its objective against each swept parameter, one panel per parameter, as a PNG.

matplotlib with its Agg backend (no display needed; imported only here, so the provider never pays
for it). Numeric values spanning a decade or more (learning rates) get a log axis; other values are
categories in grid order; objective values spanning more than two decades get a log axis too. Every
point is labelled with its key (a trial's id for a search). The best point is drawn apart; points without a value are left out and
counted in the title.
"""

from __future__ import annotations

from pathlib import Path

from .table import Point, Scalar, SweepResults


def _numeric(values: list[Scalar]) -> list[float] | None:
    if any(isinstance(v, bool) for v in values):
        return None
    try:
        return [float(v) for v in values]
    except (TypeError, ValueError):
        return None


def log_rewards(ys: list[float]) -> bool:
    """A log objective axis: every value positive and spanning more than two decades (losses)."""
    return bool(ys) and min(ys) > 0 and max(ys) / min(ys) > 100


def write_chart(name: str, results: SweepResults, path: Path) -> Path:
    import matplotlib  # noqa: PLC0415 - heavy, and only this command draws

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt  # noqa: PLC0415

    scored = [p for p in results.points if p.objective is not None]
    params = sorted({k for p in results.points for k in p.parameters}) or ["(no parameters)"]
    label = results.objective.name if results.objective else "objective"
    fig, axes = plt.subplots(1, len(params), figsize=(4.2 * len(params), 3.6), squeeze=False)
    best = results.best.key if results.best is not None else None
    for ax, param in zip(axes[0], params):
        _panel(ax, param, scored, best)
        ax.set_ylabel(label)
    missing = len(results.points) - len(scored)
    title = f"{name}: {label} ({results.objective.goal if results.objective else 'no objective'})"
    fig.suptitle(title + (f", {missing} point{'s' if missing != 1 else ''} without a value" if missing else ""))
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, format="png", dpi=100)
    plt.close(fig)
    return path


def _panel(ax: object, param: str, scored: list[Point], best: str | None) -> None:
    values = [p.parameters.get(param, "-") for p in scored]
    numbers = _numeric(values)
    if numbers is not None:
        xs: list[float] = numbers
        positive = [x for x in xs if x > 0]
        if positive and len(positive) == len(xs) and max(xs) / min(xs) >= 10:
            ax.set_xscale("log")  # type: ignore[attr-defined]
    else:
        order = list(dict.fromkeys(str(v) for v in values))
        xs = [float(order.index(str(v))) for v in values]
        ax.set_xticks(range(len(order)), order)  # type: ignore[attr-defined]
    ys = [float(p.objective) for p in scored if p.objective is not None]
    colors = ["tab:red" if p.key == best else "tab:blue" for p in scored]
    ax.scatter(xs, ys, c=colors, zorder=2)  # type: ignore[attr-defined]
    if log_rewards(ys):
        ax.set_yscale("log")  # type: ignore[attr-defined]
    for x, y, p in zip(xs, ys, scored):  # each point named: a trial id or a point's key
        ax.annotate(p.key, (x, y), textcoords="offset points", xytext=(3, 3), fontsize=6)  # type: ignore[attr-defined]
    ax.set_xlabel(param)  # type: ignore[attr-defined]
    ax.grid(True, alpha=0.3)  # type: ignore[attr-defined]

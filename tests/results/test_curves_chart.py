"""Metric curves (issue 41): every match a point, and a chart of a 6-point sweep with 3 metrics that stays
readable: curves per point, log axis where values span decades, the best run red and drawn last, labels that
never overlap, failed points listed apart and never drawn."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from modelarts_provider.core.linear_regex import compile_metric
from modelarts_provider.results.chart import draw, write_chart
from modelarts_provider.results.curves import MAX_POINTS, curve
from modelarts_provider.results.table import Point, SweepObjective, collect

LOSS = r"epoch (?P<epoch>[0-9]+)/[0-9]+ loss=([0-9.]+)"


def test_every_match_is_a_point_with_the_captured_step_or_the_match_number() -> None:
    text = "epoch 2/9 loss=0.5 accuracy=0.7\nnoise\nepoch 4/9 loss=0.25 accuracy=0.9\nepoch 6/9 loss=nan accuracy=0.8\n"
    loss = curve(text, LOSS, "min")
    assert loss.points == [(2.0, 0.5), (4.0, 0.25)] and loss.last == 0.25 and loss.best == 0.25
    acc = curve(text, "accuracy=([0-9.]+)", "max")
    assert acc.points == [(1.0, 0.7), (2.0, 0.9), (3.0, 0.8)] and acc.last == 0.8 and acc.best == 0.9
    assert curve(text, "f1=([0-9.]+)", "max").note == "no match for 'f1=([0-9.]+)' in the log"
    # no match across lines, ^ and $ at each line's ends: as if matched line by line
    assert curve("epoch 1/2\nloss=5\nepoch 2/2 loss=3\n", r"epoch (?P<epoch>\d+)/\d+\s*loss=([0-9.]+)",
                 "min").points == [(2.0, 3.0)]
    assert curve("x loss=1\nloss=2\nloss=3 y\nloss=4", r"^loss=([0-9.]+)$", "min").points == [(1.0, 2.0), (2.0, 4.0)]


def test_a_long_curve_is_thinned_keeping_first_best_and_last() -> None:
    text = "".join(f"step {k} loss={abs(k - 377) / 1000 + 0.1:.4f}\n" for k in range(1, 1001))
    c = curve(text, r"step (?P<step>[0-9]+) loss=([0-9.]+)", "min")
    assert c.matches == 1000 and len(c.points) <= MAX_POINTS
    assert c.points[0] == (1.0, 0.476) and c.points[-1] == (1000.0, 0.723) and (377.0, 0.1) in c.points


@pytest.mark.parametrize("pattern,why", [
    ("loss=[0-9.]+", "exactly one group"), (r"(?P<epoch>\d+) (?P<batch>\d+) loss=([0-9.]+)", "names a group 'batch'"),
    (r"(?P<epoch>\d+) (?P<step>\d+) loss=([0-9.]+)", "both a step and an epoch"), (r"(\d+) loss=(\d+)", "it has 2")])
def test_metric_regexes_are_refused_in_one_line(pattern: str, why: str) -> None:
    with pytest.raises(ValueError, match=why):
        compile_metric(pattern)
    assert compile_metric(r"step (?P<step>\d+) (?P<value>[0-9.]+)")[1:] == (2, 1)


def sweep() -> Any:
    points = []
    for lr in (0.1, 0.01, 0.001):
        for bs in (32, 64):
            rate = {0.1: 0.55, 0.01: 0.7, 0.001: 0.9}[lr] + (0.03 if bs == 64 else 0)
            text = "".join(f"epoch {k}/12 loss={2.3 * rate ** k:.5f} accuracy={1 - rate ** k / 1.1:.4f} "
                           f"val_loss={2.5 * rate ** k + 0.01:.5f}\n" for k in range(1, 13))
            m = {"loss": curve(text, LOSS, "min"), "accuracy": curve(text, "accuracy=([0-9.]+)", "max"),
                 "val_loss": curve(text, "val_loss=([0-9.]+)", "min")}
            points.append(Point(key=f"grid-{lr}-{bs}", parameters={"lr": lr, "batch_size": bs}, phase="Completed",
                                objective=m["accuracy"].last, metrics=m))
    points[-1] = points[-1].model_copy(update={"phase": "Failed"})  # lr 0.001, bs 64: never drawn nor ranked
    points[1] = points[1].model_copy(update={"objective": points[0].objective})  # a tie with the best
    results = collect(SweepObjective(name="accuracy"), points)
    results.metrics = [SweepObjective(name="loss", goal="min"), SweepObjective(name="accuracy"),
                       SweepObjective(name="val_loss", goal="min")]
    return results


def test_the_chart_of_a_sweep_with_three_metrics_is_readable(tmp_path: Path) -> None:
    results = sweep()
    fig = draw("grid", results)
    fig.canvas.draw()
    panels = {ax.get_title(): ax for ax in fig.axes if ax.get_title()}
    assert set(panels) == {"loss (min)", "accuracy (max)", "val_loss (min)"}
    best = results.best
    assert best is not None and best.key == "grid-0.1-32"  # tied with grid-0.1-64: by key
    for title, ax in panels.items():
        lines = ax.get_lines()
        assert len(lines) == 5  # the 5 ranked points; the failed one is not drawn
        top = lines[-1]  # drawn last: on top of every other curve
        assert top.get_color() == "tab:red" and top.get_linewidth() > max(ln.get_linewidth() for ln in lines[:-1])
        assert list(top.get_xdata()) == [float(k) for k in range(1, 13)]
        assert ax.get_yscale() == ("linear" if title.startswith("accuracy") else "log")  # losses span decades
    # Every text of the figure (legend entries, titles, the failed point's line) apart from every other.
    renderer = fig.canvas.get_renderer()
    from matplotlib.text import Text

    found = fig.findobj(lambda a: isinstance(a, Text) and a.get_text() and a.get_visible())
    texts = [t for t in {id(t): t for t in found}.values()
             if not any(t in ax.get_xticklabels() + ax.get_yticklabels() for ax in fig.axes)]
    boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in texts]
    overlaps = [(a, b) for i, (a, box_a) in enumerate(boxes) for b, box_b in boxes[i + 1:] if box_a.overlaps(box_b)]
    assert overlaps == [], overlaps
    legend = [t.get_text() for lg in fig.findobj(lambda a: a.__class__.__name__ == "Legend") for t in lg.get_texts()]
    assert legend[0].startswith("batch_size=32, lr=0.1 (best): ") and len(legend) == 5
    assert not any("lr=0.001" in t and "batch_size=64" in t for t in legend)
    footer = [t.get_text() for t in texts if t.get_text().startswith("not ranked")]
    assert footer == ["not ranked:\nbatch_size=64, lr=0.001 [grid-0.001-64]: Failed"]
    assert all(len(t.split(": ")[-1]) <= 6 for t in legend)  # values at 4 significant digits
    path = write_chart("grid", results, tmp_path / "grid.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_sweep_with_metrics_and_no_objective_draws_every_completed_point(tmp_path: Path) -> None:
    results = sweep()
    results = results.model_copy(update={"objective": None, "best": None})
    fig = draw("grid", results)
    (loss,) = [ax for ax in fig.axes if ax.get_title() == "loss (min)"]
    assert len(loss.get_lines()) == 5 and all(ln.get_color() != "tab:red" for ln in loss.get_lines())

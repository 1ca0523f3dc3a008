"""Divergence (issue 56, item 1): a declared metric or objective whose value turns non-finite marks the run
diverged, whatever the user's regex: never ranked, never the best, listed apart with where it happened."""

from __future__ import annotations

import time
from typing import Any

import pytest

from modelarts_provider.awaiting.args import AwaitedStatus, Metric, Objective
from modelarts_provider.awaiting.objectives import ToRead, read_objectives
from modelarts_provider.client.models import TrainingJob
from modelarts_provider.awaiting.history import _record
from modelarts_provider.results.chart import draw, labels
from modelarts_provider.results.curves import Curve, curve
from modelarts_provider.results.divergence import NON_FINITE, companion, first_divergence, group_body
from modelarts_provider.results.history import history_lines
from modelarts_provider.results.table import Point, SweepObjective, SweepResults, collect, table_lines
from modelarts_provider.stack.config import parse
from modelarts_provider.stack.program import plan
from modelarts_provider.stack.results import build_objectives
from tests.results.test_await_results import ScoredClient, point
from tests.awaiting.test_provider import env, provider, replay_job  # noqa: F401 - env is a fixture

README = "accuracy=([0-9.]+)"  # the README's own regex: it never matches `nan`
DIVERGED = "epoch 1 accuracy=0.93\nepoch 2 accuracy=0.95\nepoch 3 accuracy=nan\n"


@pytest.mark.parametrize(("pattern", "want"), [
    (README, f"accuracy=({NON_FINITE})"),
    (r"epoch (?P<epoch>[0-9]+)/[0-9]+ loss=([0-9.]+)", rf"epoch (?P<epoch>[0-9]+)/[0-9]+ loss=({NON_FINITE})"),
    (r"acc=((?:\d+)+)%", rf"acc=({NON_FINITE})%"),
    (r"(?P<value>[\d.]+) acc", rf"(?P<value>{NON_FINITE}) acc"),
    (r"[(]x\) (?i:a)=([0-9]+)", rf"[(]x\) (?i:a)=({NON_FINITE})"),
    (r"\Q(a)\E=([0-9.]+)", rf"\Q(a)\E=({NON_FINITE})"),
    (r"[]()[:alpha:]]+=(\d+)", rf"[]()[:alpha:]]+=({NON_FINITE})"),
])
def test_the_companion_keeps_the_prefix_suffix_and_groups(pattern: str, want: str) -> None:
    assert companion(pattern) == want


def test_group_body_finds_the_numbered_group_and_refuses_unbalanced_text() -> None:
    assert group_body("a(b)(c(d))", 2) == (5, 9)
    assert group_body("a(b)(c(d))", 3) == (7, 8)
    assert group_body("a)(b", 1) is None


@pytest.mark.parametrize(("log", "want"), [
    (DIVERGED, "nan at line 3"),
    ("accuracy=0.9\naccuracy=-nan\n", "-nan at line 2"),  # C's printf
    ("accuracy=NaN", "NaN at line 1"),  # JavaScript
    ("x\ny\naccuracy=Infinity, loss 2", "Infinity at line 3"),
    ("accuracy=inf\naccuracy=nan", "inf at line 1"),  # the first one
    ("accuracy=-nan(ind)", "-nan(ind) at line 1"),  # MSVC
])
def test_non_finite_values_the_regex_never_matches_are_found(log: str, want: str) -> None:
    assert first_divergence(README, log) == want


@pytest.mark.parametrize("log", ["accuracy=0.95", "accuracy=nanosecond", "accuracy=info", "accuracy nan",
                                 "loss=nan", ""])
def test_no_divergence_where_the_metric_never_printed_a_non_finite_value(log: str) -> None:
    assert first_divergence(README, log) is None


def test_a_regex_that_captures_the_token_itself_finds_it_too() -> None:
    assert first_divergence(r"loss=(\S+)", "loss=1.5\nloss=2.0\nloss=-inf\n") == "-inf at line 3"
    # a step group stays a step group; the value is the other one
    assert first_divergence(r"step (?P<step>\d+) loss=([0-9.]+)", "step 1 loss=0.5\nstep 2 loss=nan") == \
        "nan at line 2"


def test_the_check_stays_linear_on_a_pattern_that_backtracks_in_python_re() -> None:
    line = "acc=" + "1" * 200_000 + "x\n"
    started = time.monotonic()
    assert first_divergence(r"acc=((?:\d+)+)%", line * 5 + "acc=nan%\n") == "nan at line 6"
    assert time.monotonic() - started < 2


def test_a_curve_records_where_it_diverged_and_keeps_its_finite_points() -> None:
    c = curve(DIVERGED, README, "max")
    assert c.points == [(1.0, 0.93), (2.0, 0.95)] and c.last == 0.95
    assert c.diverged == "nan at line 3"
    assert curve("accuracy=0.9", README, "max").diverged is None
    only = curve("accuracy=nan", README, "max")
    assert only.points == [] and only.diverged == "nan at line 1" and only.note is not None


def _sweep() -> SweepResults:
    metrics = {"acc": curve(DIVERGED, README, "max")}
    pts = [Point(key="s-1", parameters={"lr": 0.1}, phase="Completed", objective=0.95, metrics=metrics),
           Point(key="s-2", parameters={"lr": 0.01}, phase="Completed", objective=0.9,
                 metrics={"acc": curve("accuracy=0.9", README, "max")})]
    return collect(SweepObjective(name="acc", goal="max"), pts)


def test_a_diverged_point_is_never_the_best_and_is_listed_apart() -> None:
    results = _sweep()
    assert results.best is not None and results.best.key == "s-2"
    diverged = next(p for p in results.points if p.key == "s-1")
    assert diverged.diverged == "acc nan at line 3" and diverged.objective is None
    assert [p.key for p in results.points] == ["s-2", "s-1"]
    lines = table_lines("s", results)
    assert lines[0] == "s: 2 points, 1 diverged; best s-2 (acc 0.9, max)"
    assert lines[3] == "  not ranked (1: failed, diverged, no value or not done):"
    assert lines[4].split()[:4] == ["-", "0.1", "Completed", "diverged"] and \
        lines[4].endswith("diverged: acc nan at line 3"), lines
    # the export read back (results, a StackReference) says the same
    again = SweepResults.model_validate(results.export())
    assert again.best is not None and again.best.key == "s-2" and again.points[1].diverged == "acc nan at line 3"


def test_a_diverged_run_whose_note_says_it_reads_it_once() -> None:
    """The JobsAwait records a diverged run's note as "diverged: <where>" (its exported objective has no value):
    the table says it once."""
    metrics = {"acc": curve(DIVERGED, README, "max")}
    lone = Point(key="solo", phase="Completed", note="diverged: acc nan at line 3", metrics=metrics)
    lines = table_lines("solo", collect(SweepObjective(name="acc"), [lone]), unit="run")
    assert lines[0] == "solo: 1 run, 1 diverged; no run has a value of acc", lines
    assert lines[-1].endswith("  solo  diverged: acc nan at line 3"), lines
    assert lines[-1].count("diverged: ") == 1, lines


def _texts(fig: Any) -> list[str]:
    from matplotlib.text import Text  # noqa: PLC0415

    return [t.get_text() for t in fig.findobj(lambda a: isinstance(a, Text) and a.get_text())]


def test_a_diverged_runs_curve_is_drawn_dashed_up_to_its_divergence_never_ranked_nor_in_the_legend() -> None:
    results = _sweep()
    results.metrics = [SweepObjective(name="acc")]
    fig = draw("s", results)
    (panel,) = [ax for ax in fig.axes if ax.get_title() == "acc (max)"]
    dashed = [ln for ln in panel.lines if ln.get_linestyle() == "--"]
    assert [ln.get_ydata().tolist() for ln in dashed] == [[0.93, 0.95]] and dashed[0].get_color() == "dimgray"
    assert [ln.get_ydata().tolist() for ln in panel.lines if ln.get_linestyle() != "--"] == [[0.9]]
    legend = [t.get_text() for lg in fig.findobj(lambda a: a.__class__.__name__ == "Legend") for t in lg.get_texts()]
    assert legend == ["lr=0.01 (best): 0.9"]
    assert "not ranked:\nlr=0.1 [s-1]: diverged (acc nan at line 3), dashed" in _texts(fig)


def test_a_lone_diverged_jobs_chart_shows_its_curve_up_to_the_divergence() -> None:
    lone = collect(SweepObjective(name="acc"), [Point(key="solo", phase="Completed",
                                                      metrics={"acc": curve(DIVERGED, README, "max")})])
    fig = draw("solo", lone)
    (panel,) = [ax for ax in fig.axes if ax.get_title() == "acc (max)"]
    assert [ln.get_ydata().tolist() for ln in panel.lines] == [[0.93, 0.95]]
    assert "no ranked point to draw" not in _texts(fig)


def test_the_wait_reports_a_diverged_point_and_crowns_the_other(env):  # noqa: F811
    obj = {"name": "accuracy", "regex": README, "goal": "max"}
    jobs = [replay_job(j, ["Completed"]) for j in ("j1", "j2")]
    client = ScoredClient(jobs, {"j1": DIVERGED, "j2": "accuracy=0.91\n"})
    res = provider(client).create({"jobs": {"s-1": point("j1", "0.1", objective=obj),
                                            "s-2": point("j2", "0.01", objective=obj)}})
    st = res.outs["statuses"]
    assert st["s-1"]["metrics"]["accuracy"]["diverged"] == "nan at line 3"
    head = next(line for line in env.said if line.startswith("s: "))
    assert head == "s: 2 points, 1 diverged; best s-2 (accuracy 0.91, max)"
    # the run history says it too, with no value
    record = res.outs["runs"]["s-1"][-1]
    assert record.get("objective") is None and record["note"] == "diverged: accuracy nan at line 3"


def test_a_lone_scored_job_that_diverged_says_so(env):  # noqa: F811
    obj = {"name": "accuracy", "regex": README, "goal": "max"}
    client = ScoredClient([replay_job("j1", ["Completed"])], {"j1": DIVERGED})
    res = provider(client).create({"jobs": {"solo": point("j1", "0.1", objective=obj, group=None)}})
    assert "solo: diverged (accuracy nan at line 3)" in env.said
    # What both doors export of it: no value (never the last finite 0.95), and where it diverged. The plugin
    # door's `statuses` (a YAML program's export) and the stack program's `objectives`, built from them.
    status = res.outs["statuses"]["solo"]
    assert "objective" not in status and status["diverged"] == "accuracy nan at line 3", status
    assert status["objective_note"] == "diverged: accuracy nan at line 3"
    cfg = parse({"obs": {"main": {"bucket": "bkt"}}, "pools": {"gpu": {"flavor": "f"}},
                 "jobs": {"solo": {"pool": "gpu", "algorithmId": "x", "waitFor": "completed", "objective": obj}}})
    assert build_objectives(plan(cfg), res.outs["statuses"]) == {"solo": {
        "name": "accuracy", "goal": "max", "value": None, "note": "diverged: accuracy nan at line 3",
        "diverged": "accuracy nan at line 3"}}


def test_a_lone_job_that_never_diverged_keeps_its_value_and_no_marker(env):  # noqa: F811
    obj = {"name": "accuracy", "regex": README, "goal": "max"}
    client = ScoredClient([replay_job("j1", ["Completed"])], {"j1": "accuracy=0.93\naccuracy=0.95\n"})
    status = provider(client).create({"jobs": {"solo": point("j1", "0.1", objective=obj, group=None)}}).outs[
        "statuses"]["solo"]
    assert status["objective"] == 0.95 and "diverged" not in status and "objective_note" not in status, status


def test_a_diverged_metric_beside_a_finite_objective_leaves_no_value() -> None:
    """A declared metric that turned nan diverges the run, as in a sweep's table: its objective is not kept."""
    reading = read_objectives(ScoredClient([], {"j1": "loss=0.5\nloss=nan\nval_acc=0.9\n"}), [ToRead(
        "k", _completed("j1"), Objective(name="val_acc", regex=r"val_acc=([0-9.]+)"),
        (Objective(name="val_acc", regex=r"val_acc=([0-9.]+)"), Metric(name="loss", regex=r"loss=([0-9.]+)",
                                                                       goal="min")))])["k"]
    assert reading.value is None and reading.diverged == "loss nan at line 2"
    assert reading.note == "diverged: loss nan at line 2" and reading.curves["val_acc"].last == 0.9


def _completed(job_id: str) -> TrainingJob:
    return TrainingJob.model_validate({"metadata": {"id": job_id, "name": job_id},
                                       "status": {"phase": "Completed", "tasks": ["worker-0"]}})


def test_a_history_record_of_a_diverged_run_has_no_value() -> None:
    status = AwaitedStatus.model_validate({"job_id": "j", "wait_for": "completed", "reached": True, "phase": "Completed",
                                           "objective": 0.95,
                                           "metrics": {"acc": Curve(last=0.95, diverged="nan at line 3")}})
    record = _record(None, status, None, "j")
    assert record.objective is None and record.note == "diverged: acc nan at line 3"
    lines = history_lines("k", [{"name": "n", "phase": record.phase, "note": record.note}])
    assert "Completed (diverged: acc nan at line 3)" in lines[2]


def test_legend_names_are_unique_and_trials_are_named_by_id() -> None:
    same = [Point(key="3", parameters={"lr": 0.1}), Point(key="7", parameters={"lr": 0.1}),
            Point(key="9", parameters={"lr": 0.2})]
    assert labels(same) == {"3": "3: lr=0.1", "7": "7: lr=0.1", "9": "lr=0.2"}
    assert labels(same, by_id=True)["9"] == "9: lr=0.2"
    assert labels([Point(key="k")], by_id=True) == {"k": "k"}

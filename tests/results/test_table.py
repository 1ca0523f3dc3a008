"""Sweep tables: ranking by the objective's goal, the best point, failures, the compact text."""

from __future__ import annotations

from modelarts_provider.results.table import Point, SweepObjective, best, collect, duration_text, rank, table_lines


def pts() -> list[Point]:
    return [Point(key="s-a", parameters={"lr": 0.1}, phase="Completed", objective=0.80, duration_seconds=12),
            Point(key="s-b", parameters={"lr": 0.01}, phase="Completed", objective=0.95, duration_seconds=75),
            Point(key="s-c", parameters={"lr": 0.001}, phase="Completed", objective=None, note="no match"),
            Point(key="s-d", parameters={"lr": 1.0}, phase="Failed", note="Failed; exit code 3: boom")]


def test_rank_puts_the_best_first_by_goal_then_unscored_then_failed() -> None:
    assert [p.key for p in rank(pts(), "max")] == ["s-b", "s-a", "s-c", "s-d"]
    assert [p.key for p in rank(pts(), "min")] == ["s-a", "s-b", "s-c", "s-d"]


def test_best_is_a_completed_point_with_a_value_and_never_a_failed_one() -> None:
    assert best(pts(), "max").key == "s-b"
    assert best(pts(), "min").key == "s-a"
    failed_high = [Point(key="f", phase="Failed", objective=9.0), Point(key="ok", phase="Completed", objective=1.0)]
    assert best(failed_high, "max").key == "ok"
    assert best([Point(key="x", phase="Completed")], "max") is None


def test_collect_counts_failures_and_chooses_the_best_among_the_rest() -> None:
    res = collect(SweepObjective(name="acc", goal="max"), pts())
    assert res.failures == 1 and res.best is not None and res.best.key == "s-b"
    exported = res.export()
    assert exported["best"]["outputPath"] is None and exported["best"]["jobId"] is None
    assert exported["points"][0]["durationSeconds"] == 75 and exported["objective"] == {"name": "acc", "goal": "max"}


def test_table_lines_head_columns_and_order() -> None:
    lines = table_lines("s", collect(SweepObjective(name="acc"), pts()))
    assert lines[0] == "s: 4 points, 1 failed, 1 completed with no value; best s-b (acc 0.95, max)"
    header = lines[1].split()
    assert header == ["#", "lr", "phase", "acc", "duration", "key", "note"]
    assert lines[2].split()[:6] == ["1", "0.01", "Completed", "0.95", "1m15s", "s-b"]
    assert lines[4] == "  not ranked (2: failed, no value or not done):"
    assert lines[5].split()[:5] == ["-", "0.001", "Completed", "no", "value"] and lines[5].endswith("no match")
    assert lines[6].endswith("Failed; exit code 3: boom")


def test_failed_points_are_never_numbered_nor_show_a_stale_value() -> None:
    """A search's failed trial may carry the reward it reported before failing: no rank, no value, listed apart;
    the ranks stay 1, 2, 3 with no gap."""
    trials = [Point(key="t1", phase="Completed", objective=0.5), Point(key="t2", phase="Failed", objective=0.99),
              Point(key="t3", phase="Completed", objective=0.7), Point(key="t4", phase="Completed", objective=0.6),
              Point(key="t5", phase="Running", objective=0.98)]
    lines = table_lines("s", collect(SweepObjective(name="acc"), trials))
    rows = [line.split() for line in lines[2:] if not line.startswith("  not ranked")]
    assert [(r[0], r[-1]) for r in rows] == [("1", "t3"), ("2", "t4"), ("3", "t1"), ("-", "t5"), ("-", "t2")]
    assert "0.99" not in "\n".join(lines) and "0.98" not in "\n".join(lines)
    assert lines[5] == "  not ranked (2: failed, no value or not done):"
    assert lines[0].endswith("best t3 (acc 0.7, max)")


def test_numbers_print_with_sensible_precision() -> None:
    pts_ = [Point(key="a", parameters={"lr": "0.03333333333333333", "bs": 32, "opt": "adam-with-warmup"},
                  phase="Completed", objective=0.123456789)]
    lines = table_lines("s", collect(SweepObjective(name="acc"), pts_))
    assert lines[2].split()[:5] == ["1", "32", "0.0333333", "adam-with-warmup", "Completed"]
    assert "0.123457" in lines[2] and "0.12345678" not in lines[2]


def test_metric_columns_show_the_last_and_the_best_value() -> None:
    from modelarts_provider.results.curves import Curve
    from modelarts_provider.results.table import SweepResults

    loss = Curve(points=[(1, 0.9), (2, 0.3), (3, 0.4)], last=0.4, best=0.3, matches=3)
    acc = Curve(points=[(1, 0.5), (2, 0.8)], last=0.8, best=0.8, matches=2)
    res = collect(SweepObjective(name="acc"), [Point(key="a", phase="Completed", objective=0.8,
                                                     metrics={"loss": loss, "acc": acc}),
                                               Point(key="b", phase="Failed")])
    res = SweepResults(objective=res.objective, metrics=[SweepObjective(name="loss", goal="min"),
                                                         SweepObjective(name="acc")], points=res.points,
                       best=res.best, failures=res.failures)
    lines = table_lines("s", res)
    assert lines[1].split() == ["#", "phase", "acc", "loss", "last/best", "duration", "key"]  # acc: the objective
    assert lines[2].split() == ["1", "Completed", "0.8", "0.4/0.3", "-", "a"]
    assert lines[4].split() == ["-", "Failed", "-", "-", "-", "b"]


def test_table_lines_limit_says_how_many_more() -> None:
    many = [Point(key=f"s-{i}", parameters={"i": i}, phase="Completed", objective=i) for i in range(30)]
    lines = table_lines("s", collect(SweepObjective(name="acc"), many), limit=5)
    assert len(lines) == 2 + 5 + 1 and lines[-1].startswith("  ... 25 more (python -m modelarts_provider results")


def test_retries_are_shown() -> None:
    lines = table_lines("s", collect(None, [Point(key="s-a", phase="Completed", retries=2)]))
    assert lines[2].endswith("retried 2x")


def test_duration_text() -> None:
    assert [duration_text(v) for v in (None, 4.4, 75, 3725)] == ["-", "4s", "1m15s", "1h02m"]


def test_nan_is_never_best_reads_no_value_and_is_counted_apart() -> None:
    import math

    from modelarts_provider.results.table import SweepObjective, SweepResults, collect, table_lines

    points = [Point(key="a", phase="Completed", objective=0.4), Point(key="b", phase="Completed", objective=math.nan),
              Point(key="c", phase="Completed", objective=float("inf")), Point(key="d", phase="Completed",
                                                                                objective=0.9)]
    results = collect(SweepObjective(name="loss", goal="min"), points)
    assert results.best is not None and results.best.key == "a"
    lines = table_lines("lr", results)
    assert lines[0] == "lr: 4 points, 2 completed with no value; best a (loss 0.4, min)", lines
    assert sum("no value" in line for line in lines[2:] if "not ranked" not in line) == 2
    # an export written with NaN/inf as text (an older version) still reads: results works on the sweep
    again = SweepResults.model_validate({"objective": {"name": "loss", "goal": "min"}, "points": [
        {"key": "a", "phase": "Completed", "objective": 0.4}, {"key": "b", "phase": "Completed", "objective": "NaN"},
        {"key": "c", "phase": "Completed", "objective": "Infinity"}]})
    assert [p.objective for p in again.points] == [0.4, None, None]

"""Equal objective values: a grid's points rank by key; a search's trials by the order they started, so the
exported best trial is the one the service's own search names (the earliest of equals)."""

from __future__ import annotations

from modelarts_provider.awaiting.searches import SearchStatus, TrialStatus, export
from modelarts_provider.results.table import Point, SweepObjective, collect

OBJ = SweepObjective(name="accuracy", goal="max")


def test_tied_trials_name_the_earliest_started_as_best() -> None:
    trials = [TrialStatus(trial_id=t, phase="Completed", reward=r)
              for t, r in (("ee882ff6", 0.77), ("cd9583b4", 0.77), ("328df011", 0.77), ("d20653fe", 0.75))]
    out = export(OBJ, SearchStatus(trials=trials), "job-1")
    assert out["best"]["trialId"] == "ee882ff6"
    assert [t["trialId"] for t in out["trials"]] == ["ee882ff6", "cd9583b4", "328df011", "d20653fe"]


def test_tied_grid_points_still_rank_by_key() -> None:
    points = [Point(key=k, parameters={}, phase="Completed", objective=0.5) for k in ("b", "a")]
    assert collect(OBJ, points).best.key == "a"

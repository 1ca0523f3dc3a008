"""A search's chart names its trials by id (issue 56, item 4), from the `searches.<key>` export as `results KEY
--chart` reads it back (awaiting/searches.py) to the legend of the figure drawn (results/chart.py).

Unit level, not under the engine: a search under the real engine writes the PNG already (tests/e2e/test_search.py),
and a PNG's legend cannot be read back; the figure's artists can."""

from __future__ import annotations

from typing import Any

from modelarts_provider.awaiting.searches import SearchStatus, TrialStatus, as_sweep_results, export
from modelarts_provider.results.chart import draw
from modelarts_provider.results.table import SweepObjective


def _legend(fig: Any) -> list[str]:
    return [t.get_text() for ax in fig.axes if ax.get_legend() for t in ax.get_legend().get_texts()] + \
        [t.get_text() for lg in fig.legends for t in lg.get_texts()]


def test_a_searchs_trials_are_named_by_id_in_its_chart_even_when_two_drew_the_same_point() -> None:
    trials = [TrialStatus(trial_id="t-3", phase="Completed", parameters={"lr": "0.1"}, reward=0.8),
              TrialStatus(trial_id="t-7", phase="Completed", parameters={"lr": "0.1"}, reward=0.82),
              TrialStatus(trial_id="t-9", phase="Completed", parameters={"lr": "0.01"}, reward=0.9)]
    exported = export(SweepObjective(name="acc", goal="max"), SearchStatus(trials=trials), "job-1")
    fig = draw("tune", as_sweep_results(exported), by_id=True)
    assert _legend(fig) == ["t-9: lr=0.01 (best): 0.9", "t-7: lr=0.1: 0.82", "t-3: lr=0.1: 0.8"]
    assert "best t-9: lr=0.01: 0.9" in fig._suptitle.get_text()

"""The B4 report's headline (issue 59): the largest sweep's wall against one job's, measured in the same run and
judged by its goal, and API calls per job for each waitFor. No timing: made-up figures."""

from __future__ import annotations

from dataclasses import asdict

from benchmarks.report import b4_markdown
from benchmarks.sweeps import RATIO_GOALS, B4Settings, SweepRun, goals, headline


def _run(wait_for: str, n: int, wall: float, per_job: float, strategy: str = "auto") -> SweepRun:
    return SweepRun(wait_for, strategy, n, 1.0, wall, {"total": round(per_job * n)}, per_job, n, {}, None, None, None)


RUNS = [_run("completed", 1, 16.0, 17.0), _run("completed", 96, 20.8, 1.3), _run("completed", 96, 19.0, 6.0, "get"),
        _run("none", 32, 3.0, 2.06), _run("none", 96, 5.0, 2.03), _run("created", 96, 8.0, 2.07)]


def test_the_headline_says_the_96_job_ratio_against_its_goal_and_calls_per_job_by_wait_for():
    assert RATIO_GOALS[96] == 1.25
    ratio, calls = headline(RUNS)
    assert ratio == ("waitFor completed, wall against one job (side by side, this run): "
                     "N = 96 20.80 s / 16.00 s = 1.30 (goal <= 1.25: NOT met)")
    # the default strategy only, at the largest N of each waitFor
    assert calls == "API calls per job (default strategy): none 2.03 (N = 96), created 2.07 (N = 96), completed 1.30 (N = 96)"
    assert {"goal": "waitFor completed, N = 96: wall / wall(N = 1) <= 1.25", "value": None, "met": None} in goals(RUNS)


def test_the_b4_section_of_results_md_starts_with_the_headline():
    cfg = B4Settings(sizes=[1, 96], call_sizes=[96], strategies=["auto"], latency_ms=100, poll_s=1, calls_poll_s=5,
                     run_s=10, phase_s=1)
    text = "\n".join(b4_markdown({"settings": asdict(cfg), "runs": [asdict(r) for r in RUNS], "goals": []}))
    short = text.split("### In short", 1)[1].split("###", 1)[0]
    assert "N = 96 20.80 s / 16.00 s = 1.30 (goal <= 1.25: NOT met)" in short
    assert "none 2.03 (N = 96), created 2.07 (N = 96), completed 1.30 (N = 96)" in short

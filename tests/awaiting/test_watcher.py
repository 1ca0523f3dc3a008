"""Watcher: recorded workflows replayed on a virtual clock, with every polling strategy they name.

For each workflow and strategy: the outcome (verdict, phase) and reason of every job, which jobs were
terminated, every printed line in order (one per phase change, never two merged), the elapsed virtual
time, and the calls per job (`get`) and per workspace (`page`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from modelarts_provider.awaiting.conditions import Verdict
from modelarts_provider.awaiting.watcher import Result, Watched, Watcher, WaitAborted, WaitCancelled, _State
from modelarts_provider.client.models import TrainingJob
from modelarts_provider.wait_engine import FakeClock

from .replay import ReplayClient, all_workflows, load


class Lines(list):
    def __call__(self, message: str) -> None:
        assert "\n" not in message, f"merged lines: {message!r}"
        self.append(message)


def watched(job: dict[str, Any]) -> Watched:
    return Watched(job["key"], job["id"], job["name"], job["wait_for"], job["timeout_s"], job["poll_s"],
                   job.get("workspace_id"))


def replay(workflow: dict[str, Any], strategy: str) -> tuple[list[Result], ReplayClient, Lines, FakeClock]:
    client, lines, clock = ReplayClient(workflow["jobs"]), Lines(), FakeClock()
    watcher = Watcher(client, lines, strategy=strategy, clock=clock)
    results = watcher.run([watched(j) for j in workflow["jobs"]])
    return results, client, lines, clock


CASES = [(name, strategy) for name in all_workflows() for strategy in load(name)["strategies"]]


def test_the_recordings_are_there():
    assert {"created_then_completed.json", "one_fails_among_many.json", "deadline_passed.json",
            "transient_errors_then_running.json", "deleted_while_waiting.json",
            "terminated_by_someone.json"} <= set(all_workflows())


@pytest.mark.parametrize("name,strategy", CASES, ids=[f"{n[:-5]}-{s}" for n, s in CASES])
def test_recorded_workflow(name, strategy):
    wf = load(name)
    expect = wf["expect"]
    results, client, lines, clock = replay(wf, strategy)

    assert [r.watched.key for r in results] == [j["key"] for j in wf["jobs"]]  # declaration order
    got = {r.watched.key: [r.outcome.verdict.value, r.phase] for r in results}
    assert got == expect["outcomes"]
    reasons = {r.watched.key: r.outcome.reason for r in results if r.outcome.reason}
    assert reasons == expect.get("reasons", {})
    assert {r.watched.key: r.note for r in results if r.note} == expect.get("notes", {})
    assert client.ids("terminate") == set(expect["terminated"])
    assert all(n == 1 for n in client.calls("terminate").values())
    assert lines == expect["lines"]
    assert clock.t == expect["elapsed_s"]
    calls = expect["calls"][strategy]
    assert client.calls("get") == calls["get"]
    assert client.calls("page") == calls["page"]


def test_one_line_per_phase_change_and_never_a_repeat():
    results, _, lines, _ = replay(load("one_fails_among_many.json"), "get")
    per_job: dict[str, list[str]] = {}
    for line in lines:
        if line[0].isdigit():
            continue  # summary
        name, _, text = line.partition(": ")
        per_job.setdefault(name, []).append(text)
    assert per_job["sweep-5"] == ["Creating", "Creating -> Pending", "Pending -> Running", "Running -> Completed",
                                  "reached completed (Completed)"]
    assert per_job["sweep-3"] == ["Pending", "Pending -> Running", "Running -> Failed"]
    assert len(lines) == len(set(lines))


def test_list_and_get_strategies_agree_on_everything_but_the_calls():
    wf = load("one_fails_among_many.json")
    outcomes = []
    for strategy in ("get", "list", "auto"):
        results, _, lines, clock = replay(wf, strategy)
        outcomes.append(([(r.watched.key, r.outcome, r.phase) for r in results], list(lines), clock.t))
    assert outcomes[0] == outcomes[1] == outcomes[2]


def test_list_strategy_costs_a_page_per_round_not_a_call_per_job():
    jobs = [{"key": f"k{i}", "id": f"job-{i}", "name": f"n{i}", "wait_for": "completed", "timeout_s": 600,
             "poll_s": 5, "polls": ["Running", "Running", "Completed"]} for i in range(40)]
    _, by_get, _, _ = replay({"jobs": jobs}, "get")
    _, by_list, _, _ = replay({"jobs": jobs}, "list")
    assert sum(by_get.calls("get").values()) == 120 and by_get.calls("page") == {}
    assert by_list.calls("page") == {"0": 3} and by_list.calls("get") == {}


def test_list_strategy_pages_until_every_awaited_job_was_seen():
    # 90 jobs in the workspace, the 3 awaited ones the oldest (on the second page): no GET needed
    jobs = [{"key": f"k{i}", "id": f"job-{i}", "name": f"n{i}", "wait_for": "created", "timeout_s": 600,
             "poll_s": 5, "polls": ["Running"]} for i in range(90)]
    client, clock = ReplayClient(jobs), FakeClock()
    results = Watcher(client, Lines(), strategy="list", clock=clock).run(
        [watched(j) for j in jobs[:3]])
    assert [r.outcome.verdict for r in results] == [Verdict.REACHED] * 3
    assert client.calls("page") == {"0": 2} and client.calls("get") == {}


def test_list_strategy_falls_back_to_a_get_for_jobs_beyond_the_page_budget():
    jobs = [{"key": f"k{i}", "id": f"job-{i}", "name": f"n{i}", "wait_for": "created", "timeout_s": 600,
             "poll_s": 5, "polls": ["Running"]} for i in range(160)]
    client, clock = ReplayClient(jobs), FakeClock()
    Watcher(client, Lines(), strategy="list", clock=clock).run([watched(j) for j in jobs[:3]])
    # budget: (ceil(3/50) + 1) pages of 50 = 100 jobs; the 3 oldest are further down: one GET each
    assert client.calls("page") == {"0": 2} and client.calls("get") == {"job-0": 1, "job-1": 1, "job-2": 1}


def test_a_non_transient_poll_error_aborts_the_wait():
    jobs = [{"key": "a", "id": "job-a", "name": "a", "wait_for": "completed", "timeout_s": 600, "poll_s": 5,
             "polls": ["Running", {"error": 403}]}]
    client, clock = ReplayClient(jobs), FakeClock()
    with pytest.raises(WaitAborted, match="Recorded.403 recorded HTTP 403"):
        Watcher(client, Lines(), strategy="get", clock=clock).run([watched(jobs[0])])
    assert client.calls("terminate") == {}


def test_the_wait_stops_when_the_engine_is_gone():
    jobs = [{"key": "a", "id": "job-a", "name": "a", "wait_for": "completed", "timeout_s": 600, "poll_s": 5,
             "polls": ["Running"]}]
    client, clock = ReplayClient(jobs), FakeClock()
    alive = iter([True, True, False])
    with pytest.raises(WaitAborted, match="the Pulumi engine that started this wait is gone"):
        Watcher(client, Lines(), strategy="get", clock=clock,
                alive=lambda: next(alive)).run([watched(jobs[0])])
    assert client.calls("get") == {"job-a": 1} and client.calls("terminate") == {}


def test_a_cancel_stops_the_wait_naming_the_jobs_left_running():
    # The engine's Cancel (the first Ctrl-C): checked every round, so the wait stops within a poll.
    jobs = [{"key": k, "id": f"job-{k}", "name": k, "wait_for": "completed", "timeout_s": 600, "poll_s": 5,
             "polls": ["Running"]} for k in ("b", "a")]
    client, clock = ReplayClient(jobs), FakeClock()
    with pytest.raises(WaitCancelled) as e:  # cancelled once the first round of polls went out
        Watcher(client, Lines(), strategy="get", clock=clock,
                cancelled=lambda: bool(client.calls("get"))).run([watched(j) for j in jobs])
    assert str(e.value) == "stopped waiting; 2 jobs keep running: a, b" and e.value.waiting == ["a", "b"]
    assert client.calls("terminate") == {}  # left running, as the engine's state says
    assert str(WaitCancelled(["a"])) == "stopped waiting; 1 job keeps running: a"  # issue 44: not "1 job keep"


def test_each_job_keeps_its_own_poll_interval():
    jobs = [{"key": "fast", "id": "job-f", "name": "f", "wait_for": "completed", "timeout_s": 600, "poll_s": 2,
             "polls": ["Running"] * 5 + ["Completed"]},
            {"key": "slow", "id": "job-s", "name": "s", "wait_for": "completed", "timeout_s": 600, "poll_s": 30,
             "polls": ["Running", "Completed"]}]
    results, client, _, clock = replay({"jobs": jobs}, "get")
    assert client.calls("get") == {"job-f": 6, "job-s": 2} and clock.t == 30
    assert [r.outcome.verdict for r in results] == [Verdict.REACHED, Verdict.REACHED]


def test_summary_line_format():
    def state(phase: str | None) -> _State:
        s = _State(Watched("k", "id", "n", "completed", 1, 1), lambda j, t: None, 0, 0)
        s.phase = phase
        return s

    states = [state(p) for p in ["Running", "Running", "Completed", "Pending", "Queued", None]]
    done = {"a": Result(states[2].watched, type("O", (), {"verdict": Verdict.REACHED})(), None)}
    assert Watcher.summary(states, done) == "6 jobs: 1 Pending, 2 Running, 1 Completed, 1 Queued, 1 unknown (1 done)"


def test_nothing_to_watch_returns_at_once():
    client, clock = ReplayClient([]), FakeClock()
    assert Watcher(client, Lines(), clock=clock).run([]) == [] and client.log == []


def test_fetch_reports_gone_and_transient_views():
    jobs = [{"key": "a", "id": "job-a", "polls": ["Running"]}, {"key": "b", "id": "job-b", "polls": [None]},
            {"key": "c", "id": "job-c", "polls": [{"error": 503}]}]
    client = ReplayClient(jobs)
    fresh = Watcher(client, Lines(), strategy="get").fetch([("job-a", None), ("job-b", None), ("job-c", None)])
    assert isinstance(fresh["job-a"], TrainingJob) and fresh["job-a"].phase == "Running"
    assert fresh["job-b"] is None and not isinstance(fresh["job-c"], TrainingJob) and fresh["job-c"] is not None


def test_the_summary_comes_every_30_s_even_between_polls():
    jobs = [{"key": k, "id": f"job-{k}", "name": k, "wait_for": "completed", "timeout_s": 600, "poll_s": 60,
             "polls": ["Running", "Running", "Completed"]} for k in "abcde"]
    client, lines, clock = ReplayClient(jobs), Lines(), FakeClock()
    Watcher(client, lines, strategy="get", clock=clock, concurrency=1).run([watched(j) for j in jobs])
    summaries = [line for line in lines if line.startswith("5 jobs:")]
    assert summaries == ["5 jobs: 5 Running (0 done)"] * 3 + ["5 jobs: 5 Completed (5 done)"]  # at 30, 60, 90, 120 s
    assert clock.t == 120 and client.calls("get") == {f"job-{k}": 3 for k in "abcde"}


# --- the last points of a sweep polled when they should end (Watcher._align) ----------------------------------

class TimedSweep:
    """Jobs that run from `starts[i]` for `runs[i]` seconds on a FakeClock, then complete; views carry `duration` (ms
    run so far), as the service's do. Every call is logged."""

    def __init__(self, clock: FakeClock, starts: list[float], runs: list[float]) -> None:
        self.clock, self.starts, self.runs = clock, starts, runs
        self.log: list[tuple[str, float]] = []

    def _view(self, i: int) -> TrainingJob:
        t = self.clock.t
        ran = min(max(t - self.starts[i], 0.0), self.runs[i])
        phase = "Pending" if t < self.starts[i] else "Completed" if t >= self.starts[i] + self.runs[i] else "Running"
        return TrainingJob.model_validate({"metadata": {"id": f"job-{i}", "name": f"p{i}", "workspace_id": "0"},
                                           "status": {"phase": phase, "duration": int(ran * 1000)}})

    def get_job(self, job_id: str) -> TrainingJob:
        self.log.append(("get", self.clock.t))
        return self._view(int(job_id.split("-")[1]))

    def iter_jobs(self, page_size: int = 50, *, workspace_id: str | None = None) -> Iterator[TrainingJob]:
        self.log.append(("page", self.clock.t))
        yield from (self._view(i) for i in reversed(range(len(self.starts))))


def _sweep(starts: list[float], runs: list[float], group: str | None = "s", poll_s: float = 10.0
           ) -> tuple[list[Result], TimedSweep, FakeClock]:
    clock = FakeClock()
    client = TimedSweep(clock, starts, runs)
    jobs = [Watched(f"p{i}", f"job-{i}", f"p{i}", "completed", 3600, poll_s, None, group) for i in range(len(starts))]
    return Watcher(client, Lines(), strategy="list", clock=clock).run(jobs), client, clock


def test_a_sweeps_last_points_are_polled_at_the_end_their_completed_points_predict():
    # three points of 100 s started 0, 4 and 8 s in, polled every 10 s: the first is seen done at 100 s (after
    # 100 s of running); the others then predicted to end at 104 s and 108 s, before the poll due at 110 s
    results, client, clock = _sweep([0, 4, 8], [100, 100, 100])
    assert [r.outcome.verdict for r in results] == [Verdict.REACHED] * 3
    assert clock.t == pytest.approx(108 + 0.2)  # not 110: the wait ends 1.8 s sooner
    _, regular, regular_clock = _sweep([0, 4, 8], [100, 100, 100], group=None)  # no sweep: no prediction
    assert regular_clock.t == 110
    assert [t for _, t in client.log][-2:] == [100, pytest.approx(108.2)]  # the poll due at 110 s, moved
    assert len(client.log) == len(regular.log)  # no call more


def test_the_moved_poll_is_never_later_and_a_wrong_prediction_falls_back_to_the_interval() -> None:
    # the last point runs 30 s longer than the others: the moved poll (at 108.2 s) finds it running, then it is
    # polled every 10 s again, from there, and seen done at the first poll after 138 s; one call more than regular
    _, client, clock = _sweep([0, 4, 8], [100, 100, 130])
    polls = [t for _, t in client.log]
    assert polls[-5:] == [100, pytest.approx(108.2), pytest.approx(118.2), pytest.approx(128.2), pytest.approx(138.2)]
    assert clock.t == pytest.approx(138.2)  # seen no later than the interval says (a poll at most 10 s after 138)
    regular = _sweep([0, 4, 8], [100, 100, 130], group=None)[1]
    assert len(client.log) <= len(regular.log) + 1
    # a point already past what its sweep ran gets no prediction (the interval, not a poll at once, again and again)
    _, late, late_clock = _sweep([0, 0], [10, 50], poll_s=10)
    assert [t for _, t in late.log] == [0, 10, 20, 30, 40, 50] and late_clock.t == 50

"""The failure report scales (issue 23): 60 failing points print a screenful, grouped by cause, every
job named, log tails for at most 3 jobs per cause, fetched concurrently.

A unit test with a fake client rather than an engine run of 60 jobs: the report's size and its fetches
are what is measured, and 60 real jobs would cost an engine run of minutes on the shared machine."""

from __future__ import annotations

import threading
import time

from modelarts_provider.awaiting.conditions import Outcome, Verdict
from modelarts_provider.awaiting.report import MAX_TAILS, failure_report
from modelarts_provider.awaiting.watcher import Result, Watched
from modelarts_provider.client.models import TaskLogPreview, TrainingJob

LOG = "".join(f"2026-01-01T00:00:{i:02d}Z step {i}\n" for i in range(40)) + "RuntimeError: CUDA out of memory\n"


def failed_job(i: int, code: int, message: str) -> TrainingJob:
    return TrainingJob.model_validate({
        "metadata": {"id": f"id-{i}", "name": f"lr-sweep-point{i}-x1y2z3"},
        "status": {"phase": "Failed", "tasks": ["worker-0"],
                   "task_statuses": [{"task": "worker-0", "exit_code": code, "message": message}]}})


class FakeClient:
    def __init__(self, jobs: dict[str, TrainingJob]) -> None:
        self.jobs = jobs
        self.lock = threading.Lock()
        self.now = self.peak = 0
        self.gets: list[str] = []
        self.logs: list[str] = []

    def _enter(self) -> None:
        with self.lock:
            self.now += 1
            self.peak = max(self.peak, self.now)

    def _leave(self) -> None:
        time.sleep(0.02)
        with self.lock:
            self.now -= 1

    def get_job(self, job_id: str) -> TrainingJob:
        self._enter()
        self.gets.append(job_id)
        self._leave()
        return self.jobs[job_id]

    def get_task_log_preview(self, job_id: str, task: str) -> TaskLogPreview:
        self._enter()
        self.logs.append(job_id)
        self._leave()
        return TaskLogPreview.model_validate({"content": LOG, "current_size": len(LOG), "full_size": len(LOG)})


def results_of(jobs: dict[str, TrainingJob], ok: int = 0) -> list[Result]:
    out = []
    for job_id, job in jobs.items():
        # keys as long as a real sweep's: <sweep>-<values>-<hash6>
        w = Watched(f"lr-sweep-batchsize{job_id[3:]}_lr0p001-a1b2c3", job_id, job.name or "", "completed", 600, 5)
        out.append(Result(w, Outcome(Verdict.FAILED, "failed"), job))
    for i in range(ok):
        w = Watched(f"ok-{i}", f"ok-{i}", f"ok-{i}", "completed", 600, 5)
        out.append(Result(w, Outcome(Verdict.REACHED), None))
    return out


def test_sixty_points_failing_alike_print_a_screenful_naming_every_job() -> None:
    jobs = {f"id-{i}": failed_job(i, 137, "OOMKilled") for i in range(60)}
    client = FakeClient(jobs)
    report = failure_report(client, results_of(jobs, ok=4))
    assert report is not None
    lines = report.splitlines()
    assert len(lines) <= 55, report  # a screenful; it was 1,570 lines
    assert lines[0] == ("60 of 64 awaited training jobs did not reach their target: lr-sweep-batchsize0_lr0p001-a1b2c3, "
                        "lr-sweep-batchsize1_lr0p001-a1b2c3, lr-sweep-batchsize2_lr0p001-a1b2c3, "
                        "lr-sweep-batchsize3_lr0p001-a1b2c3, lr-sweep-batchsize4_lr0p001-a1b2c3 and 55 more")
    assert lines[1] == "- 60 jobs: Failed; exit code 137: OOMKilled"
    assert all(f"lr-sweep-batchsize{i}_lr0p001-a1b2c3" in report for i in range(60))
    assert len(client.logs) == 3  # log tails of 3 jobs of the cause, not 60
    assert report.count("RuntimeError: CUDA out of memory") == 3
    assert "(log tails of 57 more not shown" in report
    assert client.peak > 1  # the details and the logs are fetched side by side
    assert sorted(client.gets) == sorted(jobs)


def test_many_causes_stay_bounded_too() -> None:
    jobs = {f"id-{i}": failed_job(i, 1 + i % 6, f"error kind {i % 6}") for i in range(60)}
    client = FakeClient(jobs)
    report = failure_report(client, results_of(jobs)) or ""
    lines = report.splitlines()
    assert len(lines) <= 120, report
    assert len(client.logs) == MAX_TAILS
    assert report.count("last 8 lines of worker-0:") == MAX_TAILS
    # which jobs failed and why comes first, one line per cause; the tails below
    summary, _, tails = report.partition("\n\n")
    assert summary.count("\n- ") == 6 and "last 8 lines" not in summary, report
    # every cause shows a log before any shows a second one (job i fails with exit code 1 + i % 6)
    tailed = [int(line.split("batchsize")[1].split("_")[0]) for line in tails.splitlines()
              if "last 8 lines of worker-0:" in line]
    per_cause = [sum(1 for i in tailed if i % 6 == c) for c in range(6)]
    assert all(n in (1, 2) for n in per_cause), (per_cause, report)
    assert report.count("- 10 jobs: Failed; exit code") == 6
    assert all(f"lr-sweep-batchsize{i}_lr0p001-a1b2c3" in report for i in range(60))


def test_one_failure_keeps_the_one_line_form_with_a_longer_tail() -> None:
    jobs = {"id-0": failed_job(0, 3, "boom")}
    report = failure_report(FakeClient(jobs), results_of(jobs, ok=1)) or ""
    lines = report.splitlines()
    assert lines[1] == "- lr-sweep-batchsize0_lr0p001-a1b2c3: training job lr-sweep-point0-x1y2z3 (id-0) is Failed; task worker-0: exit code 3: boom"
    assert lines[2] == "" and lines[3].startswith("lr-sweep-batchsize0_lr0p001-a1b2c3 (lr-sweep-point0-x1y2z3): "
                                                  "last 20 lines of worker-0:"), report


def test_nothing_failed_no_report() -> None:
    assert failure_report(FakeClient({}), results_of({}, ok=2)) is None


def test_control_characters_never_reach_the_terminal() -> None:
    jobs = {"id-0": failed_job(0, 3, "boom \x1b[2J cleared")}
    report = failure_report(FakeClient(jobs), results_of(jobs)) or ""
    assert "\x1b" not in report

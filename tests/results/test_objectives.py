"""Objectives read from logs: the last match, no match, not a number, a log that cannot be read; bounded
concurrency."""

from __future__ import annotations

import threading
import time

from modelarts_provider.awaiting.args import Objective
from modelarts_provider.awaiting.objectives import ToRead, last_value, read_objectives
from modelarts_provider.client.errors import ModelArtsError
from modelarts_provider.client.models import TaskLogPreview, TrainingJob

ACC = Objective(name="acc", regex=r"accuracy=([0-9.]+)", goal="max")


def test_last_match_wins() -> None:
    text = "epoch 1 accuracy=0.5\nepoch 2 accuracy=0.7\nvalidation: val_accuracy=0.9123\ntraining finished\n"
    assert last_value(text, ACC).value == 0.9123


def test_no_match_says_so() -> None:
    reading = last_value("loss=0.3\n", ACC)
    assert reading.value is None and reading.note == "no match for 'accuracy=([0-9.]+)' in the log"


def test_a_match_that_is_not_a_number_says_so() -> None:
    reading = last_value("accuracy=.\n", ACC)
    assert reading.value is None and reading.note == "the last match captured '.', not a number"


def job(i: int, tasks: list[str] | None = None) -> TrainingJob:
    return TrainingJob.model_validate({"metadata": {"id": f"job-{i}", "name": f"n{i}"},
                                       "status": {"phase": "Completed", "tasks": tasks or ["worker-0", "worker-1"]}})


class SlowLogs:
    """Answers each preview after a pause, counting how many are in flight at once."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.now = self.peak = 0
        self.asked: list[tuple[str, str]] = []

    def get_task_log_preview(self, job_id: str, task: str) -> TaskLogPreview:
        with self.lock:
            self.now += 1
            self.peak = max(self.peak, self.now)
            self.asked.append((job_id, task))
        time.sleep(0.05)
        with self.lock:
            self.now -= 1
        if job_id == "job-3":
            raise ModelArtsError("ModelArts.0001: throttled", status=429)
        n = int(job_id.split("-")[1])
        return TaskLogPreview.model_validate({"content": f"accuracy={n / 100}\n", "current_size": 14, "full_size": 14})


def test_reads_concurrently_with_a_bound_one_preview_per_job_of_its_first_task() -> None:
    client = SlowLogs()
    readings = read_objectives(client, [ToRead(f"k{i}", job(i), ACC) for i in range(20)], concurrency=4)
    assert client.peak == 4
    assert sorted(client.asked) == sorted((f"job-{i}", "worker-0") for i in range(20))
    assert readings["k7"].value == 0.07
    assert readings["k3"].value is None and readings["k3"].note.startswith("log of worker-0 unavailable: ")


# --- NaN and infinities, linear-time regexes, one pass over a large log ------------------------------------

LOSS = Objective(name="loss", regex=r"loss=([-+0-9.a-zA-Z]+)", goal="min")


def test_nan_and_infinities_are_no_value() -> None:
    for printed in ("nan", "NaN", "inf", "-inf", "Infinity"):
        reading = last_value(f"epoch 3 loss={printed}\n", LOSS)
        assert reading.value is None and reading.note == f"no value: the last match captured {printed!r}"
    assert last_value("loss=0.25\n", LOSS).value == 0.25


def test_a_nested_quantifier_runs_in_linear_time_on_a_long_line_of_digits() -> None:
    nested = Objective(name="acc", regex=r"acc=((?:\d+)+)%")  # exponential with a backtracking engine
    started = time.monotonic()
    reading = last_value("acc=" + "1" * 200_000 + "x\n", nested)
    assert time.monotonic() - started < 1.0 and reading.value is None
    assert last_value("acc=97%\n", nested).value == 97.0


def test_a_regex_that_could_only_backtrack_is_refused_at_check_with_one_line() -> None:
    import pytest
    from pydantic import ValidationError

    from modelarts_provider.stack.config import ObjectiveConfig

    for bad in (r"(acc)=\1", r"(?<=acc=)([0-9.]+)"):
        for model in (ObjectiveConfig, Objective):
            with pytest.raises(ValidationError, match="not a regular expression RE2 accepts: .* is not supported: RE2 "
                                                      "matches in linear time without them"):
                model(name="acc", regex=bad)
    with pytest.raises(ValidationError, match="exactly one group"):
        Objective(name="acc", regex=r"acc=[0-9.]+")


def test_a_large_log_is_read_in_one_pass_from_its_end() -> None:
    big = "".join(f"step {i} accuracy=0.{i % 10}\n" for i in range(200_000)) + "final accuracy=0.987\ndone\n"
    started = time.monotonic()
    assert last_value(big, ACC).value == 0.987
    assert time.monotonic() - started < 0.5  # the last lines only: the match is found from the end


def test_the_jobs_await_check_refuses_a_regex_re2_cannot_run_before_the_ids_are_known() -> None:
    # JobsAwait.check (both front doors call it): the refusal comes at preview, not after the jobs finished
    from modelarts_provider.core.unknowns import UNKNOWN

    from modelarts_provider.awaiting.provider import JobsAwaitProvider

    news = {"jobs": {"a": {"job_id": UNKNOWN, "wait_for": "completed",
                           "objective": {"name": "acc", "regex": r"(?<=acc=)([0-9.]+)"}}}}
    result = JobsAwaitProvider().check({}, news)
    assert [(f.property, f.reason) for f in result.failures] == [
        ("jobs.a.objective.regex", "'(?<=acc=)([0-9.]+)' is not a regular expression RE2 accepts: (?<= (a lookahead "
         "or lookbehind) is not supported: RE2 matches in linear time without them")], result.failures

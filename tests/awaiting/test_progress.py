"""Live progress while a JobsAwait waits (issue 41): the latest metric values of running jobs, bounded log reads,
rate-limited lines, and phase lines grouped when a round changes many jobs. Fakes and a virtual clock; the engine
tests (tests/e2e/test_live_progress.py) show the lines through both front doors."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from modelarts_provider.awaiting.args import AwaitedJob
from modelarts_provider.awaiting.progress import LiveMetrics, latest, line
from modelarts_provider.awaiting.watcher import LINES_PER_ROUND, Watched, Watcher
from modelarts_provider.client.models import TrainingJob
from modelarts_provider.wait_engine import FnClock

LOSS = {"name": "loss", "regex": r"epoch (?P<epoch>[0-9]+)/[0-9]+ loss=([0-9.]+)", "goal": "min"}
ACC = {"name": "accuracy", "regex": "accuracy=([0-9.]+)", "goal": "max"}


def view(job_id: str, phase: str) -> TrainingJob:
    return TrainingJob.model_validate({"metadata": {"id": job_id, "name": job_id}, "status": {"phase": phase}})


def log(epochs: int, loss0: float = 2.0) -> str:
    return "".join(f"epoch {k}/10 loss={loss0 / k:.4f} accuracy={0.5 + k / 40:.4f}\n" for k in range(1, epochs + 1))


class Logs:
    """A client whose logs are set by the test; counts the reads per job."""

    def __init__(self) -> None:
        self.text: dict[str, str] = {}
        self.reads: dict[str, int] = {}

    def get_task_log_preview(self, job_id: str, task: str) -> Any:
        assert task == "worker-0"
        self.reads[job_id] = self.reads.get(job_id, 0) + 1
        if job_id not in self.text:
            raise RuntimeError("no log")
        return SimpleNamespace(text=self.text[job_id])


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def spec(job_id: str, **extra: Any) -> AwaitedJob:
    return AwaitedJob.model_validate({"job_id": job_id, "wait_for": "completed", **extra})


def watched(key: str) -> Watched:
    return Watched(key, f"id-{key}", f"name-{key}", "completed", 3600, 5)


def test_latest_values_and_the_line() -> None:
    job = spec("j", objective={"name": "acc", "regex": "accuracy=([0-9.]+)"}, metrics=[LOSS])
    values = latest(log(3), job.series())
    assert values == {"acc": (None, 0.575), "loss": (3.0, 0.6667)}  # the step where the regex captures one
    assert line("a", "Running", values) == "a: Running, step 3: acc 0.575, loss 0.6667"
    assert line("a", "Running", {"loss": (3.0, 0.5), "acc": (7.0, 0.9)}) == \
        "a: Running, loss 0.5 (step 3), acc 0.9 (step 7)"
    assert line("a", "Running", {"acc": (None, 0.9)}) == "a: Running, acc 0.9"
    assert latest("loss=1\nloss=nan\n", [job.metrics[0].model_copy(update={"regex": "loss=([a-z0-9.]+)"})]) == {}


def test_a_line_when_the_values_change_and_reads_at_most_every_interval() -> None:
    client, said, clock = Logs(), [], Clock()
    live = LiveMetrics(client, said.append, {"a": spec("id-a", metrics=[LOSS, ACC]), "plain": spec("id-plain")},
                       clock=clock, read_every_s=10)
    a, plain = watched("a"), watched("plain")
    live([(a, view("id-a", "Pending")), (plain, view("id-plain", "Running"))])
    assert client.reads == {}  # not running yet; a job without metrics is never read
    client.text["id-a"] = log(2)
    live([(a, view("id-a", "Running"))])
    assert said == ["name-a: Running, step 2: loss 1, accuracy 0.55"]
    clock.t = 5
    client.text["id-a"] = log(4)
    live([(a, view("id-a", "Running"))])
    assert client.reads == {"id-a": 1} and len(said) == 1  # read again only after read_every_s
    clock.t = 10
    live([(a, view("id-a", "Running"))])
    assert said[-1] == "name-a: Running, step 4: loss 0.5, accuracy 0.6"
    clock.t = 20
    live([(a, view("id-a", "Running"))])
    assert len(said) == 2 and client.reads == {"id-a": 3}  # the same values: no new line


def test_a_thousand_running_jobs_cost_a_bounded_number_of_reads_and_a_summary_line() -> None:
    client, said, clock = Logs(), [], Clock()
    specs = {f"k{i}": spec(f"id-k{i}", metrics=[LOSS]) for i in range(1000)}
    for i in range(1000):
        client.text[f"id-k{i}"] = log(3, loss0=1.0 + i / 1000)
    live = LiveMetrics(client, said.append, specs, clock=clock, reads_per_poll=16, lines_per_poll=8,
                       summary_every_s=30)
    polled = [(watched(k), view(f"id-{k}", "Running")) for k in specs]
    live(polled)
    assert sum(client.reads.values()) == 16
    assert said == ["progress: 16 jobs report new values; best loss 0.3333 (name-k0)"]
    clock.t = 1
    live(polled)  # 16 more read (never read first), their summary held back: one summary per 30 s
    assert sum(client.reads.values()) == 32 and len(set(client.reads)) == 32 and len(said) == 1
    clock.t = 31
    live(polled)
    assert len(said) == 2 and said[-1].startswith("progress: 16 jobs report new values; best loss 0.3333")


def test_an_unreadable_log_is_skipped() -> None:
    client, said = Logs(), []
    live = LiveMetrics(client, said.append, {"a": spec("id-a", metrics=[LOSS])}, clock=Clock())
    live([(watched("a"), view("id-a", "Running"))])
    assert said == [] and client.reads == {"id-a": 1}


class Phases:
    """Jobs whose phase the test sets."""

    def __init__(self, phases: dict[str, str]) -> None:
        self.phases = phases

    def get_job(self, job_id: str) -> TrainingJob:
        return view(job_id, self.phases[job_id])

    def iter_jobs(self, workspace_id: Any = None) -> Any:
        return iter([view(i, p) for i, p in self.phases.items()])


def test_a_round_that_changes_many_jobs_says_one_line_per_kind() -> None:
    n = LINES_PER_ROUND + 5
    ids = [f"id-k{i}" for i in range(n)]
    client = Phases({i: "Pending" for i in ids})
    said: list[str] = []
    clock = Clock()

    def sleep(s: float) -> None:
        clock.t += max(s, 0.01)
        for i in ids:  # the next poll: all of them completed
            client.phases[i] = "Completed"

    Watcher(client, said.append, strategy="get", clock=FnClock(clock, sleep), summary_from=10**6,
            concurrency=1).run([Watched(f"k{i}", ids[i], f"name-{i}", "completed", 3600, 5) for i in range(n)])
    assert said == [f"{n} jobs changed phase: {n} Pending", f"{n} jobs changed phase: {n} Pending -> Completed",
                    f"{n} jobs reached their target: {n} completed"]


def test_a_small_round_keeps_one_line_per_job() -> None:
    client = Phases({"id-a": "Running", "id-b": "Completed"})
    said: list[str] = []
    Watcher(client, said.append, strategy="get", clock=FnClock(Clock(), lambda s: None),
            concurrency=1).run([Watched("a", "id-a", "a", "running", 3600, 5),
                                Watched("b", "id-b", "b", "completed", 3600, 5)])
    assert said == ["a: Running", "a: reached running (Running)", "b: Completed", "b: reached completed (Completed)"]

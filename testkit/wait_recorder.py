"""Recordings of waits: what one wait saw on the local clouds, and its replay through the wait's own code.

A recording (tests/fixtures/waits/*.json, a `Recording`) is made by scripts/record_waits.py: it runs a workflow
against a local ModelArts (started on a free port), calls one wait of the package the way its provider does
(`CALLS`: the call site and its arguments), on the emulator's clock (`EmulatedClock`: a sleep moves the emulated
clock on, so a 10-minute node wait records in seconds), and the wait engine's observer (`Recorder`) stores every
answer the wait read, at its time on that clock, then the outcome: the number of polls, what the wait said, the
error it raised (or the value it returned, described), the jobs it terminated.

A replay (tests/waits) calls the same call site with the recorded arguments on a `FakeClock`, the engine reading
the recorded answers in place of the service (`Replayer`): the wait must poll at the recorded times, as often,
say the same lines and end the same way. Nothing here is hand-written per wait but the call table.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, TypeAdapter

from modelarts_provider.awaiting.watcher import Watched, Watcher
from modelarts_provider.cli.logs import LogFollower, follow_job
from modelarts_provider.cli.stack_reader import JobRef
from modelarts_provider.client.models import TrainingJob
from modelarts_provider.core.owned_objects import wait_gone
from modelarts_provider.network.provider import wait_active
from modelarts_provider.core import jobs_on_pool as jobs_on
from modelarts_provider.resource_pool.wait import wait_usable
from modelarts_provider.training_job import lifecycle
from modelarts_provider.training_job.name_index import NameIndex
from modelarts_provider.wait_engine import Clock
from modelarts_provider.wait_engine.engine import Condition

WAITS = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "waits"


class Answer(BaseModel):
    model_config = ConfigDict(extra="forbid")

    t: float  # seconds since the wait began, on the wait's clock
    answer: Any  # the read's answer as JSON (the condition's answer type)


class Recording(BaseModel):
    """One wait as it went on the local clouds."""

    model_config = ConfigDict(extra="forbid")

    description: str
    call: str  # CALLS' key: which call site
    args: dict[str, Any]  # its arguments (JSON)
    kind: str  # the engine condition's kind
    timeout_s: float | None  # None: no deadline
    poll_s: float | None  # None: an interval computed per poll (the jobs' watcher)
    answers: list[Answer]
    polls: int
    outcome: str  # done | failed | too late | cancelled (the engine's end)
    error: str | None = None  # the type of what the call site raised
    message: str = ""  # its message
    result: Any = None  # what it returned, described (CALLS)
    lines: list[str]
    terminated: list[str]  # job ids the wait terminated


# --- the call sites ---------------------------------------------------------------------------------------


def _job(args: dict[str, Any]) -> TrainingJob:
    return TrainingJob.model_validate(args["job"])


class _Said:
    """A text stream whose lines are said (a log follow's printed lines, recorded with its notes)."""

    def __init__(self, say: Callable[[str], None]) -> None:
        self.say = say

    def write(self, text: str) -> int:
        for line in text.splitlines():
            self.say(line)
        return len(text)

    def flush(self) -> None:
        pass


def _follow(a: dict[str, Any], say: Callable[[str], None], clock: Clock, client: Any) -> Any:
    job = _job(a)
    return follow_job(client, JobRef(job.id or "", a["label"]), job, a["tasks"], LogFollower(a["tasks"], [], _Said(say), say),
                      say, [], follow=True, interval=a["poll_s"], clock=clock)


@dataclass(frozen=True)
class CallSite:
    run: Callable[[dict[str, Any], Callable[[str], None], Clock, Any], Any]
    describe: Callable[[Any], Any] = lambda _value: None


CALLS: dict[str, CallSite] = {
    "jobs": CallSite(
        lambda a, say, clock, client: Watcher(client, say, strategy=a["strategy"], clock=clock, concurrency=1)
        .run([Watched(**w) for w in a["jobs"]]),
        lambda results: [[r.watched.key, r.outcome.verdict.value, r.phase, r.note, r.outcome.reason]
                         for r in results]),
    "pool usable": CallSite(
        lambda a, say, clock, client: wait_usable(
            lambda: client.get_pool(a["name"]), a["label"], a["want"], a["timeout_s"], a["poll_s"], say,
            scopes=a["scopes"], clock=clock,
            reason=lambda p: client.get_order(p.metadata.order_name).failure() if p.metadata.order_name else None),
        lambda pool: pool.summary()),
    "network active": CallSite(
        lambda a, say, clock, client: wait_active(lambda: client.get_network(a["name"]), a["label"], a["name"],
                                                  a["timeout_s"], a["poll_s"], say, clock),
        lambda net: net.status.phase),
    "pool gone": CallSite(
        lambda a, say, clock, client: wait_gone(lambda: client.get_pool(a["name"]), a["timeout_s"], a["poll_s"],
                                                a["too_late"], clock=clock)),
    "network gone": CallSite(
        lambda a, say, clock, client: wait_gone(lambda: client.get_network(a["name"]), a["timeout_s"], a["poll_s"],
                                                a["too_late"], clock=clock)),
    "job stop": CallSite(
        lambda a, say, clock, client: lifecycle.stop(client, _job(a), a["timeout_s"], a["poll_s"], say, clock),
        lambda job: job.phase if job is not None else None),
    "job deleted": CallSite(
        lambda a, say, clock, client: lifecycle.wait_deleted(client, _job(a), a["timeout_s"], a["poll_s"], clock)),
    "job listing": CallSite(
        lambda a, say, clock, client: NameIndex(client, clock=clock)._list(limit=a["limit"]),
        lambda jobs: sorted(j.name for j in jobs)),
    "log follow": CallSite(_follow, lambda phase: phase),
    "pool job stop": CallSite(
        lambda a, say, clock, client: jobs_on._stop(client, _job(a), a["refusal"], a["poll_s"], say, clock)),
}


# --- recording ---------------------------------------------------------------------------------------------


@dataclass
class _Wait:
    kind: str
    timeout_s: float | None
    poll_s: float | None
    answers: list[Answer] = field(default_factory=list)
    polls: int = 0
    outcome: str = ""


class Recorder:
    """The engine's observer (waiting.observing): every wait's answers, at their time on its clock."""

    def __init__(self) -> None:
        self.waits: list[_Wait] = []

    def started(self, condition: Condition[Any, Any], timeout_s: float, poll_s: float | None, clock: Clock) -> None:
        self.waits.append(_Wait(condition.kind, None if math.isinf(timeout_s) else timeout_s, poll_s))

    def answered(self, condition: Condition[Any, Any], at: float, answer: Any) -> None:
        dumped = TypeAdapter(condition.answer).dump_python(answer, mode="json", by_alias=True, exclude_none=True)
        self.waits[-1].answers.append(Answer(t=round(at, 3), answer=dumped))

    def ended(self, condition: Condition[Any, Any], polls: int, outcome: str, message: str) -> None:
        self.waits[-1].polls, self.waits[-1].outcome = polls, outcome


class Terminations:
    """A client whose terminate_job calls are counted (the real one when recording, none when replaying)."""

    def __init__(self, client: Any = None) -> None:
        self.client = client
        self.terminated: list[str] = []

    def terminate_job(self, job_id: str) -> Any:
        self.terminated.append(job_id)
        return self.client.terminate_job(job_id) if self.client is not None else None

    def __getattr__(self, name: str) -> Any:
        if self.client is None:
            raise AssertionError(f"a replayed wait called the service ({name}) outside its condition's read")
        return getattr(self.client, name)


@dataclass
class Outcome:
    polls: int
    outcome: str
    error: str | None
    message: str
    result: Any
    lines: list[str]
    terminated: list[str]
    waits: list[_Wait]


def call(site: str, args: dict[str, Any], clock: Clock, client: Any) -> Outcome:
    """Run one call site under a Recorder: what it returned or raised, said, terminated, and each wait it ran."""
    from modelarts_provider.wait_engine import observing

    lines: list[str] = []
    counted = Terminations(client)
    recorder = Recorder()
    error, message, result = None, "", None
    with observing(recorder):
        try:
            result = CALLS[site].describe(CALLS[site].run(args, lines.append, clock, counted))
        except AssertionError:
            raise  # a replay that went off the recording: the test fails
        except Exception as err:  # noqa: BLE001 - the outcome recorded is the error the call site raised
            error, message = type(err).__name__, str(err)
    last = recorder.waits[-1] if recorder.waits else _Wait("", None, None)
    return Outcome(last.polls, last.outcome, error, message, result, lines, counted.terminated, recorder.waits)


def record(description: str, site: str, args: dict[str, Any], clock: Clock, client: Any) -> Recording:
    out = call(site, args, clock, client)
    assert len(out.waits) == 1, f"{site}: {len(out.waits)} waits ran; a recording holds one"
    (w,) = out.waits
    return Recording(description=description, call=site, args=args, kind=w.kind, timeout_s=w.timeout_s,
                     poll_s=w.poll_s, answers=w.answers, polls=w.polls, outcome=w.outcome, error=out.error,
                     message=out.message, result=out.result, lines=out.lines, terminated=out.terminated)


class EmulatedClock:
    """The local ModelArts' clock: a sleep moves it on (phases, nodes and deletes follow), no time passes."""

    def __init__(self, emu: Any) -> None:
        self.emu = emu
        self.t = 0.0

    def now(self) -> float:
        return self.t

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            self.emu.advance(seconds)
            self.t += seconds


# --- replaying ---------------------------------------------------------------------------------------------


class Replayer:
    """The engine's source (waiting.replaying): the recorded answers, in order; notes when each was asked."""

    def __init__(self, recording: Recording, clock: Clock) -> None:
        self.recording = recording
        self.clock = clock
        self.asked: list[float] = []
        self.start: float | None = None

    def read(self, condition: Condition[Any, Any]) -> Any:
        assert condition.kind == self.recording.kind, (condition.kind, self.recording.kind)
        if self.start is None:
            self.start = self.clock.now()
        n = len(self.asked)
        assert n < len(self.recording.answers), f"the replay polled more than the {n} recorded answers"
        self.asked.append(round(self.clock.now() - self.start, 3))
        return TypeAdapter(condition.answer).validate_python(self.recording.answers[n].answer)


def replay(recording: Recording, clock: Clock) -> tuple[Outcome, Replayer]:
    from modelarts_provider.wait_engine import replaying

    replayer = Replayer(recording, clock)
    with replaying(replayer):
        out = call(recording.call, recording.args, clock, None)
    return out, replayer


def load_all() -> dict[str, Recording]:
    return {p.stem: Recording.model_validate_json(p.read_text()) for p in sorted(WAITS.glob("*.json"))}

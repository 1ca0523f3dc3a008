"""The fake's wait_for_phase keeps the real client's contract: same scenarios, same outcomes.

The real loop runs with a scripted get_job and a virtual clock in place of the ``time`` module, so
both sides are deterministic and the sleeps can be compared too.
"""

from __future__ import annotations

import types
from typing import Any

import pytest

from modelarts_provider.client import api
from modelarts_provider.client.api import ModelArtsClient
from modelarts_provider.client.errors import JobFailedError, ModelArtsError, WaitTimeout
from modelarts_provider.client.models import TrainingJob

from .fakes import FakeClient


def _err(status: int | None, code: str | None = None) -> ModelArtsError:
    return ModelArtsError("boom", status=status, error_code=code)


def _job(step: str | tuple[str, str]) -> TrainingJob:
    phase, secondary = step if isinstance(step, tuple) else (step, step)
    return TrainingJob.model_validate({"metadata": {"id": "j1", "name": "n"},
                                       "status": {"phase": phase, "secondary_phase": secondary}})


class Scripted:
    """get_job answers from a script (phase, (phase, secondary), None = gone, or an exception); the last repeats."""

    def __init__(self, script: list[Any]) -> None:
        self.script = script
        self.polls = 0

    def __call__(self, job_id: str) -> TrainingJob | None:
        step = self.script[min(self.polls, len(self.script) - 1)]
        self.polls += 1
        if isinstance(step, Exception):
            raise step
        return None if step is None else _job(step)


def _outcome(call) -> tuple:
    try:
        job = call()
    except WaitTimeout as e:
        return ("WaitTimeout", e.error_code, e.last_phase)
    except JobFailedError as e:
        return ("JobFailedError", e.error_code, e.phase)
    except ModelArtsError as e:
        return ("ModelArtsError", e.error_code, e.status)
    except ValueError as e:
        return ("ValueError", str(e))
    return ("ok", job.phase)


def run_real(monkeypatch, script, until, job_id="j1", **kw) -> tuple:
    clock = types.SimpleNamespace(t=0.0, sleeps=[])

    def sleep(s: float) -> None:
        clock.sleeps.append(s)
        clock.t += s

    monkeypatch.setattr(api, "time", types.SimpleNamespace(monotonic=lambda: clock.t, sleep=sleep))
    real = ModelArtsClient.__new__(ModelArtsClient)  # no settings, no transport: only the loop runs
    real.get_job = get = Scripted(script)
    seen: list[str | None] = []
    out = _outcome(lambda: real.wait_for_phase(job_id, until, on_change=lambda j: seen.append(j.phase), **kw))
    monkeypatch.undo()
    return out, seen, get.polls, clock.sleeps


def run_fake(script, until, job_id="j1", **kw) -> tuple:
    fake = FakeClient()
    fake.get_job = get = Scripted(script)
    seen: list[str | None] = []
    out = _outcome(lambda: fake.wait_for_phase(job_id, until, on_change=lambda j: seen.append(j.phase), **kw))
    return out, seen, get.polls, fake.sleeps


SCENARIOS = {
    "reaches-set": (["Creating", "Pending", "Running"], {"Running"}, {}),
    "reaches-predicate": (["Creating", "Running", "Completed"], lambda p: p == "Completed", {}),
    "failed": (["Running", "Failed"], {"Completed"}, {}),
    "abnormal": (["Running", "Abnormal"], lambda p: p == "Completed", {}),
    "failure-accepted": (["Running", "Failed"], {"Failed", "Completed"}, {}),
    "terminated": (["Pending", "Terminated"], {"Completed"}, {}),
    "terminating-is-not-terminal": (["Running", "Terminating", "Terminating", "Terminated"], {"Completed"}, {}),
    "gone": (["Running", None], {"Completed"}, {}),
    "transient-errors-tolerated": (["Running", _err(503), _err(429), _err(None, "Client.ConnectionError"),
                                    _err(None, "Client.Timeout"), "Completed"], {"Completed"}, {}),
    "non-retryable-error-raised": (["Running", _err(403)], {"Completed"}, {}),
    "secondary-phase-change-counts": ([("Running", "Initializing"), ("Running", "Running"), "Completed"],
                                      {"Completed"}, {}),
    "timeout-with-backoff": (["Running"], {"Completed"}, {"timeout_s": 10, "poll_s": 1, "max_poll_s": 3}),
    "backoff-reset-on-change": (["Pending"] * 4 + ["Running"] * 3 + ["Completed"], {"Completed"},
                                {"poll_s": 1, "max_poll_s": 30}),
    "fixed-interval": (["Running"], {"Completed"}, {"timeout_s": 1, "poll_s": 0.25, "max_poll_s": 0.25}),
    "transient-until-deadline": ([_err(503)], {"Completed"}, {"timeout_s": 2, "poll_s": 0.5}),
    "bad-id": (["Running"], {"Completed"}, {"job_id": "a/b"}),
}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_fake_wait_for_phase_matches_the_real_loop(monkeypatch, name):
    script, until, kw = SCENARIOS[name]
    kw = {"timeout_s": 60, "poll_s": 0.5, **kw}
    real = run_real(monkeypatch, script, until, **kw)
    fake = run_fake(script, until, **kw)
    assert fake == real


def test_scenarios_cover_every_outcome(monkeypatch):
    kinds = set()
    for script, until, kw in SCENARIOS.values():
        out = run_real(monkeypatch, script, until, **{"timeout_s": 60, "poll_s": 0.5, **kw})[0]
        kinds.add(out[:2])
    assert kinds >= {("ok", "Running"), ("ok", "Completed"), ("ok", "Failed"),
                     ("JobFailedError", "Client.JobFailed"), ("WaitTimeout", "Client.WaitTimeout"),
                     ("ModelArtsError", "Client.UnexpectedPhase"), ("ModelArtsError", "ModelArts.2775"),
                     ("ModelArtsError", None), ("ValueError", "invalid training job id 'a/b'")}


def test_backoff_never_sleeps_past_the_deadline():
    out, seen, polls, sleeps = run_fake(["Running"], {"Completed"}, timeout_s=10, poll_s=1, max_poll_s=3)
    assert out == ("WaitTimeout", "Client.WaitTimeout", "Running") and seen == ["Running"]
    assert sleeps == [1, 1.5, 2.25, 3, 2.25] and sum(sleeps) == 10


def test_fake_create_models_the_clients_ambiguous_create():
    from modelarts_provider.training_job.args import TrainingJobArgs
    from modelarts_provider.client.models import CreateTrainingJobRequest

    from .common import job_inputs

    request = CreateTrainingJobRequest.model_validate(TrainingJobArgs.model_validate(job_inputs()).to_wire())
    c = FakeClient()
    c.fail_create_after_commit = True
    job = c.create_job(request)
    assert list(c.jobs) == [job.id] and c.calls == ["create", "search"]  # resolved by name, not resent

    c = FakeClient()
    c.ambiguous_create_unresolved = True
    with pytest.raises(ModelArtsError) as e:
        c.create_job(request)
    assert e.value.error_code == "Client.AmbiguousCreate" and len(c.jobs) == 1  # it did commit

"""Issue 45: a job's inputs are validated once per engine call (normalize.validated), not once per step that
meets them (before: 5 validations in the check of a new job, 7 of an edited one, 15 of a replaced one, 2 to 4
in diff)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from modelarts_provider.training_job import normalize
from modelarts_provider.training_job.args import TrainingJobArgs
from modelarts_provider.training_job.naming import SEED_INPUT

from .common import job_inputs, provider_for
from .fakes import FakeClient


@pytest.fixture
def validations(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Any]]:
    """Every validation of TrainingJobArgs, as it happens (a fresh memo: no other test's values in it)."""
    seen: list[Any] = []
    real = TrainingJobArgs.model_validate.__func__  # type: ignore[attr-defined]

    def counting(cls: type[TrainingJobArgs], obj: Any, *a: Any, **k: Any) -> TrainingJobArgs:
        seen.append(obj)
        return real(cls, obj, *a, **k)

    monkeypatch.setattr(TrainingJobArgs, "model_validate", classmethod(counting))
    monkeypatch.setattr(normalize, "_VALIDATED", type(normalize._VALIDATED)())
    yield seen


def _declared(**over: Any) -> dict[str, Any]:
    news = job_inputs(name=None, derived_name=True, owner={"stack": "organization/proj/dev", "resource": "train"},
                      **over)
    news[SEED_INPUT] = "Q" * 48
    return {k: v for k, v in news.items() if v is not None}


def test_each_engine_call_validates_each_value_once(validations: list[Any]) -> None:
    p = provider_for(FakeClient())
    p._catalog_cache = lambda: None  # type: ignore[method-assign]
    first = p.check({}, _declared()).inputs
    # the declaration with a stand-in name (to derive the name), then named (its run folders): two values
    assert len(validations) == 2
    created = p.create(dict(first))
    olds = {**first, **created.outs}
    validations.clear()
    edited = p.check(olds, _declared(description="new")).inputs
    assert len(validations) == 1  # the edit; the recorded inputs were validated by create already
    validations.clear()
    assert p.diff(created.id, olds, edited).replaces is None
    assert len(validations) <= 1
    validations.clear()
    p.update(created.id, olds, edited)
    assert validations == []  # the diff validated these very inputs
    # what each step saw is what it would have seen validating anew: the inputs recorded are the same
    assert normalize.canonical(edited) == TrainingJobArgs.model_validate(edited).model_dump(
        mode="json", exclude_none=True)


def test_an_invalid_value_fails_each_time_it_is_met(validations: list[Any]) -> None:
    bad = {**job_inputs(), "node_count": 0}
    for _ in range(3):
        with pytest.raises(ValueError, match="node_count"):
            normalize.validated(bad)
    assert len(validations) == 1


def test_unknowns_reach_the_provider_in_one_spelling(monkeypatch: pytest.MonkeyPatch) -> None:
    # the dynamic-provider server hands pulumi's Unknown objects; inside, every unknown is the wire's sentinel
    from pulumi.output import Unknown

    from modelarts_provider.core.unknowns import UNKNOWN

    seen: dict[str, Any] = {}
    p = provider_for(FakeClient())
    p._catalog_cache = lambda: None  # type: ignore[method-assign]
    news = {**job_inputs(), "description": Unknown(), "algorithm": {**job_inputs()["algorithm"],
                                                                    "environments": {"A": Unknown()}}}
    result = p.check({}, news)
    assert result.failures == [] and result.inputs["description"] == UNKNOWN
    assert result.inputs["algorithm"] == UNKNOWN or result.inputs["algorithm"]["environments"]["A"] == UNKNOWN
    real = normalize.try_canonical

    def spy(raw: Any, fallback: Any = None) -> Any:
        seen["raw"] = raw
        return real(raw, fallback)

    import modelarts_provider.training_job.diff as diff_module

    monkeypatch.setattr(diff_module, "try_canonical", spy)
    assert p.diff("id-1", {**normalize.canonical(job_inputs()), "job_id": "id-1", "job_name": "job-a"},
                  {**news, "name": "job-a"}).changes
    assert not any(isinstance(v, Unknown) for v in seen["raw"].values()) and seen["raw"]["description"] == UNKNOWN

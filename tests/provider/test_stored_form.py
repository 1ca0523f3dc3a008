"""What the state records of a job: its inputs without defaults, nulls or message-only fields (normalize.py).

A sweep's `up` costs the engine its jobs' state size at every step, so the stored form is small; and it
must mean exactly what the canonical form means: the same diff, the same spec hash (the derived name),
the same catalog decision, whichever form (this one, or the full one earlier versions wrote) a state holds.
"""

from __future__ import annotations

from typing import Any

from modelarts_provider.training_job.args import TrainingJobArgs
from modelarts_provider.training_job.catalog_check import needs_check
from modelarts_provider.training_job.check import check_inputs
from modelarts_provider.training_job.normalize import canonical, spec_hash, stored_form

from .common import job_inputs, provider_for
from .fakes import FakeClient

CONFIG_KEYS = {"flavor_id": "modelarts-jobs:pools.cpu.flavor"}


ENGINE = {"engine_name": "PyTorch", "engine_version": "pytorch_1.8.0-cuda_10.2-py_3.7-ubuntu_18.04-x86_64"}


def _declared(**over: Any) -> dict[str, Any]:
    """A job the local catalogs know (flavor and engine), declared with the config keys a stack program sends."""
    base = job_inputs(config_keys=CONFIG_KEYS, **over)
    return {**base, "algorithm": {**base["algorithm"], "engine": ENGINE}}


def _checked(provider: Any, olds: dict[str, Any], news: dict[str, Any]) -> dict[str, Any]:
    result = provider.check(olds, news)
    assert result.failures == []
    return result.inputs


def _full_outputs(inputs: dict[str, Any]) -> dict[str, Any]:
    """Outputs as earlier versions wrote them: every field, nulls and defaults included, and config_keys."""
    return {**TrainingJobArgs.model_validate(inputs).model_dump(mode="json"), "job_id": "j-1",
            "job_name": "job-a", "phase": "Running"}


def test_check_stores_no_default_no_null_and_no_message_field() -> None:
    c = FakeClient()
    stored = _checked(provider_for(c), {}, _declared())
    assert "config_keys" not in stored and "kind" not in stored and "wait_for" not in stored
    assert "environments" not in stored["algorithm"] and "inputs" not in stored["algorithm"]
    assert all(v is not None for v in stored.values())
    assert stored["description"] == "d" and stored["poll_interval_seconds"] == 0.05  # set values stay
    # It means the same declaration.
    assert canonical(stored) == {k: v for k, v in canonical(_declared()).items() if k != "config_keys"}
    assert spec_hash(stored) == spec_hash(_declared())


def test_catalog_messages_still_name_the_config_key() -> None:
    c = FakeClient()
    result = provider_for(c).check({}, _declared(flavor_id="modelarts.vm.nope"))
    assert any("modelarts-jobs:pools.cpu.flavor" in f.reason for f in result.failures), result.failures


def test_a_state_in_either_form_diffs_as_unchanged_and_skips_the_catalog() -> None:
    c = FakeClient()
    p = provider_for(c)
    stored = _checked(p, {}, _declared())
    for olds in (_full_outputs(_declared()), {**stored, "job_id": "j-1", "job_name": "job-a", "phase": "Running"}):
        news = _checked(p, olds, _declared())
        d = p.diff("j-1", olds, news)
        assert d.changes is False, (olds, news)
        assert needs_check(olds, check_inputs(_declared(), olds)[0]) is False
    calls = list(c.calls)
    assert "get" not in calls  # an unchanged job's diff reads nothing


def test_a_changed_default_is_still_a_change() -> None:
    c = FakeClient()
    p = provider_for(c)
    olds = {**_checked(p, {}, _declared()), "job_id": "j-1", "job_name": "job-a", "phase": "Running"}
    news = _checked(p, olds, _declared(node_count=2))
    d = p.diff("j-1", olds, news)
    assert d.changes is True and "node_count" in (d.replaces or [])
    back = _checked(p, {**news, "job_id": "j-1", "job_name": "job-a", "phase": "Running"}, _declared())
    assert "node_count" not in back  # back to the default: left out again
    assert p.diff("j-1", {**news, "job_id": "j-1", "job_name": "job-a", "phase": "Running"}, back).changes is True


def test_unknown_values_are_kept_as_they_are() -> None:
    from modelarts_provider.core.unknowns import UNKNOWN

    out = stored_form({**_declared(), "description": UNKNOWN, "config_keys": UNKNOWN})
    assert out["description"] == UNKNOWN and "config_keys" not in out

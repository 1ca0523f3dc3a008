from __future__ import annotations

from modelarts_provider.training_job.args import TrainingJobArgs
from modelarts_provider.training_job.check import check_inputs
from modelarts_provider.training_job.outputs import OUTPUT_KEYS
from modelarts_provider.training_job.provider import TrainingJobProvider
from modelarts_provider.provider_config import resolve_settings
from modelarts_provider.training_job.resource import TrainingJob, TrainingJobInputs

from .common import job_inputs
from .fakes import FakeClient


def provider(client: FakeClient) -> TrainingJobProvider:
    p = TrainingJobProvider()
    p._settings = resolve_settings(lambda k: {"region": "cn-north-4", "projectId": "p", "accessKey": "AK",
                                              "secretKey": "SK"}.get(k), {})
    p._client = client
    return p


def test_create_read_update_delete_roundtrip():
    c = FakeClient(script=["Creating", "Running", "Completed"])
    p = provider(c)
    inputs, _ = check_inputs(job_inputs())
    created = p.create(inputs)
    outs = created.outs
    assert outs["job_id"] == created.id and outs["phase"] == "Running" and outs["name"] == "job-a"
    assert outs["output_paths"] == {"train_url": "obs://bkt/out/"} and outs["output_path"] == "obs://bkt/out/"
    assert created.id in outs["console_url"]

    read = p.read(created.id, {**outs, "__provider": "x"})
    assert read.outs["phase"] == "Completed" and read.inputs is None  # inputs kept
    assert not p.diff(created.id, read.outs, inputs).changes  # refresh never creates a diff

    calls = len(c.calls)
    upd = p.update(created.id, read.outs, check_inputs(job_inputs(wait_for="completed"))[0])
    assert len(c.calls) == calls and upd.outs["wait_for"] == "completed"  # provider-only: no API call
    upd = p.update(created.id, read.outs, check_inputs(job_inputs(description="new"))[0])
    assert c.calls[-1] == "update" and upd.outs["description"] == "new"

    p.delete(created.id, upd.outs)
    assert c.jobs == {}
    assert p.read(created.id, upd.outs).id == ""  # gone: dropped from state


def test_check_and_diff_make_no_api_call():
    c = FakeClient()
    p = provider(c)
    inputs = p.check({}, job_inputs()).inputs
    p.diff("x", {**inputs, "phase": "Running"}, inputs)
    assert c.calls == []


def test_missing_credentials_fail_check():
    p = TrainingJobProvider()
    p._config_error = "no credentials: set modelarts:accessKey"
    failures = p.check({}, job_inputs()).failures
    assert any("no credentials" in f.reason for f in failures)


def test_resource_inputs_cover_every_arg_and_outputs_are_declared():
    assert set(TrainingJobInputs.__annotations__) == set(TrainingJobArgs.model_fields)
    assert OUTPUT_KEYS <= set(TrainingJob.__annotations__)

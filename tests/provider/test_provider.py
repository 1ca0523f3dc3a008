"""TrainingJobProvider with the fake client: create submits without waiting, one listing per process,
read/update/delete, and check/diff without API calls."""

from __future__ import annotations


import pytest

from modelarts_provider.training_job.args import TrainingJobArgs
from modelarts_provider.training_job.lifecycle import TrainingJobError
from modelarts_provider.training_job.outputs import OUTPUT_KEYS, JobStatusOutputs, strip_outputs
from modelarts_provider.training_job.provider import TrainingJobProvider
from modelarts_provider.training_job.resource import TrainingJob, TrainingJobInputs

from .common import checked, job_inputs, owner_of, provider_for
from .fakes import FakeClient

@pytest.fixture(autouse=True)
def quiet(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    said: list[str] = []
    monkeypatch.setattr("modelarts_provider.training_job.provider.say", said.append)
    return said


def provider(client: FakeClient) -> TrainingJobProvider:
    return provider_for(client)


def test_create_submits_and_returns_without_waiting():
    c = FakeClient()
    created = provider(c).create(checked())
    outs = created.outs
    # no poll: waiting is the JobsAwait resource's job; the tag request sets the owner mark's tags
    assert c.calls == ["list", "create", "tags_create"]
    assert outs["job_id"] == created.id and outs["phase"] == "Creating" and outs["job_name"] == "job-a"
    assert outs["output_paths"] == {"train_url": "obs://bkt/out/"} and outs["output_path"] == "obs://bkt/out/"
    assert outs["console_url"] == ("https://console-intl.huaweicloud.com/modelarts/?region=cn-north-4"
                                   f"#/trainingJobs/trainingjobDetail?jobId={created.id}")
    assert set(OUTPUT_KEYS) <= set(outs) and outs["name"] == "job-a"
    # The stored form: no default and no null is written (the state holds every job's inputs twice), and
    # reading it back gives the defaults again.
    assert "wait_for" not in outs and "kind" not in outs and None not in outs["algorithm"].values()
    assert TrainingJobArgs.model_validate(strip_outputs(outs)).wait_for == "created"


def test_n_creates_of_one_provider_list_once():
    c = FakeClient()
    p = provider(c)
    ids = [p.create(checked(name=f"job-{i}")).id for i in range(6)]
    assert c.count("list") == 1 and c.count("create") == 6 and len(set(ids)) == 6


def test_create_after_a_killed_up_takes_the_job_over():
    c = FakeClient()
    earlier = c.add(TrainingJobArgs.model_validate(checked()).to_wire(), "Running")  # POSTed, state never written
    created = provider(c).create(checked())
    assert created.id == earlier.id and c.job_calls == ["list"] and created.outs["phase"] == "Running"


def test_create_refuses_a_job_that_is_not_ours():
    c = FakeClient()
    # a colleague's resource's job: same name and spec, another owner token
    theirs = c.add(TrainingJobArgs.model_validate(checked(owner=owner_of("colleague"))).to_wire(), "Running")
    with pytest.raises(TrainingJobError, match=f"a training job named job-a already exists \\({theirs.id}, Running\\)"):
        provider(c).create(checked())
    assert c.touched() == set()


def test_create_read_update_delete_roundtrip():
    c = FakeClient(script=["Creating", "Running", "Completed"])
    p = provider(c)
    inputs = checked()
    created = p.create(inputs)
    outs = created.outs

    read = p.read(created.id, {**outs, "__provider": "x"})
    assert read.id == created.id and read.outs["phase"] == "Running" and "__provider" not in read.outs
    assert read.outs["name"] == "job-a" and read.outs["flavor_id"] == "modelarts.vm.cpu.2u"
    assert not p.diff(created.id, read.outs, inputs).changes  # refresh never creates a diff

    calls = len(c.calls)
    upd = p.update(created.id, read.outs, checked(wait_for="completed"))
    assert len(c.calls) == calls and upd.outs["wait_for"] == "completed"  # provider-only: no API call
    assert upd.outs["phase"] == "Running"  # status kept as last seen
    upd = p.update(created.id, upd.outs, checked(description="new"))
    assert c.log[-1] == ("update", created.id) and upd.outs["description"] == "new"
    assert c.jobs[created.id]["metadata"]["description"] == "new"

    p.delete(created.id, upd.outs)
    assert c.jobs == {}
    assert p.read(created.id, upd.outs).id == ""  # gone: dropped from state


def test_read_shows_a_description_changed_outside():
    c = FakeClient(script=["Running"])
    p = provider(c)
    created = p.create(checked())
    c.jobs[created.id]["metadata"]["description"] = "changed in the console"
    read = p.read(created.id, created.outs)
    assert read.outs["description"] == "changed in the console"
    d = p.diff(created.id, read.outs, checked())
    assert d.changes and not d.replaces  # the next up puts "d" back in place


def test_delete_then_create_with_the_same_name_in_one_process_is_not_refused():
    # delete-before-replace of a job whose name stays: delete, then create, in the same provider process
    c = FakeClient(script=["Creating", "Running"])
    p = provider(c)
    old = p.create(checked())
    p.delete(old.id, old.outs)
    new = p.create(checked(flavor_id="modelarts.vm.cpu.8u"))
    assert new.id != old.id and list(c.jobs) == [new.id] and c.count("list") == 1


def test_diff_result_carries_the_decision():
    p = provider(FakeClient())
    state = {**checked(), "job_id": "j1", "job_name": "job-a", "phase": "Running"}
    d = p.diff("j1", state, checked(flavor_id="f2", name="job-b", delete_before_replace=False,
                                    algorithm={"code_dir": "obs://bkt/code/", "boot_file": "obs://bkt/code/train.py",
                                               "engine": {"engine_name": "PyTorch", "engine_version": "1.8"},
                                               "outputs": [{"name": "train_url", "obs_url": "obs://bkt/out2/"}]}))
    assert d.changes and set(d.replaces) == {"algorithm", "flavor_id", "name"} and d.delete_before_replace is False
    d = p.diff("j1", state, checked(description="x"))
    assert d.changes and d.replaces is None and d.delete_before_replace is None


def test_check_and_diff_make_no_api_call_but_the_catalog_reads_of_jobs_to_submit():
    c = FakeClient()
    p = provider(c)
    state = {**checked(), "job_id": "x", "job_name": "job-a", "phase": "Running"}
    p.check(state, job_inputs())  # unchanged
    p.check(state, job_inputs(description="x", wait_for="none"))  # nothing to submit
    p.diff("x", state, checked())
    assert c.calls == []
    # A new job, and a changed one: the catalogs are read once per process (catalog_check.py), nothing else.
    p.check({}, job_inputs())
    p.check(state, job_inputs(flavor_id="modelarts.vm.cpu.8u"))
    assert c.calls == ["flavors", "engines"]


def test_missing_credentials_fail_check_naming_the_configuration():
    p = TrainingJobProvider()
    p._config_error = "no credentials: set modelarts:accessKey"
    failures = p.check({}, job_inputs()).failures
    assert [(f.property, f.reason) for f in failures] == [
        ("modelarts", "provider configuration: no credentials: set modelarts:accessKey")]


def test_resource_inputs_cover_every_arg_and_outputs_are_declared():
    # derived_name is set by the resource itself (a generated name), never by a user
    assert set(TrainingJobInputs.__annotations__) == set(TrainingJobArgs.model_fields) - {"derived_name"}
    assert OUTPUT_KEYS == set(JobStatusOutputs.model_fields) and OUTPUT_KEYS <= set(TrainingJob.__annotations__)
    assert not OUTPUT_KEYS & set(TrainingJobArgs.model_fields)

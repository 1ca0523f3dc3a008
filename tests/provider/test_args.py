from __future__ import annotations

import pytest
from pulumi.output import Unknown

from modelarts_provider.training_job.args import TrainingJobArgs
from modelarts_provider.training_job.check import check_inputs
from modelarts_provider.core.unknowns import UNKNOWN

from .common import owner_of, CODE, job_inputs


def props(failures):
    return {f.property: f.reason for f in failures}


def test_valid_code_form_normalizes_and_wires_api_obs_paths():
    inputs, failures = check_inputs(job_inputs())
    assert failures == []
    # replacement order: the default rule (diff.py) unless set
    assert inputs["wait_for"] == "created" and inputs.get("delete_before_replace") is None
    wire = TrainingJobArgs.model_validate(inputs).to_wire()
    # the owner mark travels in the create request itself (modelarts_provider.core.ownership)
    assert wire["metadata"] == {"name": "job-a", "description": "d", "annotations": {
        "modelarts-pulumi/owner": "organization/proj/dev::a", "modelarts-pulumi/token": owner_of("a")["token"]}}
    assert wire["algorithm"]["code_dir"] == "/bkt/code/"
    assert wire["algorithm"]["parameters"] == [{"name": "lr", "value": "0.1"}]
    assert wire["algorithm"]["outputs"][0]["remote"] == {"obs": {"obs_url": "/bkt/out/"}}
    assert wire["spec"] == {"resource": {"node_count": 1, "flavor_id": "modelarts.vm.cpu.2u"}}


@pytest.mark.parametrize("algorithm", [
    {"id": "3f5d6706"},
    {"subscription_id": "s", "item_version_id": "v"},
    CODE,
    {"engine": {"image_url": "swr.example/img:1"}, "command": "python t.py"},
])
def test_each_algorithm_form_is_accepted(algorithm):
    assert check_inputs(job_inputs(algorithm=algorithm))[1] == []


def test_environments_accepts_list_of_maps_and_sends_a_map():
    args = TrainingJobArgs.model_validate(job_inputs(algorithm={**CODE, "environments": [{"A": "1"}, {"B": "2"}]}))
    assert args.to_wire()["algorithm"]["environments"] == {"A": "1", "B": "2"}


@pytest.mark.parametrize("over,prop,fragment", [
    ({"name": "bad name!"}, "name", "1-64 characters"),
    ({"name": "x" * 65}, "name", "1-64"),
    ({"name": None}, "name", "required"),
    ({"node_count": 0}, "node_count", "must be at least 1, not 0"),
    ({"wait_for": "forever"}, "wait_for", "must be one of none, created, running or completed, not 'forever'"),
    ({"flavor_id": None}, "flavor_id", "required"),
    ({"description": "x" * 300}, "description", "at most 256"),
    ({"colour": "red"}, "colour", "not a known field"),
    ({"algorithm": {**CODE, "id": "abc"}}, "algorithm", "exactly one algorithm form"),
    ({"algorithm": {"code_dir": "obs://bkt/c/", "engine": CODE["engine"]}}, "algorithm.boot_file", "together"),
    ({"algorithm": {**CODE, "code_dir": "bucket/code"}}, "algorithm.code_dir", "OBS URL"),
    ({"algorithm": {"id": "x", "engine": {"engine_id": "e"}}}, "algorithm.engine", "left blank"),
    ({"algorithm": {"engine": {"image_url": "i"}}}, "algorithm.command", "needs a command"),
    ({"algorithm": {**CODE, "inputs": [{"name": "d"}]}}, "algorithm.inputs[0].obs_url", "exactly one"),
    ({"algorithm": {**CODE, "local_code_dir": "/tmp"}}, "algorithm.local_code_dir", "/home"),
    ({"auto_stop": {"duration": 0}}, "auto_stop.duration", "must be at least 1, not 0"),
    ({"volumes": [{"nfs_server_path": "nocolon", "local_path": "/x"}]}, "volumes[0].nfs_server_path",
     "'nocolon' is not an NFS server path: host:/path, e.g. 192.168.0.82:/data"),
])
def test_one_failure_per_bad_field_naming_it(over, prop, fragment):
    _, failures = check_inputs(job_inputs(**over))
    got = props(failures)
    assert prop in got, got
    assert fragment in got[prop]


def test_several_bad_fields_give_several_failures():
    _, failures = check_inputs(job_inputs(name="a b", node_count=-1, wait_for="x"))
    assert set(props(failures)) == {"name", "node_count", "wait_for"}


@pytest.mark.parametrize("unknown", [UNKNOWN, Unknown()], ids=["wire-string", "Unknown-object"])
def test_unknown_values_are_not_failures_during_preview(unknown):
    inputs, failures = check_inputs(job_inputs(name=unknown))
    assert failures == []
    assert inputs["name"] is unknown
    _, failures = check_inputs(job_inputs(name=unknown, node_count=0))
    assert set(props(failures)) == {"node_count"}
    _, failures = check_inputs(job_inputs(algorithm=unknown))
    assert failures == []


def test_output_placeholders_are_dropped():
    inputs, failures = check_inputs({**job_inputs(), "phase": None, "job_id": None, "__provider": "x"})
    assert failures == [] and "phase" not in inputs and "__provider" not in inputs

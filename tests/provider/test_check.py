"""Bad input refused at check (preview), each with its exact message naming the field.

(Sweep grids whose values collide as strings, e.g. true vs "true", are refused by the stack config:
tests/provider/test_stack_config.py, not here.)
"""

from __future__ import annotations

from typing import Any

import pytest

from modelarts_provider.training_job.args import TrainingJobArgs
from modelarts_provider.training_job.check import check_inputs

from .common import CODE, job_inputs

ENGINE = CODE["engine"]


def failures(**over: Any) -> dict[str, str]:
    _, found = check_inputs(job_inputs(**over))
    return {f.property: f.reason for f in found}


def code(code_dir: str, boot_file: str, **more: Any) -> dict[str, Any]:
    return {"code_dir": code_dir, "boot_file": boot_file, "engine": ENGINE, **more}


def test_boot_file_outside_code_dir():
    assert failures(algorithm=code("obs://bkt/code/", "obs://bkt/other/train.py")) == {
        "algorithm.boot_file": "must be inside code_dir 'obs://bkt/code/' (the service requires it), "
                               "not 'obs://bkt/other/train.py'"}


def test_boot_file_is_code_dir_itself_or_a_sibling_prefix():
    assert failures(algorithm=code("obs://bkt/code/", "obs://bkt/code/")) == {
        "algorithm.boot_file": "must be inside code_dir 'obs://bkt/code/' (the service requires it), "
                               "not 'obs://bkt/code/'"}
    assert failures(algorithm=code("obs://bkt/code", "obs://bkt/code2/t.py")) == {
        "algorithm.boot_file": "must be inside code_dir 'obs://bkt/code' (the service requires it), "
                               "not 'obs://bkt/code2/t.py'"}


def test_boot_file_inside_code_dir_in_the_other_spelling_is_accepted():
    assert failures(algorithm=code("obs://bkt/code/", "/bkt/code/sub/train.py")) == {}


def test_tasks_are_refused():
    assert failures(tasks=[{"role": "worker", "algorithm": {"id": "x"}}]) == {
        "tasks": "is not supported: the service documents the task list as not implemented; declare algorithm "
                 "with flavor_id/pool_id instead"}


def test_container_paths_for_code_are_accepted():
    inputs, found = check_inputs(job_inputs(algorithm=code("file:///home/ma-user/code/",
                                                           "file:///home/ma-user/code/train.py")))
    assert found == []
    wire = TrainingJobArgs.model_validate(inputs).to_wire()["algorithm"]
    assert wire["code_dir"] == "file:///home/ma-user/code/" and wire["boot_file"] == "file:///home/ma-user/code/train.py"


def test_container_boot_file_outside_its_code_dir():
    assert failures(algorithm=code("file:///home/ma-user/code/", "file:///home/ma-user/other.py")) == {
        "algorithm.boot_file": "must be inside code_dir 'file:///home/ma-user/code/' (the service requires it), "
                               "not 'file:///home/ma-user/other.py'"}


ESCAPE = "must not contain '..' or '//' inside the path: "


@pytest.mark.parametrize("over,field,value", [
    ({"algorithm": {**CODE, "outputs": [{"name": "o", "obs_url": "obs://bkt/out/../x/"}]}},
     "algorithm.outputs[0].obs_url", "obs://bkt/out/../x/"),
    ({"algorithm": {**CODE, "outputs": [{"name": "o", "obs_url": "obs://bkt/.."}]}},
     "algorithm.outputs[0].obs_url", "obs://bkt/.."),
    ({"algorithm": {**CODE, "inputs": [{"name": "i", "obs_url": "obs://bkt/data//x/"}]}},
     "algorithm.inputs[0].obs_url", "obs://bkt/data//x/"),
    ({"algorithm": {**CODE, "inputs": [{"name": "i", "obs_url": "obs://bkt//x/"}]}},   # right after the bucket
     "algorithm.inputs[0].obs_url", "obs://bkt//x/"),
    ({"algorithm": {**CODE, "inputs": [{"name": "i", "obs_url": "/bkt//x/"}]}},        # the API's spelling
     "algorithm.inputs[0].obs_url", "/bkt//x/"),
    ({"log_export_path": {"obs_url": "/bkt/logs/../../other/"}}, "log_export_path.obs_url", "/bkt/logs/../../other/"),
    ({"algorithm": code("obs://bkt/code/../", "obs://bkt/code/../t.py")}, "algorithm.code_dir", "obs://bkt/code/../"),
    ({"algorithm": code("file:///home/ma-user/code/", "file:///home/ma-user/code/../../etc/x.py")},
     "algorithm.boot_file", "file:///home/ma-user/code/../../etc/x.py"),
    ({"algorithm": {"id": "a", "autosearch_config_path": "obs://bkt/cfg//a.yaml"}},
     "algorithm.autosearch_config_path", "obs://bkt/cfg//a.yaml"),
])
def test_path_escapes_are_refused_naming_the_field(over, field, value):
    got = failures(**over)
    assert got[field] == ESCAPE + repr(value)


@pytest.mark.parametrize("over,field,value", [
    ({"algorithm": {**CODE, "outputs": [{"name": "o", "obs_url": "obs://bkt/out/\x07x/"}]}},
     "algorithm.outputs[0].obs_url", "obs://bkt/out/\x07x/"),
    ({"log_export_path": {"obs_url": "obs://bkt/logs/\x1b[0m/"}}, "log_export_path.obs_url", "obs://bkt/logs/\x1b[0m/"),
    ({"algorithm": {**CODE, "inputs": [{"name": "i", "obs_url": "/bkt/in/\x7f"}]}},
     "algorithm.inputs[0].obs_url", "/bkt/in/\x7f"),
    ({"algorithm": code("file:///home/ma-user/code/", "file:///home/ma-user/code/t\x00.py")},
     "algorithm.boot_file", "file:///home/ma-user/code/t\x00.py"),
])
def test_control_characters_are_refused_naming_the_field(over, field, value):
    got = failures(**over)
    assert got[field] == f"must not contain control characters: {value!r}"


def test_whitespace_control_characters_are_refused_as_not_an_obs_url():
    got = failures(algorithm={**CODE, "outputs": [{"name": "o", "obs_url": "obs://bkt/out/\nx/"}]})
    assert got == {"algorithm.outputs[0].obs_url":
                   "must be an OBS URL such as obs://bucket/path/ (or /bucket/path/), not 'obs://bkt/out/\\nx/'"}


@pytest.mark.parametrize("url", ["obs://bkt/out/", "/bkt/out/a.b/", "obs://my.bucket-1/x..y/", "obs://bkt"])
def test_ordinary_paths_pass(url):
    assert failures(algorithm={**CODE, "outputs": [{"name": "o", "obs_url": url}]}) == {}

"""The takeover comparison (training_job/compare.py) is derived from the fields' declarations (core/fields.py):
a field declared as sent and replacing the job is compared without compare.py naming it; and the rules of what
is compared (only what the declaration states, a field left out as its `unset`) hold field by field."""

from __future__ import annotations

import copy
from typing import Annotated, Any

import pytest
from pydantic import Field

from modelarts_provider.client.models import TrainingJob
from modelarts_provider.core.fields import Change, Declared
from modelarts_provider.training_job.args import TrainingJobArgs
from modelarts_provider.training_job.compare import mismatches

from .common import job_inputs


def args(model: type[TrainingJobArgs] = TrainingJobArgs, **over: Any) -> TrainingJobArgs:
    return model.model_validate(job_inputs(**over))


def live(a: TrainingJobArgs, edit: Any = None) -> TrainingJob:
    """The job as the service gives it back: the create body (the declared spelling /bucket/key), edited."""
    wire = copy.deepcopy(a.to_wire())
    if edit is not None:
        edit(wire)
    return TrainingJob.model_validate(wire)


def test_a_job_matches_its_own_declaration() -> None:
    a = args(node_count=2, volumes=[{"nfs_server_path": "10.0.0.1:/share", "local_path": "/data"}],
             auto_stop={"duration": 3}, log_export_path={"obs_url": "obs://bkt/logs/"}, workspace_id="ws-1",
             annotations={"team": "vision"})
    assert mismatches(a, live(a)) == []


class ProbeArgs(TrainingJobArgs):
    """A field added later: declared as sent and replacing the job, nothing else written for it."""

    probe: Annotated[str | None, Declared(api="spec.probe")] = Field(None, description="A probe field.")
    hidden: Annotated[str | None, Declared(api="spec.hidden", secret=True)] = Field(
        None, description="A secret probe field.")
    label: Annotated[str | None, Declared(api="spec.label", change=Change.IN_PLACE)] = Field(
        None, description="A probe field updated in place.")


def test_a_new_replacing_field_is_compared_from_its_declaration_alone() -> None:
    a = args(ProbeArgs, probe="one")
    assert a.to_wire()["spec"]["probe"] == "one"
    assert mismatches(a, live(a)) == []
    assert mismatches(a, live(a, lambda w: w["spec"].update(probe="two"))) == ["probe: declared 'one', live 'two'"]
    assert mismatches(a, live(a, lambda w: w["spec"].pop("probe"))) == ["probe: declared 'one', live (unset)"]
    # unset in the declaration: not stated, so whatever the service holds is not compared
    assert mismatches(args(ProbeArgs), live(a, lambda w: w["spec"].update(probe="two"))) == []


def test_a_new_secret_field_is_compared_without_its_values_and_an_in_place_one_not_at_all() -> None:
    a = args(ProbeArgs, hidden="s3cr3t-one", label="mine")
    found = mismatches(a, live(a, lambda w: w["spec"].update(hidden="s3cr3t-two", label="theirs")))
    assert found == ["hidden: differs (values not shown)"]


def test_the_workspace_left_out_is_the_default_workspace_on_either_side() -> None:
    a = args()
    assert mismatches(a, live(a, lambda w: w["metadata"].update(workspace_id="0"))) == []
    assert mismatches(a, live(a, lambda w: w["metadata"].update(workspace_id="ws-1"))) == [
        "workspace_id: declared '0', live 'ws-1'"]
    assert mismatches(args(workspace_id="ws-1"), live(a)) == ["workspace_id: declared 'ws-1', live '0'"]


def test_node_count_left_out_by_the_service_is_its_default() -> None:
    a = args()
    drop = lambda w: w["spec"]["resource"].pop("node_count")  # noqa: E731
    assert mismatches(a, live(a, drop)) == []
    assert mismatches(args(node_count=2), live(a, drop)) == ["node_count: declared 2, live 1"]


def test_volumes_compare_whole_and_none_declared_is_none_live() -> None:
    vol = {"nfs_server_path": "10.0.0.1:/share", "local_path": "/data"}
    mounted = args(volumes=[vol])
    assert mismatches(args(), live(mounted)) == [
        "volumes: declared [], live [{'read_only': False, 'nfs_server_path': '10.0.0.1:/share', "
        "'local_path': '/data'}]"]
    assert mismatches(mounted, live(args())) == [
        "volumes: declared [{'read_only': False, 'nfs_server_path': '10.0.0.1:/share', 'local_path': '/data'}], "
        "live []"]
    no_read_only = lambda w: w["spec"]["volumes"][0]["nfs"].pop("read_only")  # noqa: E731 - the service's default
    assert mismatches(mounted, live(mounted, no_read_only)) == []


def test_obs_paths_compare_in_either_spelling_and_show_in_the_declared_one() -> None:
    a = args(algorithm={"code_dir": "obs://bkt/code/", "boot_file": "obs://bkt/code/train.py",
                        "engine": {"engine_name": "PyTorch", "engine_version": "1.8"},
                        "inputs": [{"name": "data", "obs_url": "obs://bkt/data/"}]})
    assert live(a).to_wire()["algorithm"]["code_dir"] == "/bkt/code/"
    assert mismatches(a, live(a)) == []

    def elsewhere(w: dict[str, Any]) -> None:
        w["algorithm"]["inputs"][0]["remote"]["obs"]["obs_url"] = "obs://bkt/other/"
        w["algorithm"]["inputs"][0]["local_dir"] = "/home/ma-user/modelarts/inputs/data_0"  # the service's echo
    assert mismatches(a, live(a, elsewhere)) == [
        "algorithm.inputs[data].obs_url: declared 'obs://bkt/data/', live 'obs://bkt/other/'"]


def test_parameters_compare_the_declared_names_only() -> None:
    a = args()  # lr = 0.1

    def echoed(w: dict[str, Any]) -> None:
        w["algorithm"]["parameters"] = [{"name": "batch", "value": "32", "constraint": {"editable": True}},
                                        {"name": "lr", "value": 0.1, "description": "learning rate"}]
    assert mismatches(a, live(a, echoed)) == []
    assert mismatches(a, live(a, lambda w: w["algorithm"].update(parameters=[{"name": "lr", "value": "0.5"}]))) == [
        "algorithm.parameters[lr]: declared '0.1', live '0.5'"]
    assert mismatches(a, live(a, lambda w: w["algorithm"].update(parameters=[]))) == [
        "algorithm.parameters[lr]: declared '0.1', live (unset)"]


@pytest.mark.parametrize("engine", [{"engine_id": "pytorch-1.8"}, {"engine_name": "PyTorch", "engine_version": "1.8"}])
def test_an_engine_compares_in_the_form_declared_whatever_else_the_service_echoes(engine: dict[str, str]) -> None:
    a = args(algorithm={"code_dir": "obs://bkt/code/", "boot_file": "obs://bkt/code/train.py", "engine": engine})
    echo = {"engine_id": "pytorch-1.8", "engine_name": "PyTorch", "engine_version": "1.8"}
    assert mismatches(a, live(a, lambda w: w["algorithm"].update(engine=echo))) == []
    other = {"engine_id": "tf-2.1", "engine_name": "TensorFlow", "engine_version": "2.1"}
    found = mismatches(a, live(a, lambda w: w["algorithm"].update(engine=other)))
    assert found == [f"algorithm.engine.{k}: declared {v!r}, live {other[k]!r}" for k, v in engine.items()]


def test_annotations_are_compared_only_when_the_service_gives_them() -> None:
    a = args(annotations={"team": "vision"})
    assert mismatches(a, live(a, lambda w: w["metadata"].pop("annotations"))) == []
    assert mismatches(a, live(a, lambda w: w["metadata"].update(annotations={"other": "x"}))) == [
        "annotations[team]: declared 'vision', live (unset)"]


def test_description_and_tags_are_updated_not_compared() -> None:
    a = args(description="mine", tags={"team": "vision"})
    assert mismatches(a, live(args(description="theirs"))) == []


def test_secret_values_are_never_quoted() -> None:
    code = {"code_dir": "obs://bkt/code/", "boot_file": "obs://bkt/code/train.py",
            "engine": {"engine_name": "PyTorch", "engine_version": "1.8"}}
    a = args(annotations={"api_token": "mine-t"}, algorithm={
        **code, "parameters": {"db_password": "mine-p", "lr": "0.1"}, "environments": {"HF_TOKEN": "mine-e", "X": "1"}})
    theirs = args(annotations={"api_token": "theirs-t"}, algorithm={
        **code, "parameters": {"db_password": "theirs-p", "lr": "0.1"}, "environments": {"HF_TOKEN": "theirs-e"}})
    found = mismatches(a, live(theirs))
    assert found == ["annotations[api_token]: differs (values not shown)",
                     "algorithm.parameters[db_password]: differs (values not shown)",
                     "algorithm.environments: declared 'values of HF_TOKEN, X (not shown)', live 'different values'"]
    assert not any(s in line for line in found for s in ("mine", "theirs"))

"""A job argument added by its declaration alone (training_job/args.py, issue 45): `workspace_id`, declared with the
config name `workspaceId`, is a key of every job and sweep, sent as metadata.workspace_id, read back by import,
a replacement when it changes, in the plugin schema and the Python resource's inputs; the local ModelArts holds
the job in that workspace."""

from __future__ import annotations

from typing import Any

import pytest

from modelarts_provider.client.models import CreateTrainingJobRequest
from modelarts_provider.plugin.schema import snake_schema
from modelarts_provider.stack.config import StackConfigError, parse
from modelarts_provider.stack.program import plan
from modelarts_provider.training_job.args import TrainingJobArgs
from modelarts_provider.training_job.diff import decide
from modelarts_provider.training_job.from_live import declaration_of
from modelarts_provider.training_job.resource import TrainingJobInputs
from tests.logs.conftest import client_for
from tests.provider.common import CODE, checked

RAW: dict[str, Any] = {"obs": {"main": {"bucket": "bkt"}}, "pools": {"cpu": {"flavor": "modelarts.vm.cpu.2u"}},
                       "jobs": {"a": {"pool": "cpu", "algorithmId": "x", "workspaceId": "ws-1"},
                                "b": {"pool": "cpu", "algorithmId": "x"}},
                       "sweeps": {"s": {"pool": "cpu", "algorithmId": "x", "grid": {"lr": [0.1]},
                                        "workspaceId": "ws-2"}}}


def test_the_config_key_sets_the_argument_for_jobs_and_sweeps() -> None:
    args = {p.key: p.args for p in plan(parse(RAW))}
    assert args["a"].workspace_id == "ws-1" and args["b"].workspace_id is None
    assert [a.workspace_id for k, a in args.items() if k.startswith("s-")] == ["ws-2"]
    assert args["a"].to_wire()["metadata"]["workspace_id"] == "ws-1"
    assert "workspace_id" not in args["b"].to_wire()["metadata"]


def test_a_bad_value_names_the_config_key() -> None:
    raw = {**RAW, "jobs": {"a": {**RAW["jobs"]["a"], "workspaceId": 7}}}
    with pytest.raises(StackConfigError) as e:
        plan(parse(raw))
    assert "jobs.a.workspaceId" in str(e.value)


def test_a_change_replaces_the_job_and_both_doors_know_it() -> None:
    old, new = checked(workspace_id="ws-1"), checked(workspace_id="ws-2")
    assert decide("id-1", {**old, "job_id": "id-1", "job_name": "job-a"}, new).replaces == ["workspace_id"]
    assert "workspace_id" in TrainingJobInputs.__annotations__
    props = snake_schema("0.0.0")["resources"]["modelarts:index:TrainingJob"]["inputProperties"]
    assert "Workspace" in props["workspace_id"]["description"]


ENGINE = {"engine_name": "PyTorch", "engine_version": "pytorch_1.8.0-cuda_10.2-py_3.7-ubuntu_18.04-x86_64"}


def test_the_service_holds_the_job_in_that_workspace_and_import_reads_it_back(emu: Any) -> None:
    args = TrainingJobArgs.model_validate(checked(workspace_id="ws-1", algorithm={**CODE, "engine": ENGINE}))
    with client_for(emu) as client:  # the local ModelArts' client of tests/logs (short retries)
        job = client.create_job(CreateTrainingJobRequest.model_validate(args.to_wire("job-ws")))
        live = client.get_job(job.id)
    held = [j for j in emu.jobs() if j["metadata"]["id"] == job.id]
    assert held and held[0]["metadata"]["workspace_id"] == "ws-1"
    assert live is not None and declaration_of(live)["workspace_id"] == "ws-1"

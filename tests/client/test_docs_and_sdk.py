"""The client reads and sends exactly what the API documents (issue 14).

* Responses: every response model parses every documented example of all five pages (both editions)
  and keeps every value (exact round trip, type and shape included); and every field of the SDK's
  response models, in the documented types and in the other shape of the tolerance rule (a number
  for a string, a string for a number, one object for an array), parses and is kept.
* Requests: every body the provider can build (every field of its args, through
  ``TrainingJobArgs(...).to_wire()``), task bodies (in the flat form the provider's task models
  produced, and through the args whenever they accept tasks; today they refuse them at check) and
  every documented request example go through the client's request models unchanged (or, for the
  conveniences, into the documented shape) and fit the official SDK's request models: no unknown
  key, no value of another type, no value lost (deserialised into the SDK's classes and serialised
  back by huaweicloudsdkcore).
"""

from __future__ import annotations

import copy
import importlib
import json
import typing
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from modelarts_provider.client.models import (
    ActionRequest,
    CreateTrainingJobRequest,
    ErrorBody,
    SearchFilter,
    TrainingJob,
    TrainingJobList,
    TrainingJobSearchRequest,
    UpdateDescriptionRequest,
    as_list,
)

from .doc_examples import (
    PAGES,
    TERMINATE_RST,
    request_examples,
    response_examples,
    terminate_response_example_otc,
)
from .sdk_reference import body_type, round_trip, synthetic
from .test_fuzz_and_errors import make_client, make_response


def _args_module():
    """The provider's args module (moving from modelarts_provider/args.py to training_job/args.py)."""
    for name in ("modelarts_provider.training_job.args", "modelarts_provider.args"):
        try:
            return importlib.import_module(name)
        except ModuleNotFoundError:
            continue
    raise ModuleNotFoundError("the provider's TrainingJobArgs module")


ARGS = _args_module()
JOB_BODY = body_type("CreateTrainingJobRequest")  # Job


def assert_fits_sdk(body: dict, sdk_body_type: str) -> None:
    sent, problems = round_trip(body, sdk_body_type)
    assert problems == [], "drift from the SDK's request model:\n" + "\n".join(problems)
    assert sent == body, "the SDK would send something else (a value was lost)"


# --- documents: every example of every page --------------------------------------------------------


def test_every_page_gives_its_examples():
    got = {(e.operation, e.edition, e.kind, e.status) for e in request_examples() + response_examples()}
    for page, (operation, edition) in PAGES.items():
        if operation == "create":
            want = {("create", edition, "request", None), ("create", edition, "response", 201),
                    ("create", edition, "response", 400)}
            assert len([e for e in request_examples() if e.page == page]) == 2
        elif operation == "terminate":
            want = {("terminate", edition, "request", None), ("terminate", edition, "response", 202)}
        else:
            want = {("details", edition, "response", 200)}
        assert want <= got, page
    assert len(request_examples()) == 6 and len(response_examples()) == 7


@pytest.mark.parametrize("example", response_examples(), ids=lambda e: e.id)
def test_response_models_parse_every_documented_example(example):
    model = ErrorBody if example.status >= 400 else TrainingJob
    parsed = model.model_validate(copy.deepcopy(example.body))
    # every value kept: type, shape and explicit nulls included
    assert parsed.to_wire(keep_nulls=True) == example.body
    assert json.loads(json.dumps(parsed.to_wire(keep_nulls=True))) == example.body


@pytest.mark.parametrize("example", request_examples(), ids=lambda e: e.id)
def test_request_models_parse_every_documented_example_and_fit_the_sdk(example):
    if example.operation == "terminate":
        req = ActionRequest.model_validate(example.body)
        assert req.to_wire() == example.body == ActionRequest().to_wire()
        assert_fits_sdk(req.to_wire(), body_type("StopTrainingJobRequest"))
        return
    req = CreateTrainingJobRequest.model_validate(copy.deepcopy(example.body))
    assert req.to_wire(keep_nulls=True) == example.body
    assert_fits_sdk(req.to_wire(), JOB_BODY)  # what is sent: explicit nulls dropped


def test_terminate_otc_example_period_number_is_kept():
    """Shape 1: the OTC terminate page's 202 example has "period": 30 (a number) where the tables say
    String. terminate_job returns the job instead of a bad-response error, value kept."""
    body = terminate_response_example_otc()
    client = make_client([make_response(202, json.dumps(body).encode(), method="POST")])
    job = client.terminate_job("cf63aba9-63b1-4219-b717-708a2665100b")
    assert job.phase == "Terminating"
    out = as_list(job.algorithm.outputs)[0]
    assert out.period == 30 and out.mode == "upload_periodically"
    assert job.to_wire(keep_nulls=True) == body
    assert TERMINATE_RST in PAGES


# --- responses: every SDK field, in both shapes of the tolerance rule ------------------------------

# environments: a documented quirk, always normalised to one map (tests in test_models_roundtrip)
SKIP = frozenset({"environments"})
AS_DOCUMENTED = {"str": "s", "int": 7, "float": 7.5, "bool": True, "object": {"o": 1}}
OTHER_SCALARS = {"str": 7, "int": "7", "float": "7.5", "bool": True, "object": {"o": 1}}
VARIANTS = {
    "as-documented": dict(scalar=lambda t, p: AS_DOCUMENTED[t]),
    "numbers-for-strings-and-back": dict(scalar=lambda t, p: OTHER_SCALARS[t]),
    "one-object-for-arrays": dict(scalar=lambda t, p: AS_DOCUMENTED[t], one_for_many=True),
    "both": dict(scalar=lambda t, p: OTHER_SCALARS[t], one_for_many=True),
}


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("sdk_type,model", [("ShowTrainingJobDetailsResponse", TrainingJob),
                                            ("StopTrainingJobResponse", TrainingJob),
                                            ("ListTrainingJobsResponse", TrainingJobList)])
def test_every_sdk_response_field_parses_and_is_kept(sdk_type, model, variant):
    body = synthetic(sdk_type, skip=SKIP, **VARIANTS[variant])
    parsed = model.model_validate(copy.deepcopy(body))
    assert parsed.to_wire(keep_nulls=True) == body
    jobs = parsed.jobs if isinstance(parsed, TrainingJobList) else [parsed]
    for job in jobs:  # typed accessors stay strings whatever the service sent
        assert all(isinstance(v, str) for v in (job.id, job.name, job.phase, job.secondary_phase))
        assert isinstance(job.task_statuses, list)


def test_task_inputs_as_documented_object_and_as_array():
    """Shape 2: tasks[].algorithm.inputs / outputs are one object in every response table and the SDK
    (TaskResponseAlgorithm); a job holding one parses, so do arrays, and both are kept."""
    base = copy.deepcopy(response_examples()[-1].body)
    channel_in = {"name": "data_url", "local_dir": "/home/ma-user/modelarts/inputs/data_url_0",
                  "remote": {"obs": {"obs_url": "/test/data/"}}}
    channel_out = {"name": "train_url", "remote": {"obs": {"obs_url": "/test/out/"}},
                   "mode": "upload_periodically", "period": 30}
    for inputs, outputs in ((channel_in, channel_out), ([channel_in], [channel_out])):
        body = dict(base, tasks=[{"role": "worker", "algorithm": {"code_dir": "/test/code/",
                                                                 "inputs": inputs, "outputs": outputs},
                                  "task_resource": {"flavor_id": "f", "node_count": 1}}])
        job = TrainingJob.model_validate(copy.deepcopy(body))
        assert job.to_wire(keep_nulls=True) == body
        task = as_list(job.tasks)[0]
        assert [c.name for c in as_list(task.algorithm.inputs)] == ["data_url"]
        assert as_list(task.algorithm.outputs)[0].period == 30
        # a search page holding such a job parses whole
        page = TrainingJobList.model_validate({"total": 1, "count": 1, "items": [body]})
        assert page.jobs[0].id == base["metadata"]["id"]


# --- requests: every body the provider can build ---------------------------------------------------

CODE = "obs://bucket-a/code/"
EVERY_ALGORITHM_FIELD = dict(
    id="3f5d6706-7b67-408d-8ba0-ec08048c45ed", name="algorithm-name",
    autosearch_config_path="obs://bucket-a/auto/config.yaml", autosearch_framework_path="obs://bucket-a/auto/fw/",
    parameters=[dict(name="lr", value="0.1", description="learning rate",
                     constraint=dict(type="Float", editable=True, required=False, sensitive=False,
                                     valid_type="Range", valid_range=["0", "1"]),
                     i18n_description=dict(language="en-us", description="learning rate"))],
    policies=dict(auto_search=dict(
        skip_search_params="lr", reward_attrs=[dict(name="acc", mode="max", regex="acc=(.*)")],
        search_params=[dict(name="lr", param_type="continuous", lower_bound="0.001", upper_bound="0.1",
                            discrete_points_num="5", discrete_values=["0.01", "0.05"])],
        algo_configs=[dict(name="bayes", params=[dict(key="k", value="v", type="String")])])),
    inputs=[dict(name="data", obs_url="obs://bucket-a/data/", local_dir="/home/ma-user/data", description="in",
                 remote_constraint=[dict(data_type="obs", attributes="x")]),
            dict(name="ds", dataset=dict(id="ds-1", version_id="v-1", obs_url="/bucket-a/ds/"))],
    outputs=[dict(name="out", obs_url="obs://bucket-a/out/", local_dir="/home/ma-user/out", description="out")],
    local_code_dir="/home/ma-user/code", working_dir="/home/ma-user/work",
    environments={"NCCL_DEBUG": "INFO", "X": "1"},
)
EVERY_TOP_FIELD = dict(
    description="every field", workspace_id="0", kind="job", annotations={"team": "ml", "emulator/outcome": "hang"},
    flavor_id="modelarts.vm.cpu.8u", pool_id="pool-1", node_count=2,
    volumes=[dict(nfs_server_path="192.168.0.82:/", local_path="/home/ma-user/nfs/", read_only=True)],
    log_export_path=dict(obs_url="obs://bucket-a/logs/", host_path="/var/log/jobs"),
    auto_stop=dict(time_unit="HOURS", duration=2),
)
ALGORITHM_FORMS = {
    "id-every-field": EVERY_ALGORITHM_FIELD,
    "subscription": dict(subscription_id="sub-1", item_version_id="ver-1", parameters={"epochs": 3}),
    "code-engine-id": dict(code_dir=CODE, boot_file=CODE + "train.py", engine=dict(engine_id="pytorch-1.8")),
    "code-engine-name": dict(code_dir="/bucket-a/code/", boot_file="/bucket-a/code/train.py",
                             engine=dict(engine_name="PyTorch", engine_version="PyTorch-1.8")),
    "custom-image": dict(engine=dict(image_url="swr.example.com/org/image:1"), command="python train.py"),
}


def provider_args() -> dict[str, BaseModel]:
    return {form: ARGS.TrainingJobArgs(name=f"job-{form}", algorithm=alg, **EVERY_TOP_FIELD)
            for form, alg in ALGORITHM_FORMS.items()}


# Tasks (documented "not implemented currently" by the service) in the flat form the provider's task
# models dumped them (``Task.model_dump(exclude_none=True)``: channels ``{"name", "obs_url"}``), every
# documented task field set. The client sends them in the documented form whoever builds them.
FLAT_TASKS = [
    dict(role="worker",
         algorithm=dict(
             job_config=dict(parameters=EVERY_ALGORITHM_FIELD["parameters"],
                             inputs=[dict(name="cfg-in", obs_url="obs://bucket-a/cfg/",
                                          remote_constraint=[dict(data_type="obs", attributes="x")]),
                                     dict(name="cfg-ds", dataset=dict(id="ds-1", version_id="v-1", obs_url="/b/ds/"))],
                             outputs=[dict(name="cfg-out", obs_url="/bucket-a/cfg-out/")],
                             engine=dict(engine_id="pytorch-1.8")),
             code_dir=CODE, boot_file=CODE + "train.py", engine=dict(engine_name="PyTorch", engine_version="1.8"),
             inputs=[dict(name="data", obs_url="obs://bucket-a/data/", local_dir="/home/ma-user/data",
                          description="d")],
             outputs=[dict(name="out", obs_url="obs://bucket-a/out/", local_dir="/home/ma-user/out",
                           description="o")],
             local_code_dir="/home/ma-user/code", working_dir="/home/ma-user/work"),
         task_resource=dict(flavor_id="modelarts.vm.cpu.8u", node_count=2)),
    dict(algorithm=dict(engine=dict(image_url="swr.example.com/org/image:1")), task_resource=dict(node_count=1)),
]


def _model_types(annotation: Any) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for arg in typing.get_args(annotation) for m in _model_types(arg)]


def _fields_of(model: type[BaseModel], skip: frozenset[str] = frozenset()) -> set[tuple[str, str]]:
    out: set[tuple[str, str]] = set()
    for name, info in model.model_fields.items():
        if name in skip:
            continue
        out.add((model.__name__, name))
        for sub in _model_types(info.annotation):
            if sub is not model:
                out |= _fields_of(sub)
    return out


def _fields_set(value: Any) -> set[tuple[str, str]]:
    out: set[tuple[str, str]] = set()
    if isinstance(value, BaseModel):
        out |= {(type(value).__name__, f) for f in value.model_fields_set}
        for f in value.model_fields_set:
            out |= _fields_set(getattr(value, f))
    elif isinstance(value, (list, tuple)):
        for v in value:
            out |= _fields_set(v)
    elif isinstance(value, dict):
        for v in value.values():
            out |= _fields_set(v)
    return out


def _args_accept_tasks() -> bool:
    try:
        ARGS.TrainingJobArgs(name="with-tasks", tasks=copy.deepcopy(FLAT_TASKS))
    except ValidationError:
        return False
    return True


def test_the_provider_bodies_set_every_field_of_the_args():
    """So that a field added to the args without reaching this test fails here, not at the service."""
    # tasks: below; tags: not in the create body, the tag API's (tests/emulator/test_job_tags.py)
    skip = frozenset(ARGS.PROVIDER_ONLY_FIELDS) | ARGS.MESSAGE_ONLY_FIELDS | {"tasks", "tags"}
    missing = _fields_of(ARGS.TrainingJobArgs, skip) - set().union(*map(_fields_set, provider_args().values()))
    assert not missing, f"set these args fields in the request-body tests: {sorted(missing)}"


@pytest.mark.parametrize("form", ALGORITHM_FORMS)
def test_every_provider_body_is_sent_unchanged_and_fits_the_sdk(form):
    body = provider_args()[form].to_wire()
    sent = CreateTrainingJobRequest.model_validate(copy.deepcopy(body)).to_wire()
    assert sent == body  # the provider already builds the documented shapes: nothing changed, nothing lost
    assert_fits_sdk(sent, JOB_BODY)


def _task_bodies() -> dict[str, dict]:
    """Bodies with tasks: the flat form, and through TrainingJobArgs whenever it accepts tasks."""
    out = {"flat": {"kind": "job", "metadata": {"name": "with-tasks", "description": ""},
                    "tasks": copy.deepcopy(FLAT_TASKS)}}
    if _args_accept_tasks():
        out["args-to-wire"] = ARGS.TrainingJobArgs(name="with-tasks", tasks=copy.deepcopy(FLAT_TASKS)).to_wire()
    return out


def test_the_provider_refuses_tasks_or_its_task_bodies_are_tested():
    """Today the args refuse tasks at check (the service documents them as not implemented), so the
    provider builds no task body; if that changes, its bodies join the test below."""
    assert ("args-to-wire" in _task_bodies()) == _args_accept_tasks()


@pytest.mark.parametrize("source", ["flat", "args-to-wire"])
def test_task_bodies_are_sent_in_the_documented_shape_and_fit_the_sdk(source):
    """Shape 3: task channels are sent as {"name", "remote": {"obs": {"obs_url": "/bucket/path/"}}}
    (create page Tables 16, 31-36; SDK TaskAlgorithmInputs/TaskAlgorithmOutputs), whatever form they
    are handed over in."""
    bodies = _task_bodies()
    if source not in bodies:
        assert not _args_accept_tasks()  # the args refuse tasks at check: nothing else to send
        return
    sent = CreateTrainingJobRequest.model_validate(copy.deepcopy(bodies[source])).to_wire()
    alg = sent["tasks"][0]["algorithm"]
    assert alg["inputs"] == [{"name": "data", "local_dir": "/home/ma-user/data", "description": "d",
                              "remote": {"obs": {"obs_url": "/bucket-a/data/"}}}]
    assert alg["outputs"] == [{"name": "out", "local_dir": "/home/ma-user/out", "description": "o",
                               "remote": {"obs": {"obs_url": "/bucket-a/out/"}}}]
    assert alg["job_config"]["inputs"][0]["remote"] == {"obs": {"obs_url": "/bucket-a/cfg/"}}
    assert alg["job_config"]["inputs"][1]["remote"] == {"dataset": {"id": "ds-1", "version_id": "v-1",
                                                                    "obs_url": "/b/ds/"}}
    assert alg["job_config"]["outputs"][0]["remote"] == {"obs": {"obs_url": "/bucket-a/cfg-out/"}}
    assert_fits_sdk(sent, JOB_BODY)
    # nothing but the channel form changed
    original = copy.deepcopy(bodies[source])
    for a in (original["tasks"][0]["algorithm"], original["tasks"][0]["algorithm"]["job_config"]):
        for key in ("inputs", "outputs"):
            for ch in a[key]:
                if "dataset" in ch:
                    ch["remote"] = {"dataset": ch.pop("dataset")}
                else:
                    url = ch.pop("obs_url")
                    ch["remote"] = {"obs": {"obs_url": "/" + url.removeprefix("obs://").lstrip("/")}}
    assert sent == original


def test_undocumented_task_fields_are_caught():
    """remote_constraint exists on job inputs and job_config inputs, not on a task's own inputs
    (Table 31; SDK TaskAlgorithmInputs): sent there, the SDK check names it."""
    tasks = copy.deepcopy(FLAT_TASKS)
    tasks[0]["algorithm"]["inputs"][0]["remote_constraint"] = [{"data_type": "obs", "attributes": "x"}]
    sent = CreateTrainingJobRequest.model_validate({"metadata": {"name": "t"}, "tasks": tasks}).to_wire()
    assert round_trip(sent, JOB_BODY)[1] == [
        "body.tasks[0].algorithm.inputs[0].remote_constraint: not a field of the SDK's TaskAlgorithmInputs"]


def test_request_conveniences_become_documented_shapes():
    """One channel instead of a list, a dataset channel, numbers as parameter/annotation values."""
    req = CreateTrainingJobRequest.model_validate({
        "metadata": {"name": "n", "annotations": {"emulator/run-seconds": 2, "flag": True}},
        "algorithm": {"code_dir": "/b/c/", "boot_file": "/b/c/t.py", "engine": {"engine_id": "e"},
                      "parameters": [{"name": "lr", "value": 0.1}, {"name": "fast", "value": False}],
                      "inputs": {"name": "ds", "dataset": {"id": "d", "version_id": "v"}},
                      "outputs": {"name": "o", "obs_url": "obs://b/o/"}},
        "tasks": {"algorithm": {"inputs": {"name": "i", "obs_url": "/b/i/"}}},
    })
    sent = req.to_wire()
    assert sent["metadata"]["annotations"] == {"emulator/run-seconds": "2", "flag": "true"}
    assert [p["value"] for p in sent["algorithm"]["parameters"]] == ["0.1", "false"]
    assert sent["algorithm"]["inputs"] == [{"name": "ds", "remote": {"dataset": {"id": "d", "version_id": "v"}}}]
    assert sent["algorithm"]["outputs"] == [{"name": "o", "remote": {"obs": {"obs_url": "/b/o/"}}}]
    assert sent["tasks"] == [{"algorithm": {"inputs": [{"name": "i", "remote": {"obs": {"obs_url": "/b/i/"}}}]}}]
    assert_fits_sdk(sent, JOB_BODY)
    # models passed in (not dicts) get the same treatment
    again = CreateTrainingJobRequest(metadata=req.metadata, algorithm=req.algorithm, tasks=req.tasks)
    assert again.to_wire() == sent


def test_other_request_bodies_fit_the_sdk():
    assert_fits_sdk(UpdateDescriptionRequest(description="d").to_wire(keep_nulls=True),
                    body_type("ChangeTrainingJobDescriptionRequest"))
    search = TrainingJobSearchRequest(offset=50, limit=50, workspace_id="0" * 32, filters=[
        SearchFilter(key="name", operator="like", value=["job"]),
        SearchFilter(key="phase", operator="in", value=["Running", "Pending"])])
    assert_fits_sdk(search.to_wire(), body_type("ListTrainingJobsRequest"))
    assert "workspace_id" not in TrainingJobSearchRequest().to_wire()  # only sent when asked for

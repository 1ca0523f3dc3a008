"""One case per documented create-request rule: status, error code and the named parameter."""

from __future__ import annotations

from typing import Any, Callable

import pytest

from tests.emulator.helpers import minimal_job


def _set(path: str, value: Any) -> Callable[[dict], None]:
    """Mutator setting a dotted path (list indexes as numbers); value DELETE removes the key."""
    def mutate(body: dict) -> None:
        *parents, last = path.split(".")
        node: Any = body
        for p in parents:
            node = node[int(p)] if p.isdigit() else node.setdefault(p, {})
        if value is DELETE:
            del node[last]
        elif isinstance(node, list) and int(last) == len(node):
            node.append(value)
        else:
            node[int(last) if last.isdigit() else last] = value
    return mutate


DELETE = object()
ALG_ID = "3f5d6706-7b67-408d-8ba0-ec08048c45ed"


def _alg(**fields) -> Callable[[dict], None]:
    def mutate(body: dict) -> None:
        body["algorithm"] = fields
    return mutate


def _obs_channel(name: str) -> dict:
    return {"name": name, "remote": {"obs": {"obs_url": f"/emulator-bucket/{name}/"}}}


def _task(**algorithm) -> dict:
    return {"algorithm": algorithm, "task_resource": {"flavor_id": "modelarts.vm.cpu.8u", "node_count": 1}}


def _many(*mutators) -> Callable[[dict], None]:
    def mutate(body: dict) -> None:
        for m in mutators:
            m(body)
    return mutate


CASES = [
    # (id, mutator, error_code, text expected in error_msg)
    ("kind-missing", _set("kind", DELETE), "ModelArts.2788", "kind"),
    ("kind-unknown", _set("kind", "notebook"), "ModelArts.2788", "kind"),
    ("name-missing", _set("metadata.name", DELETE), "ModelArts.2788", "metadata.name"),
    ("name-too-long", _set("metadata.name", "a" * 65), "ModelArts.2788", "metadata.name"),
    ("name-bad-chars", _set("metadata.name", "bad name!"), "ModelArts.2788", "metadata.name"),
    ("description-too-long", _set("metadata.description", "d" * 257), "ModelArts.2788",
     "metadata.description"),
    ("annotations-not-strings", _set("metadata.annotations", {"a": 1}), "ModelArts.2788",
     "metadata.annotations"),
    ("annotation-outcome-unknown", _set("metadata.annotations", {"emulator/outcome": "explode"}),
     "ModelArts.2788", "emulator/outcome"),
    ("annotation-run-seconds-bad", _set("metadata.annotations", {"emulator/run-seconds": "x"}),
     "ModelArts.2788", "emulator/run-seconds"),
    ("algorithm-missing", _set("algorithm", DELETE), "ModelArts.2788", "algorithm"),
    ("algorithm-no-form", _alg(parameters=[]), "ModelArts.2788", "algorithm"),
    ("algorithm-two-forms", _set("algorithm.id", ALG_ID), "ModelArts.2788", "algorithm"),
    ("algorithm-id-unknown", _alg(id="no-such-algorithm"), "ModelArts.2755", "algorithm not found"),
    ("algorithm-id-with-engine", _alg(id=ALG_ID, engine={"engine_id": "pytorch-cp36-1.4.0-v2"}),
     "ModelArts.2788", "algorithm.engine"),
    ("subscription-without-version", _alg(subscription_id="emulator-subscription-0001"),
     "ModelArts.2788", "subscription_id"),
    ("subscription-unknown", _alg(subscription_id="nope", item_version_id="nope"),
     "ModelArts.2755", "algorithm not found"),
    ("code-dir-without-boot-file", _set("algorithm.boot_file", DELETE), "ModelArts.2788",
     "code_dir"),
    ("boot-file-outside-code-dir", _set("algorithm.boot_file", "obs://emulator-bucket/other/t.py"),
     "ModelArts.2788", "algorithm.boot_file"),
    ("code-dir-not-obs", _set("algorithm.code_dir", "s3://bucket/code/"), "ModelArts.2791",
     "algorithm.code_dir"),
    ("command-without-image", _alg(command="python train.py",
                                   engine={"engine_id": "pytorch-cp36-1.4.0-v2"}),
     "ModelArts.2788", "algorithm.command"),
    ("engine-missing", _set("algorithm.engine", DELETE), "ModelArts.2788", "algorithm.engine"),
    ("engine-id-unknown", _set("algorithm.engine", {"engine_id": "cobol-1.0"}), "ModelArts.2780",
     "cobol-1.0"),
    ("engine-name-without-version", _set("algorithm.engine", {"engine_name": "PyTorch"}),
     "ModelArts.2788", "engine_version"),
    ("engine-name-version-unknown",
     _set("algorithm.engine", {"engine_name": "PyTorch", "engine_version": "0.0.1"}),
     "ModelArts.2780", "PyTorch"),
    ("engine-id-and-name", _set("algorithm.engine", {"engine_id": "pytorch-cp36-1.4.0-v2",
                                                     "engine_name": "PyTorch",
                                                     "engine_version": "PyTorch-1.4.0-python3.6-v2"}),
     "ModelArts.2788", "algorithm.engine"),
    ("input-without-name", _set("algorithm.inputs.0.name", DELETE), "ModelArts.2788",
     "algorithm.inputs[0].name"),
    ("input-without-remote", _set("algorithm.inputs.0.remote", DELETE), "ModelArts.2788",
     "algorithm.inputs[0].remote"),
    ("input-bad-obs", _set("algorithm.inputs.0.remote", {"obs": {"obs_url": "bucket/data"}}),
     "ModelArts.2791", "algorithm.inputs[0].remote.obs.obs_url"),
    ("input-dataset-without-version", _set("algorithm.inputs.0.remote", {"dataset": {"id": "d1"}}),
     "ModelArts.2788", "version_id"),
    ("output-without-obs", _set("algorithm.outputs.0.remote", {}), "ModelArts.2788",
     "algorithm.outputs[0].remote.obs"),
    ("output-bad-obs", _set("algorithm.outputs.0.remote.obs.obs_url", "obs://A_B/x"),
     "ModelArts.2791", "algorithm.outputs[0].remote.obs.obs_url"),
    ("duplicate-channel", _set("algorithm.outputs.1", {"name": "train_url", "remote": {
        "obs": {"obs_url": "/emulator-bucket/o2/"}}}), "ModelArts.2788", "duplicate"),
    ("environments-not-map", _set("algorithm.environments", "A=1"), "ModelArts.2788",
     "algorithm.environments"),
    ("environments-non-string", _set("algorithm.environments", {"A": 1}), "ModelArts.2788",
     "algorithm.environments.A"),
    ("local-code-dir-outside-home", _set("algorithm.local_code_dir", "/tmp/code"),
     "ModelArts.2788", "algorithm.local_code_dir"),
    ("spec-missing", _set("spec", DELETE), "ModelArts.2788", "spec"),
    ("resource-empty", _set("spec.resource", {"node_count": 1}), "ModelArts.2788",
     "spec.resource"),
    ("flavor-unknown", _set("spec.resource.flavor_id", "modelarts.vm.quantum.1"), "ModelArts.2763",
     "modelarts.vm.quantum.1"),
    ("node-count-zero", _set("spec.resource.node_count", 0), "ModelArts.2788",
     "spec.resource.node_count"),
    ("node-count-not-int", _set("spec.resource.node_count", "2"), "ModelArts.2788",
     "spec.resource.node_count"),
    ("node-count-over-flavor-max", _set("spec.resource.node_count", 17), "ModelArts.2781",
     "maximum"),
    ("free-flavor-single-node",
     _set("spec.resource", {"flavor_id": "modelarts.p3.large.public.free", "node_count": 2}),
     "ModelArts.2781", "maximum"),
    ("pool-unknown", _set("spec.resource", {"pool_id": "pool-nope", "node_count": 1}),
     "ModelArts.2788", "spec.resource.pool_id"),
    ("pool-flavor-not-in-pool", _set("spec.resource", {"pool_id": "poolfaf38d76",
                                                       "flavor_id": "modelarts.vm.cpu.8u"}),
     "ModelArts.2781", "not available"),
    ("cpu-pool-with-flavor", _set("spec.resource", {"pool_id": "pool-emulator-cpu",
                                                    "flavor_id": "modelarts.pool.visual.xlarge"}),
     "ModelArts.2781", "CPU"),
    ("dedicated-flavor-without-pool",
     _set("spec.resource", {"flavor_id": "modelarts.pool.visual.xlarge", "node_count": 1}),
     "ModelArts.2781", "dedicated"),
    ("pool-node-count-over-max", _set("spec.resource", {"pool_id": "poolfaf38d76",
                                                        "flavor_id": "modelarts.pool.visual.xlarge",
                                                        "node_count": 5}),
     "ModelArts.2781", "maximum"),
    ("log-export-bad-obs", _set("spec.log_export_path", {"obs_url": "http://x/y"}),
     "ModelArts.2791", "spec.log_export_path.obs_url"),
    ("auto-stop-unit", _set("spec.auto_stop", {"time_unit": "MINUTES", "duration": 1}),
     "ModelArts.2788", "spec.auto_stop.time_unit"),
    ("auto-stop-duration-zero", _set("spec.auto_stop", {"time_unit": "HOURS", "duration": 0}),
     "ModelArts.2788", "spec.auto_stop.duration"),
    ("volume-without-server", _set("spec.volumes", [{"nfs": {"local_path": "/home/ma-user/nfs"}}]),
     "ModelArts.2788", "spec.volumes[0].nfs.nfs_server_path"),
    # tasks: the documented request shape (create page Tables 15-37) and our one-channel assumption
    ("task-without-resource", _set("tasks", [{"role": "worker"}]), "ModelArts.2788",
     "tasks[0].task_resource"),
    ("task-without-node-count", _set("tasks", [{"task_resource": {"flavor_id": "modelarts.vm.cpu.8u"}}]),
     "ModelArts.2788", "tasks[0].task_resource.node_count"),
    ("task-unknown-flavor", _set("tasks", [{"task_resource": {"flavor_id": "nope", "node_count": 1}}]),
     "ModelArts.2763", "nope"),
    ("task-flat-channel", _set("tasks", [_task(inputs=[{"name": "d", "obs_url": "/b-1/d/"}])]),
     "ModelArts.2788", "tasks[0].algorithm.inputs[0].remote"),
    ("task-two-inputs", _set("tasks", [_task(inputs=[_obs_channel("a"), _obs_channel("b")])]),
     "ModelArts.2788", "tasks[0].algorithm.inputs"),
    ("task-dataset-input", _set("tasks", [_task(inputs=[
        {"name": "ds", "remote": {"dataset": {"id": "d", "version_id": "v"}}}])]),
     "ModelArts.2788", "tasks[0].algorithm.inputs[0].remote.dataset"),
    ("task-code-without-boot", _set("tasks", [_task(code_dir="/b-1/code/")]), "ModelArts.2788",
     "tasks[0].algorithm.code_dir"),
    ("task-unknown-engine", _set("tasks", [_task(engine={"engine_id": "nope"})]), "ModelArts.2780", "nope"),
]


@pytest.mark.parametrize("mutate,code,text", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_create_rule(api, mutate, code, text):
    body = minimal_job("rule-case")
    mutate(body)
    r = api.create(body)
    assert r.status_code == 400, r.text
    err = r.json()
    assert set(err) == {"error_msg", "error_code", "error_solution"}
    assert err["error_code"] == code, err
    assert text in err["error_msg"], err
    assert api.emu.jobs() == []


def test_invalid_json_is_2787(api):
    r = api.send(api.signed("POST", f"{api.base}/training-jobs", raw_body=b"{not json"))
    assert r.status_code == 400 and r.json()["error_code"] == "ModelArts.2787"
    r = api.create([1, 2])  # JSON, but not an object
    assert r.status_code == 400 and r.json()["error_code"] == "ModelArts.2787"


def test_duplicate_name_is_2751(api):
    assert api.create(minimal_job("twin")).status_code == 201
    r = api.create(minimal_job("twin"))
    assert r.status_code == 400 and r.json()["error_code"] == "ModelArts.2751"
    assert len(api.emu.jobs()) == 1


@pytest.mark.parametrize("name", ["a", "A-b_9", "x" * 64])
def test_valid_names(api, name):
    assert api.create(minimal_job(name)).status_code == 201


def test_accepted_forms_and_defaults(api):
    # environments as an array of maps (response form) is accepted too
    body = minimal_job("env-list")
    body["algorithm"]["environments"] = [{"A": "1"}, {"B": "2"}]
    body["algorithm"]["inputs"].append(
        {"name": "ds", "remote": {"dataset": {"id": "ds-1", "version_id": "v-1"}}})
    body["spec"]["auto_stop"] = {"time_unit": "HOURS", "duration": 2}
    body["spec"]["resource"]["node_count"] = 3
    job = api.create(body).json()
    alg = job["algorithm"]
    assert alg["environments"] == {"A": "1", "B": "2"}  # answered as one map, as the service does
    assert alg["inputs"][1]["local_dir"] == "/home/ma-user/modelarts/inputs/ds_1"
    assert alg["inputs"][1]["remote"]["dataset"]["obs_url"]
    assert job["spec"]["auto_stop"] == {"time_unit": "HOURS", "duration": 2}
    assert job["status"]["tasks"] == ["worker-0", "worker-1", "worker-2"]
    # engine by name + version; subscription form; CPU pool without flavor
    body = minimal_job("by-name")
    body["algorithm"]["engine"] = {"engine_name": "PyTorch",
                                   "engine_version": "PyTorch-1.4.0-python3.6-v2"}
    assert api.create(body).json()["algorithm"]["engine"]["engine_id"] == "pytorch-cp36-1.4.0-v2"
    body = minimal_job("subscribed")
    body["algorithm"] = {"subscription_id": "emulator-subscription-0001",
                         "item_version_id": "emulator-item-version-0001",
                         "parameters": [{"name": "epochs", "value": "3"}]}
    alg = api.create(body).json()["algorithm"]
    assert alg["name"] == "emulator-pytorch-mnist"
    assert {p["name"]: p["value"] for p in alg["parameters"]} == {"epochs": "3", "lr": "0.01"}
    body = minimal_job("cpu-pool")
    body["spec"]["resource"] = {"pool_id": "pool-emulator-cpu", "node_count": 2}
    res = api.create(body).json()["spec"]["resource"]
    assert res == {"policy": "regular", "node_count": 2, "pool_id": "pool-emulator-cpu"}

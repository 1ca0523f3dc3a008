"""The API documents' examples, sent unchanged, give the documented answers."""

from __future__ import annotations

import copy

import pytest

# CreateTrainingJob example requests, verbatim (Huawei Cloud edition; the OTC edition differs only in
# bucket names, hence the parametrisation below).
EXAMPLE_1 = {
    "kind": "job",
    "metadata": {"name": "TestModelArtsJob", "description": "This is a ModelArts job"},
    "algorithm": {
        "id": "3f5d6706-7b67-408d-8ba0-ec08048c45ed",
        "parameters": [
            {"name": "input_dir", "value": "obs://cn-north-4-rse/test/moxingtest-dir/"},
            {"name": "input_file", "value": "obs://cn-north-4-rse/test/moxingtest/"},
            {"name": "large_file_method", "value": "1"},
        ],
        "policies": {"auto_search": None},
        "environments": {},
    },
    "spec": {
        "resource": {"flavor_id": "modelarts.p3.large.public.free", "node_count": 1},
        "log_export_path": {"obs_url": ""},
    },
}
EXAMPLE_2 = {
    "kind": "job",
    "metadata": {"name": "TestModelArtsJob2", "description": "This is a ModelArts job2"},
    "algorithm": {
        "engine": {"image_url": "xxxxxxxx/fastseq:1.2"},
        "command": "cd /home/ma-user/ddp_demo && sh run_ddp.sh",
        "parameters": [],
        "policies": {"auto_search": None},
        "environments": {"NCCL_DEBUG": "INFO", "NCCL_IB_DISABLE": "0"},
    },
    "spec": {
        "resource": {"flavor_id": "modelarts.pool.visual.xlarge", "node_count": 1,
                     "pool_id": "poolfaf38d76"},
        "log_export_path": {"obs_url": "/cn-north-4-training-test/limou/ddp-demo-log/"},
        "volumes": [{"nfs": {"nfs_server_path": "192.168.0.82:/",
                             "local_path": "/home/ma-user/nfs/", "read_only": False}}],
    },
}
DOCUMENTED_400 = {
    "error_msg": "algorithm not found.",
    "error_code": "ModelArts.2755",
    "error_solution": "Check whether the training project information in the request is valid.",
}


def _otc(body: dict) -> dict:
    """The Open Telekom Cloud edition of the same example (anonymised bucket names)."""
    text = repr(body).replace("cn-north-4-rse", "xxxxxx-rse").replace(
        "cn-north-4-training-test", "xxxxxx-training-test")
    return eval(text)  # noqa: S307 - our own literal


def _created(api, example: dict, edition: str) -> tuple[dict, dict]:
    """The documented example in that cloud's edition, and the job the emulator answers (201) to it."""
    body = example if edition == "huaweicloud" else _otc(example)
    r = api.create(copy.deepcopy(body))
    assert r.status_code == 201, r.text
    return body, r.json()


@pytest.mark.parametrize("edition", ["huaweicloud", "otc"])
def test_example_1_free_flavor_algorithm_id(api, edition):
    body, job = _created(api, EXAMPLE_1, edition)
    assert job["kind"] == "job"
    meta = job["metadata"]
    assert meta["name"] == "TestModelArtsJob" and meta["description"] == "This is a ModelArts job"
    assert meta["workspace_id"] == "0" and isinstance(meta["create_time"], int)
    assert len(meta["id"]) == 36 and "user_name" in meta
    assert job["status"] == {"phase": "Creating", "secondary_phase": "Creating", "duration": 0,
                             "start_time": 0, "node_count_metrics": None, "tasks": ["worker-0"]}
    alg = job["algorithm"]
    assert alg["id"] == "3f5d6706-7b67-408d-8ba0-ec08048c45ed"
    assert alg["name"] == "ttt-obs-gpu"
    assert alg["boot_file"].startswith(alg["code_dir"])
    assert alg["engine"] == {"engine_id": "horovod-cp36-tf-1.16.2", "engine_name": "Horovod",
                             "engine_version": "0.16.2-TF-1.13.1-python3.6"}
    assert alg["policies"] == {}
    assert "environments" not in alg
    params = {p["name"]: p for p in alg["parameters"]}
    assert params["input_dir"]["value"] == body["algorithm"]["parameters"][0]["value"]
    assert params["large_file_method"]["constraint"] == {
        "type": "Integer", "editable": True, "required": True, "sensitive": False,
        "valid_type": "None", "valid_range": []}
    assert set(params["input_file"]) == {"name", "description", "i18n_description", "value",
                                         "constraint"}
    res = job["spec"]["resource"]
    assert res["policy"] == "regular"
    assert res["flavor_id"] == "modelarts.p3.large.public.free"
    assert res["flavor_name"] == "Computing GPU(Vnt1) instance"
    assert res["node_count"] == 1
    detail = res["flavor_detail"]
    assert detail["flavor_type"] == "GPU"
    assert detail["billing"] == {"code": "modelarts.vm.gpu.free", "unit_num": 1}
    assert detail["flavor_info"]["cpu"] == {"arch": "x86", "core_num": 8}
    assert detail["flavor_info"]["memory"] == {"size": 64, "unit": "GB"}
    assert job["spec"]["log_export_path"] == {}
    # GET returns the same job
    got = api.get(meta["id"])
    assert got.status_code == 200
    assert got.json()["metadata"] == meta and got.json()["algorithm"] == alg


@pytest.mark.parametrize("edition", ["huaweicloud", "otc"])
def test_example_2_custom_image_dedicated_pool_nfs(api, edition):
    body, job = _created(api, EXAMPLE_2, edition)
    alg = job["algorithm"]
    assert alg["engine"] == {"image_url": "xxxxxxxx/fastseq:1.2"}
    assert alg["command"] == "cd /home/ma-user/ddp_demo && sh run_ddp.sh"
    # environments: accepted as a map, answered as one map, as the service does (Terraform's provider reads a
    # map); the response table's array of maps is --environments-shape array
    assert alg["environments"] == {"NCCL_DEBUG": "INFO", "NCCL_IB_DISABLE": "0"}
    spec = job["spec"]
    assert spec["resource"]["pool_id"] == "poolfaf38d76"
    assert spec["resource"]["flavor_id"] == "modelarts.pool.visual.xlarge"
    assert spec["resource"]["flavor_name"]
    assert spec["resource"]["policy"] == "regular"
    assert spec["volumes"] == body["spec"]["volumes"]
    assert spec["log_export_path"] == body["spec"]["log_export_path"]


def test_documented_400_unknown_algorithm_exact_body(api):
    body = copy.deepcopy(EXAMPLE_1)
    body["algorithm"]["id"] = "3f5d6706-7b67-408d-8ba0-ec08048c45ee"
    r = api.create(body)
    assert r.status_code == 400
    assert r.json() == DOCUMENTED_400


def test_documented_terminate_example_shape(api):
    job = api.create(copy.deepcopy(EXAMPLE_1)).json()
    r = api.terminate(job["metadata"]["id"])
    assert r.status_code == 202
    st = r.json()["status"]
    assert st["phase"] == "Terminating" and st["secondary_phase"] == "Terminating"
    assert st["duration"] == 0 and st["start_time"] == 0 and st["node_count_metrics"] is None
    assert r.json()["metadata"]["id"] == job["metadata"]["id"]

"""The emulator follows the same documents as the client: task jobs in the documented request and
response shapes, the list API's workspace, the gateway's 404, and the duplicate-name switch."""

from __future__ import annotations

import json
import sqlite3

import pytest

from modelarts_emulator.jobs.models import Store, Timings
from modelarts_emulator.testing import running_emulator
from modelarts_emulator.jobs.validation import JobDraft
from tests.client.sdk_reference import fit
from tests.emulator.helpers import FAST, Api, minimal_job

FLAVOR = "modelarts.vm.cpu.8u"
ENGINE = "pytorch_1.8.0-cuda_10.2-py_3.7-ubuntu_18.04-x86_64"


def task_job(name: str = "with-tasks") -> dict:
    """A job described by tasks alone, channels in the documented request form (arrays of remote.obs)."""
    return {
        "kind": "job",
        "metadata": {"name": name, "description": "heterogeneous"},
        "tasks": [
            {"role": "worker",
             "algorithm": {"code_dir": "/emulator-bucket/code/", "boot_file": "/emulator-bucket/code/train.py",
                           "engine": {"engine_id": ENGINE},
                           "inputs": [{"name": "data_url", "description": "d",
                                       "remote": {"obs": {"obs_url": "/emulator-bucket/data/"}}}],
                           "outputs": [{"name": "train_url", "remote": {"obs": {"obs_url": "/emulator-bucket/out/"}}}],
                           "job_config": {"parameters": [{"name": "lr", "value": "0.1"}]},
                           "local_code_dir": "/home/ma-user/code", "working_dir": "/home/ma-user/work"},
             "task_resource": {"flavor_id": FLAVOR, "node_count": 2}},
            {"algorithm": {"engine": {"image_url": "swr.example.com/org/image:1"}},
             "task_resource": {"node_count": 1}},
        ],
    }


def test_task_job_is_echoed_in_the_documented_response_shape(api):
    r = api.create(task_job())
    assert r.status_code == 201, r.text
    job = api.get(r.json()["metadata"]["id"]).json()
    assert "algorithm" not in job and "spec" not in job  # described by its tasks alone
    first, second = job["tasks"]
    alg = first["algorithm"]
    # TaskResponse algorithm (Tables 68-74): one input object and one output object, remote.obs form
    assert alg["inputs"] == {"name": "data_url", "local_dir": "/home/ma-user/modelarts/inputs/data_url_0",
                             "remote": {"obs": {"obs_url": "/emulator-bucket/data/"}}}
    assert alg["outputs"] == {"name": "train_url", "local_dir": "/home/ma-user/modelarts/outputs/train_url_0",
                              "remote": {"obs": {"obs_url": "/emulator-bucket/out/"}},
                              "mode": "upload_periodically", "period": "30s"}
    assert alg["engine"]["engine_id"] == ENGINE and "job_config" not in alg
    assert first["task_resource"]["flavor_id"] == FLAVOR and first["task_resource"]["flavor_type"]
    assert second["algorithm"] == {"engine": {"image_url": "swr.example.com/org/image:1"}}
    assert job["status"]["tasks"] == ["worker-0", "worker-1", "worker-2"]  # 2 + 1 nodes
    # and it is exactly the SDK's TaskResponse (no unknown key, every type as declared)
    for task in job["tasks"]:
        assert fit(task, "TaskResponse")[1] == []
    # the list API renders it the same
    listed = api.search({"filters": [{"key": "name", "operator": "in", "value": ["with-tasks"]}]}).json()
    assert listed["items"][0]["tasks"] == job["tasks"]


def test_a_job_may_have_tasks_and_spec(api):
    body = minimal_job("both")
    body["tasks"] = task_job()["tasks"][1:]
    job = api.create(body).json()
    assert job["spec"]["resource"]["node_count"] == 1 and len(job["tasks"]) == 1


def test_search_lists_one_workspace(api):
    ws = "a" * 32
    for name, workspace in (("in-default", None), ("in-ws", ws)):
        body = minimal_job(name)
        if workspace:
            body["metadata"]["workspace_id"] = workspace
        assert api.create(body).status_code == 201
    default = api.search({}).json()
    assert [j["metadata"]["name"] for j in default["items"]] == ["in-default"]
    assert default["workspace_id"] == "0"  # SDK JobSearches: default "0"
    other = api.search({"workspace_id": ws}).json()
    assert [j["metadata"]["name"] for j in other["items"]] == ["in-ws"] and other["total"] == 1
    assert api.search({"workspace_id": ""}).json()["error_code"] == "ModelArts.2788"


def test_fault_404_is_the_gateways(api):
    job_id = api.create(minimal_job("live")).json()["metadata"]["id"]
    api.emu.set_faults([{"operation": "get", "status": 404}])
    r = api.get(job_id)
    assert r.status_code == 404 and r.json()["error_code"] == "APIGW.0101"
    assert r.json()["error_msg"] == "The API does not exist or has not been published in the environment"
    assert api.get(job_id).status_code == 200  # the job was never gone


def test_duplicate_names_runtime_switch(api, emu):
    assert emu.settings()["allow_duplicate_names"] is False
    assert api.create(minimal_job("twin")).status_code == 201
    assert api.create(minimal_job("twin")).json()["error_code"] == "ModelArts.2751"
    assert emu.settings(allow_duplicate_names=True)["allow_duplicate_names"] is True
    second = api.create(minimal_job("twin"))
    assert second.status_code == 201
    found = api.search({"filters": [{"key": "name", "operator": "in", "value": ["twin"]}]}).json()
    assert found["total"] == 2 and found["items"][0]["metadata"]["id"] == second.json()["metadata"]["id"]
    emu.reset()  # back to the command-line value
    assert emu.settings()["allow_duplicate_names"] is False
    r = api.call("POST", "/_emulator/settings", {"allow_duplicate_names": "maybe"})
    assert r.status_code == 400


def test_allow_duplicate_names_flag(tmp_path):
    with running_emulator(tmp_path, allow_duplicate_names=True, **FAST) as emu:
        api = Api(emu)
        assert [api.create(minimal_job("same")).status_code for _ in range(3)] == [201, 201, 201]
        assert len({j["metadata"]["id"] for j in emu.jobs()}) == 3
        assert emu.settings()["allow_duplicate_names"] is True
        emu.restart()  # the database keeps the three
        assert len(emu.jobs()) == 3


def test_databases_with_unique_names_are_migrated(tmp_path):
    """A database from before --allow-duplicate-names had ``name TEXT NOT NULL UNIQUE``."""
    db = tmp_path / "old.db"
    store = Store(db)
    draft = JobDraft(name="old", description="", workspace_id="0", annotations={}, algorithm={"a": 1},
                     spec={"resource": {}}, node_count=1, outcome="complete", run_seconds=None,
                     exit_code=0, message=None)
    store.create(draft, Timings(1, 1, 1, 1), "u")
    store.close()
    con = sqlite3.connect(db)  # rebuild the table the old way, keeping the row
    sql = con.execute("SELECT sql FROM sqlite_master WHERE name = 'jobs'").fetchone()[0]
    con.executescript("ALTER TABLE jobs RENAME TO j; "
                      + sql.replace("name TEXT NOT NULL,", "name TEXT NOT NULL UNIQUE,")
                      + "; INSERT INTO jobs SELECT * FROM j; DROP TABLE j;")
    con.close()
    store = Store(db)
    assert [r.name for r in store.all_rows()] == ["old"]
    store.create(draft, Timings(1, 1, 1, 1), "u", allow_duplicate_names=True)
    assert [r.name for r in store.all_rows()] == ["old", "old"]
    with pytest.raises(Exception) as ei:
        store.create(draft, Timings(1, 1, 1, 1), "u")
    assert ei.value.code == "ModelArts.2751"
    assert "UNIQUE" not in json.dumps(sqlite3.connect(db).execute(
        "SELECT sql FROM sqlite_master WHERE name = 'jobs'").fetchone()[0].split("name TEXT NOT NULL")[1][:8])
    store.close()


def test_search_offset_counts_pages(api, emu):
    """The API reference, the SDK and Terraform's provider (offset + 1 per page) count pages; ModelArts'
    older Python SDK the jobs to skip: --search-offset items."""
    names = [f"job-{i}" for i in range(5)]
    for n in names:
        api.create(minimal_job(n))
    newest_first = names[::-1]
    body = {"offset": 1, "limit": 2}
    assert [j["metadata"]["name"] for j in api.search(body).json()["items"]] == newest_first[2:4]
    assert emu.settings(search_offset="items")["search_offset"] == "items"
    assert [j["metadata"]["name"] for j in api.search(body).json()["items"]] == newest_first[1:3]
    emu.reset()
    assert emu.settings()["search_offset"] == "pages"


def test_search_all_workspaces_switch(api, emu):
    body = minimal_job("elsewhere")
    body["metadata"]["workspace_id"] = "c" * 32
    api.create(body)
    assert api.search({}).json()["total"] == 0  # the documented default: workspace "0"
    assert emu.settings(search_all_workspaces=True)["search_all_workspaces"] is True
    listed = api.search({}).json()
    assert listed["total"] == 1 and "workspace_id" not in listed
    assert api.search({"workspace_id": "0"}).json()["total"] == 0
    emu.reset()
    assert emu.settings()["search_all_workspaces"] is False

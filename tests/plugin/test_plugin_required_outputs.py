"""The schema's required outputs (a resource's `required` list: what every generated SDK types as always there: `Output<string>` in TypeScript,
`StringOutput` in Go) are derived from the models the providers record their outputs from, and they are true:
every one of them holds a value after each create, read and import through the plugin, against the local
ModelArts and OBS; the outputs that can be absent (a start time, an optional input echoed back) stay optional.
(tests/e2e/test_plugin_typescript.py compiles a strict TypeScript program on them and runs it under the engine.)
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Optional, get_args

import pytest
from pydantic import BaseModel
from pulumi.provider.experimental import provider as p

from modelarts_provider.network.resource import Network
from modelarts_provider.plugin.names import camel
from modelarts_provider.plugin.provider import VERSION, ModelArtsPlugin
from modelarts_provider.plugin.schema import always_set, schema
from modelarts_provider.plugin.values import plain_map, property_map
from modelarts_provider.resource_pool.resource import ResourcePool
from modelarts_provider.training_job.resource import TrainingJob
from testkit.harness import REPO_ROOT
from tests.obs.conftest import code_dir

ALGORITHM_ID = "8d1b2f4c-5a6e-4f70-9b81-c2d3e4f5a6b7"  # in the emulator catalog
GPU = "modelarts.vm.gpu.tnt004"
URN = "urn:pulumi:dev::proj::modelarts:index:{}::{}"


def _required(type_: str) -> list[str]:
    return schema(VERSION)["resources"][f"modelarts:index:{type_}"].get("required", [])


def _unset(type_: str, properties: Any) -> list[str]:
    """The required outputs of `type_` that `properties` (the engine's values) leave out or null."""
    outs = plain_map(properties)
    return [k for k in _required(type_) if outs.get(k) is None]


def test_always_set_is_what_a_type_without_none_holds() -> None:
    class Model(BaseModel):
        given: str
        defaulted: int = 0
        listed: list[str] = []
        maybe: str | None = None
        maybe_old: Optional[int] = 3  # a default, but None is allowed: may be absent
        anything: Any = None

    assert always_set(Model) == {"given", "defaulted", "listed"}


def test_required_outputs_are_named_in_the_schema_and_exclude_what_can_be_absent() -> None:
    resources = schema(VERSION)["resources"]
    for token, spec in resources.items():
        assert set(spec.get("required", [])) <= set(spec["properties"]), token
        assert set(spec.get("requiredInputs", [])) <= set(spec.get("required", [])), token
    job = set(_required("TrainingJob"))
    assert {"jobId", "jobName", "phase", "consoleUrl", "location", "nodeCount", "kind", "description",
            "waitFor", "tags", "durationMs", "outputPaths"} <= job
    # Absent until the job starts or ends, where the declaration leaves them out, or an adopted job's (no name).
    assert not {"name", "workspaceId", "flavorId", "poolId", "algorithm", "owner", "adoptJobId", "startTime",
                "createTime", "secondaryPhase", "flavorName", "outputPath", "keepRuns"} & job
    assert set(_required("JobsAwait")) == {"jobs", "statuses", "phases", "runs"}
    assert set(_required("Bucket")) == {"bucket", "create", "forceDestroy", "url", "created"}
    assert {"codeDir", "bootFile", "markerKey", "localDir", "bucket"} <= set(_required("CodeUpload"))
    assert not {"maxFiles", "maxTotalBytes", "contentHash"} & set(_required("CodeUpload"))  # echoed where given
    assert {"networkName", "location", "name", "cidr"} <= set(_required("Network"))
    assert {"poolName", "available", "message", "location"} <= set(_required("ResourcePool"))
    assert "phase" not in _required("Network") and "phase" not in _required("ResourcePool")
    assert "workspaceId" not in _required("Network") and "description" not in _required("ResourcePool")


def test_the_python_programs_resources_type_the_same_outputs_as_always_set() -> None:
    """The other front door: the Python resources' output attributes come from the same models, so
    `job.job_name` is `Output[str]` exactly where the plugin's SDKs type `jobName` as always set."""
    for cls in (TrainingJob, Network, ResourcePool):
        required = set(_required(cls.__name__))
        for name, annotation in cls.__annotations__.items():
            (inner,) = get_args(annotation)  # Output[T]
            assert (camel(name) in required) == (type(None) not in get_args(inner)), (cls.__name__, name)
    assert {"job_name", "phase", "job_id", "console_url"} <= {
        n for n, a in TrainingJob.__annotations__.items() if type(None) not in get_args(get_args(a)[0])}


def test_the_docs_name_every_always_set_output() -> None:
    """docs/plugin.md's table of the outputs that are always set says what the schema says, row by row."""
    rows = {}
    for line in (REPO_ROOT / "docs" / "plugin.md").read_text().splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")] if line.startswith("| ") else []
        if len(cells) >= 2 and f"modelarts:index:{cells[0]}" in schema(VERSION)["resources"]:
            rows[cells[0]] = set(re.findall(r"`([A-Za-z]+)`", cells[1]))
    assert {name: set(_required(name)) for name in rows} == rows and len(rows) == 6


@pytest.fixture
def emu(tmp_path: Path) -> Iterator[Any]:
    from modelarts_emulator.testing import running_emulator

    with running_emulator(tmp_path / "emulator", phase_seconds=0.2, run_seconds=600, network_seconds=0.2,
                          pool_seconds=0.4) as e:
        yield e


def _configured(config: dict[str, Any]) -> ModelArtsPlugin:
    plugin = ModelArtsPlugin()
    # As the engine does: check_config (which adds the stack's owner seed), then configure with its inputs.
    checked = asyncio.run(plugin.check_config(p.CheckRequest(
        "urn:pulumi:dev::proj::pulumi:providers:modelarts::default", {}, property_map(config), b"")))
    asyncio.run(plugin.configure(p.ConfigureRequest({}, checked.inputs, False, False)))
    return plugin


def _create(plugin: ModelArtsPlugin, type_: str, name: str, inputs: dict[str, Any]) -> tuple[str, Any]:
    urn = URN.format(type_, name)
    checked = asyncio.run(plugin.check(p.CheckRequest(urn, {}, property_map(inputs), b"seed")))
    assert not checked.failures, [(f.property, f.reason) for f in checked.failures]
    made = asyncio.run(plugin.create(p.CreateRequest(urn, checked.inputs, 0, False)))
    return urn, made


def _refreshed(plugin: ModelArtsPlugin, urn: str, made: Any) -> Any:
    read = asyncio.run(plugin.read(p.ReadRequest(urn, made.resource_id, made.properties, made.properties)))
    assert read.resource_id == made.resource_id
    return read.properties


def test_every_required_output_is_set_after_create_read_and_import(emu: Any) -> None:
    plugin = _configured({"region": "cn-north-4", "projectId": emu.project_id, "endpoint": emu.url,
                          "accessKey": emu.access_key, "secretKey": emu.secret_key})
    # No name (derived), no workspace, no outputs: the least a program declares.
    urn, job = _create(plugin, "TrainingJob", "train", {"algorithm": {"id": ALGORITHM_ID},
                                                         "flavorId": "modelarts.vm.cpu.2u"})
    outs = plain_map(job.properties)
    assert _unset("TrainingJob", job.properties) == []
    assert outs["jobId"] == job.resource_id and outs["jobName"] == outs["name"] and outs["phase"] == "Creating"
    assert outs.get("workspaceId") is None and outs.get("outputPath") is None  # optional: truly absent here
    assert _unset("TrainingJob", _refreshed(plugin, urn, job)) == []
    imported = asyncio.run(plugin.read(p.ReadRequest(urn, job.resource_id, {}, {})))  # this resource's own again
    assert _unset("TrainingJob", imported.properties) == []

    urn, waited = _create(plugin, "JobsAwait", "waited", {"jobs": {"train": {
        "jobId": outs["jobId"], "jobName": outs["jobName"], "waitFor": "running", "pollSeconds": 0.1}}})
    assert _unset("JobsAwait", waited.properties) == [] and plain_map(waited.properties)["phases"] == {
        "train": "Running"}
    assert _unset("JobsAwait", _refreshed(plugin, urn, waited)) == []

    urn, net = _create(plugin, "Network", "net", {"name": "net-main", "cidr": "192.168.128.0/17",
                                                  "pollIntervalSeconds": 0.05})
    assert _unset("Network", net.properties) == []
    assert _unset("Network", _refreshed(plugin, urn, net)) == []
    urn, pool = _create(plugin, "ResourcePool", "pool", {
        "name": "gpu-pool", "network": net.resource_id, "resources": [{"flavor": GPU, "count": 1}],
        "pollIntervalSeconds": 0.05, "timeoutSeconds": 30})
    assert _unset("ResourcePool", pool.properties) == []
    assert _unset("ResourcePool", _refreshed(plugin, urn, pool)) == []
    assert [j["metadata"]["id"] for j in emu.jobs()] == [job.resource_id]  # what the outputs describe


def test_every_required_output_of_a_bucket_and_an_upload_is_set(tmp_path: Path) -> None:
    from obs_emulator.testing import running_obs

    with running_obs(tmp_path / "obs") as obs:
        plugin = _configured({"region": "cn-north-4", "accessKey": obs.access_key, "secretKey": obs.secret_key,
                              "obsEndpoint": obs.url})
        urn, bucket = _create(plugin, "Bucket", "b", {"bucket": "required-outputs"})
        assert _unset("Bucket", bucket.properties) == []
        assert _unset("Bucket", _refreshed(plugin, urn, bucket)) == []
        local = code_dir(tmp_path / "code", {"train.py": "print('hi')\n"})
        urn, upload = _create(plugin, "CodeUpload", "code", {"localDir": str(local), "bootFile": "train.py",
                                                             "bucket": "required-outputs"})
        assert _unset("CodeUpload", upload.properties) == []
        assert plain_map(upload.properties).get("maxFiles") is None  # not given: not echoed, so optional
        assert _unset("CodeUpload", _refreshed(plugin, urn, upload)) == []
        imported = asyncio.run(plugin.read(p.ReadRequest(URN.format("Bucket", "again"), "required-outputs", {}, {})))
        assert _unset("Bucket", imported.properties) == []

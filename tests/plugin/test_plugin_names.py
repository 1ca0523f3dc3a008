"""The plugin's names: camelCase in the schema and at its edge, snake_case behind it; map keys are data."""

from __future__ import annotations

import json

from modelarts_provider.plugin.names import Names, camel
from modelarts_provider.plugin.schema import schema, snake_schema

SNAKE = snake_schema("0.1.0")
NAMES = Names(SNAKE)


def test_camel() -> None:
    assert camel("flavor_id") == "flavorId" and camel("wait_timeout_seconds") == "waitTimeoutSeconds"
    assert camel("name") == "name" and camel("obs_url") == "obsUrl"


def test_schema_names_are_camel_case_and_public() -> None:
    s = schema("0.1.0")
    tables = [t["properties"] for t in s["types"].values()]
    for res in s["resources"].values():
        tables += [res["properties"], res["inputProperties"]]
        assert all("_" not in k for k in res.get("requiredInputs", []))
    for props in tables:
        assert [k for k in props if "_" in k] == []
    job = s["resources"]["modelarts:index:TrainingJob"]
    assert {"flavorId", "waitFor", "adoptJobId"} <= set(job["inputProperties"])
    assert not {"configKeys", "secretPaths"} & set(job["properties"])  # set by the stack program only
    assert s["resources"]["modelarts:index:CodeUpload"]["requiredInputs"] == ["localDir", "bootFile", "bucket"]
    assert s["types"]["modelarts:index:AwaitedJob"]["required"] == ["jobId"]
    assert "config_keys" not in json.dumps(s["resources"]["modelarts:index:TrainingJob"]["inputProperties"])


def test_nested_properties_renamed_map_keys_kept() -> None:
    declared = {
        "flavorId": "f", "waitFor": "running", "annotations": {"team_name": "a", "x/y_z": "b"},
        "algorithm": {"codeDir": "obs://b/c/", "bootFile": "obs://b/c/t.py", "engine": {"engineId": "e"},
                      "environments": {"API_TOKEN": "s", "some_var": "v"},
                      "parameters": [{"name": "lr_rate", "value": "1"}],
                      "outputs": [{"name": "out_dir", "obsUrl": "obs://b/o/"}]},
        "logExportPath": {"obsUrl": "obs://b/l/"}}
    snake = NAMES.to_snake("TrainingJob", declared)
    assert snake == {
        "flavor_id": "f", "wait_for": "running", "annotations": {"team_name": "a", "x/y_z": "b"},
        "algorithm": {"code_dir": "obs://b/c/", "boot_file": "obs://b/c/t.py", "engine": {"engine_id": "e"},
                      "environments": {"API_TOKEN": "s", "some_var": "v"},
                      "parameters": [{"name": "lr_rate", "value": "1"}],
                      "outputs": [{"name": "out_dir", "obs_url": "obs://b/o/"}]},
        "log_export_path": {"obs_url": "obs://b/l/"}}
    assert NAMES.to_camel("TrainingJob", snake) == declared


def test_map_of_objects_and_unknown_keys() -> None:
    jobs = {"jobs": {"job_a": {"jobId": "1", "waitFor": "completed", "timeoutSeconds": 5}}}
    assert NAMES.to_snake("JobsAwait", jobs) == {"jobs": {"job_a": {"job_id": "1", "wait_for": "completed",
                                                                    "timeout_seconds": 5}}}
    # Keys the provider records for itself (not in the schema) pass both ways unchanged.
    outs = {"config_keys": {"flavor_id": "modelarts-jobs:pools.gpu"}, "job_id": "1", "owner": {"token": "t"}}
    camel_outs = NAMES.to_camel("TrainingJob", outs)
    assert camel_outs == {"config_keys": {"flavor_id": "modelarts-jobs:pools.gpu"}, "jobId": "1",
                          "owner": {"token": "t"}}
    assert NAMES.to_snake("TrainingJob", camel_outs) == outs
    assert NAMES.path("algorithm.code_dir") == "algorithm.codeDir" and NAMES.key("flavor_id") == "flavorId"


def test_descriptions_name_properties_as_the_schema_does() -> None:
    s = schema("0.1.0")
    job = s["resources"]["modelarts:index:TrainingJob"]
    assert "unless poolId is set" in job["inputProperties"]["flavorId"]["description"]
    assert "waitFor" in s["resources"]["modelarts:index:JobsAwait"]["description"]
    # A description naming the API's own field keeps the API's name.
    volume = s["types"]["modelarts:index:NfsVolume"]["properties"]
    assert any("spec.volumes[].nfs." in p["description"] and "_" in p["description"] for p in volume.values())


def test_plugin_version_is_the_package_version() -> None:
    import tomllib

    from modelarts_provider.plugin.provider import VERSION
    from testkit.harness import REPO_ROOT

    assert VERSION == tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]["version"]

"""Bucket and CodeUpload through the provider plugin's adapter against the local OBS (no engine): the program
side the Python resources do (directory hash, owner token) happens in check, the rest in the same providers."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from modelarts_provider.plugin.provider import ModelArtsPlugin
from modelarts_provider.plugin.values import plain_map, property_map
from pulumi.provider.experimental import provider as p
from tests.obs.conftest import code_dir, keys

URN = "urn:pulumi:dev::proj::modelarts:index:{}::{}"


@pytest.fixture
def obs(tmp_path: Path) -> Iterator[Any]:
    from obs_emulator.testing import running_obs

    with running_obs(tmp_path / "obs") as server:
        yield server


def _plugin(obs: Any) -> ModelArtsPlugin:
    plugin = ModelArtsPlugin()
    config = {"region": "cn-north-4", "accessKey": obs.access_key, "secretKey": obs.secret_key,
              "obsEndpoint": obs.url}
    asyncio.run(plugin.configure(p.ConfigureRequest({}, property_map(config), False, False)))
    return plugin


def _check(plugin: ModelArtsPlugin, urn: str, news: dict[str, Any], olds: dict[str, Any] | None = None) -> Any:
    return asyncio.run(plugin.check(p.CheckRequest(urn, property_map(olds or {}), property_map(news), b"seed")))


def test_bucket_and_code_upload_through_the_plugin(tmp_path: Path, obs: Any) -> None:
    plugin = _plugin(obs)
    local = code_dir(tmp_path / "code", {"train.py": "print('hi')\n", "lib/m.py": "W = 1\n"})
    bucket_urn, upload_urn = URN.format("Bucket", "b"), URN.format("CodeUpload", "mnist")

    checked = _check(plugin, bucket_urn, {"bucket": "plugin-bucket"})
    assert not checked.failures and plain_map(checked.inputs)["create"] is True
    made = asyncio.run(plugin.create(p.CreateRequest(bucket_urn, checked.inputs, 0, False)))
    assert plain_map(made.properties)["created"] is True

    args = {"localDir": str(local), "bootFile": "train.py", "bucket": "plugin-bucket"}
    checked = _check(plugin, upload_urn, args)
    inputs = plain_map(checked.inputs)
    assert not checked.failures and len(inputs["contentHash"]) == 64 and len(inputs["ownerToken"]) == 16
    assert _check(plugin, upload_urn, args, inputs).inputs == checked.inputs  # same directory, same inputs
    uploaded = asyncio.run(plugin.create(p.CreateRequest(upload_urn, checked.inputs, 0, False)))
    outs = plain_map(uploaded.properties)
    assert outs["bootFile"].endswith("/train.py") and outs["uploadedFiles"] == 2
    assert sorted(k.rsplit("/", 1)[-1] for k in keys(obs.client(), "plugin-bucket")) == sorted(
        ["train.py", "m.py", outs["markerKey"].rsplit("/", 1)[-1]])

    bad = _check(plugin, upload_urn, {**args, "bootFile": "missing.py"})
    assert [f.property for f in bad.failures] == ["bootFile"]

    asyncio.run(plugin.delete(p.DeleteRequest(upload_urn, uploaded.resource_id, uploaded.properties, 0)))
    # `pulumi import` of the bucket: one the stack uses and never deletes.
    imported = asyncio.run(plugin.read(p.ReadRequest(URN.format("Bucket", "again"), "plugin-bucket", {}, {})))
    assert plain_map(imported.inputs) == {"bucket": "plugin-bucket", "create": False, "forceDestroy": False}
    assert plain_map(imported.properties)["created"] is False
    with pytest.raises(Exception, match="no such bucket"):
        asyncio.run(plugin.read(p.ReadRequest(URN.format("Bucket", "none"), "not-there", {}, {})))

    asyncio.run(plugin.delete(p.DeleteRequest(bucket_urn, made.resource_id, made.properties, 0)))
    assert not obs.client().list_buckets().get("Buckets")

"""Terraform's official Huawei Cloud provider end to end against a local ModelArts (issue 57): the real terraform
and the provider built by scripts/terraform_provider.sh apply jobs with tags, plan without changes, update their
description and tags in place, plan again without changes, and destroy them.

Opt-in (tests/terraform/conftest.py): `./dev test -m terraform`. It fails when the provider is not built.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from modelarts_emulator.testing import running_emulator
from testkit import terraform as tf

pytestmark = pytest.mark.terraform


@pytest.fixture(scope="module")
def cli_config() -> Path:
    assert shutil.which("terraform"), "terraform is not on PATH (docs/clients.md: Terraform)"
    config = tf.provider_config()
    assert config is not None, "the provider is not built: run scripts/terraform_provider.sh (about 15 min) first"
    return config


@pytest.mark.parametrize("name", list(tf.SCENARIOS))
def test_terraform_applies_plans_without_drift_updates_and_destroys(name: str, cli_config: Path,
                                                                    tmp_path: Path) -> None:
    with running_emulator(tmp_path / "emulator", **tf.EMULATOR_FLAGS) as emu, \
            tf.recording_proxy(emu.url) as proxy:
        run = tf.run_scenario(name, 2, tmp_path / "work", cli_config, proxy, emu)
        assert run.ok, f"terraform {run.steps[-1].command}: rc {run.steps[-1].rc}\n{run.steps[-1].output}"
        assert [s.command.split()[0] for s in run.steps] == ["init", "apply", "plan", "apply", "plan", "destroy"]
        # destroyed: what terraform made is gone from the local ModelArts, not only from its state
        assert emu.jobs() == [] and all(item["gone"] for item in emu.pools()["items"])
    if name != "training_jobs":
        return
    # what the update did, as the local ModelArts answered the provider's reads of the plan after it
    read_after = [e for e in proxy.exchanges if e.step == "plan-after-update" and e.method == "GET"]
    described = {e.response["metadata"]["description"] for e in read_after if "/training-jobs/" in e.path}
    tagged = [{t["key"]: t["value"] for t in e.response["tags"]} for e in read_after if e.path.endswith("/tags")]
    assert described == {"updated by terraform"}
    assert len(tagged) == 2 and all(t == {"team": "speech", "owner": "ml-platform"} for t in tagged)
    assert {e.status for e in proxy.exchanges if e.path.endswith(("/tags/create", "/tags/delete"))} == {204}

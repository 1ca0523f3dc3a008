"""Secrets travel with the data (issue 45), under the real engine, through both front doors: job A's secret
environment value is masked in A's failure report, and job B's equal but plain value, in the same `up` and the
same provider process, is printed as it is. (The process-wide masking registry this replaces masked B's value
too, once A's check had taught it.)

The secret is a program's Pulumi secret, not a config secret: the engine masks config secrets in everything it
prints by itself, so only the provider can be what masks this one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from testkit.harness import new_stack
from testkit.faults import FAST_EMULATOR, output_of, provider_config
from testkit.plugin_program import yaml_stack

pytestmark = pytest.mark.engine

ALGORITHM_ID = "8d1b2f4c-5a6e-4f70-9b81-c2d3e4f5a6b7"  # in the emulator catalog
CPU = "modelarts.vm.cpu.2u"
TAG = "tag-Zq81xWv3kP"  # under a name nothing would call secret: only its declaration tells
FAIL = {"emulator/outcome": "fail", "emulator/run-seconds": "1", "emulator/exit-code": "3"}

PROGRAM = f'''
import pulumi
from modelarts_provider.awaiting.resource import await_jobs
from modelarts_provider.training_job.resource import TrainingJob


def job(key, tag, secret_paths):
    props = {{"algorithm": {{"id": "{ALGORITHM_ID}", "parameters": [{{"name": "epochs", "value": "1"}}],
                            "environments": {{"RUN_TAG": tag}}}},
             "flavor_id": "{CPU}", "annotations": {json.dumps(FAIL)}, "wait_for": "completed",
             "poll_interval_seconds": 0.2, "wait_timeout_seconds": 120, "delete_timeout_seconds": 60}}
    if secret_paths:
        props["secret_paths"] = secret_paths  # what the stack program records for its Pulumi secrets
    return TrainingJob(key, props)


a = job("a", pulumi.Output.secret("{TAG}"), ["algorithm.environments.RUN_TAG"])
b = job("b", "{TAG}", None)
await_jobs({{"a": a, "b": b}})
'''


@pytest.fixture
def emu(tmp_path: Path, pulumi_engine: Path) -> Iterator[Any]:
    from modelarts_emulator.testing import running_emulator

    with running_emulator(tmp_path / "emulator", **FAST_EMULATOR) as e:
        yield e


def _tails(out: str) -> dict[str, str]:
    """The failure report's log tail of each job key: the lines under `key (name): last N lines of worker-0:`."""
    blocks: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in out.splitlines():
        head = re.match(r"\s*([ab]) \([^)]*\): last \d+ lines of ", line)
        if head:
            current = blocks.setdefault(head.group(1), [])
        elif current is not None and "[ModelArts Service Log]" in line or current is not None and "epoch" in line:
            current.append(line)
        elif current is not None and not line.strip():
            current = None
    return {k: "\n".join(v) for k, v in blocks.items()}


def _assert_each_job_masked_with_its_own(out: str) -> None:
    tails = _tails(out)
    assert set(tails) == {"a", "b"}, out
    assert "env RUN_TAG=******" in tails["a"] and TAG not in tails["a"], tails["a"]  # A's secret
    assert f"env RUN_TAG={TAG}" in tails["b"], tails["b"]  # B's plain value: printed as it is
    assert "exited with code 3." in out, out


def _await_secrets(st: Any) -> str:
    """The JobsAwait's `secrets` input as the engine plans to record it (the failed wait records nothing)."""
    steps = json.loads(st.preview("--json").stdout)["steps"]
    (waited,) = [s for s in steps if s["urn"].split("::")[-2].endswith("JobsAwait")]
    return json.dumps(waited["newState"]["inputs"].get("secrets"))


def test_python_door_masks_a_jobs_secret_in_its_failure_and_not_another_jobs_equal_plain_value(
        tmp_path: Path, emu: Any) -> None:
    plain, secrets = provider_config(emu)
    st = new_stack(tmp_path, PROGRAM, config=plain, secrets=secrets)
    up = st.up(check=False)
    out = output_of(up)
    assert up.returncode != 0 and "2 of 2 awaited training jobs did not reach their target" in out, out
    _assert_each_job_masked_with_its_own(out)
    # The JobsAwait gets A's secret input as data (its `secrets`), a secret in the state: never plain there.
    recorded = _await_secrets(st)
    assert "[secret]" in recorded and TAG not in recorded, recorded


def _yaml_job(tag: Any) -> dict[str, Any]:
    return {"type": "modelarts:index:TrainingJob",
            "properties": {"algorithm": {"id": ALGORITHM_ID, "parameters": [{"name": "epochs", "value": "1"}],
                                         "environments": {"RUN_TAG": tag}},
                           "flavorId": CPU, "annotations": dict(FAIL), "pollIntervalSeconds": 0.2}}


def test_plugin_door_masks_a_jobs_secret_in_its_failure_and_not_another_jobs_equal_plain_value(
        tmp_path: Path, emu: Any) -> None:
    resources = {
        "a": _yaml_job({"fn::secret": TAG}),
        "b": _yaml_job(TAG),
        "waited": {"type": "modelarts:index:JobsAwait", "properties": {
            # no `secrets`: the plugin hands the wait each job's own, as its calls showed them (by job id)
            "jobs": {key: {"jobId": f"${{{key}.jobId}}", "jobName": f"${{{key}.jobName}}", "waitFor": "completed",
                           "timeoutSeconds": 120, "pollSeconds": 0.2} for key in ("a", "b")}}},
    }
    st = yaml_stack(tmp_path, emu, resources)
    up = st.up(check=False)
    out = output_of(up)
    assert up.returncode != 0 and "2 of 2 awaited training jobs did not reach their target" in out, out
    _assert_each_job_masked_with_its_own(out)
    # What the plugin handed the wait is not recorded with it: its `secrets` stay as the program gave them.
    assert TAG not in _await_secrets(st)

"""outputPerRun under Pulumi's own mocks: each run's outputs and logs go into a folder named after the run."""

from __future__ import annotations

from typing import Any

import pulumi
import pytest
from pulumi.runtime import settings

from modelarts_provider.training_job.resource import TrainingJob

from .common import job_inputs

# The mocks answer a RandomString with a fixed result: the derived name is `<key>-abcdef`.
SUFFIX = "abcdef"


class Mocks(pulumi.runtime.Mocks):
    def __init__(self) -> None:
        self.inputs: dict[str, dict[str, Any]] = {}

    def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str, dict[str, Any]]:
        self.inputs[args.name] = dict(args.inputs)
        outs = dict(args.inputs)
        if args.typ == "random:index/randomString:RandomString":
            outs["result"] = SUFFIX
        if args.typ == "random:index/randomId:RandomId":
            outs["hex"] = "00112233445566ff"
        return f"{args.name}-id", outs

    def call(self, args: pulumi.runtime.MockCallArgs) -> tuple[dict[str, Any], list[tuple[str, str]]]:
        return {}, []


MOCKS = Mocks()


def _declared(**over: Any) -> dict[str, Any]:
    inputs = job_inputs(name=None, log_export_path={"obs_url": "obs://bkt/logs/train"}, **over)
    inputs.pop("owner")
    return {k: v for k, v in inputs.items() if v is not None}


@pytest.fixture(autouse=True)
def mocks() -> Mocks:
    # A fresh runtime (root stack resource included) on this thread's loop: whatever in-process program ran
    # before in this worker, on whatever loop, leaves nothing this test would await.
    settings.reset_options()
    pulumi.runtime.set_mocks(MOCKS, preview=False)  # each in-process program sets its own mocks
    return MOCKS


@pulumi.runtime.test
def test_output_per_run_puts_outputs_and_logs_in_the_runs_folder():
    a = TrainingJob("perrun", _declared(output_per_run=True))
    b = TrainingJob("shared", _declared())

    def check(_: Any) -> None:
        per_run = MOCKS.inputs["perrun"]
        assert per_run["name"] == f"perrun-{SUFFIX}"
        assert [o["obs_url"] for o in per_run["algorithm"]["outputs"]] == [f"obs://bkt/out/perrun-{SUFFIX}/"]
        assert per_run["log_export_path"]["obs_url"] == f"obs://bkt/logs/train/perrun-{SUFFIX}/"
        shared = MOCKS.inputs["shared"]
        assert [o["obs_url"] for o in shared["algorithm"]["outputs"]] == ["obs://bkt/out/"]
        assert shared["log_export_path"]["obs_url"] == "obs://bkt/logs/train"

    return pulumi.Output.all(a.urn, b.urn).apply(check)

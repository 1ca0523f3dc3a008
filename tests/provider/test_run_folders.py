"""outputPerRun under Pulumi's own mocks: each run's outputs and logs go into a folder named after the run."""

from __future__ import annotations

from typing import Any

import pulumi
import pytest
from pulumi.runtime import settings

from modelarts_provider.core.identity import token_for
from modelarts_provider.training_job.naming import with_identity
from modelarts_provider.training_job.resource import TrainingJob

from .common import job_inputs

SEED = "s" * 48  # what the mocks answer for the stack's RandomPassword


class Mocks(pulumi.runtime.Mocks):
    def __init__(self) -> None:
        self.inputs: dict[str, dict[str, Any]] = {}
        self.types: list[str] = []

    def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str, dict[str, Any]]:
        self.inputs[args.name] = dict(args.inputs)
        self.types.append(args.typ)
        outs = dict(args.inputs)
        if args.typ == "random:index/randomPassword:RandomPassword":
            outs["result"] = SEED
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
    MOCKS.types.clear()
    return MOCKS


@pulumi.runtime.test
def test_output_per_run_puts_outputs_and_logs_in_the_runs_folder():
    """The program hands each job the stack's one seed; the provider's check names the run and its folders."""
    a = TrainingJob("perrun", _declared(output_per_run=True))
    b = TrainingJob("shared", _declared(output_per_run=False))  # the opt-out: the old layout
    c = TrainingJob("default", _declared())  # a derived name: a folder per run by default

    def check(_: Any) -> None:
        # No resource per job besides the job: one seed for the stack.
        assert len(MOCKS.types) == 4 and sum("TrainingJob" in t for t in MOCKS.types) == 3
        assert MOCKS.types.count("random:index/randomPassword:RandomPassword") == 1
        declared = MOCKS.inputs["perrun"]
        assert declared["owner_seed"] == SEED and declared["derived_name"] is True and "name" not in declared
        per_run = with_identity(declared, {})
        run = per_run["name"]
        assert run.startswith("perrun-") and len(run) == len("perrun-") + 6 and "owner_seed" not in per_run
        assert per_run["owner"]["token"] == token_for(SEED, "perrun")
        assert [o["obs_url"] for o in per_run["algorithm"]["outputs"]] == [f"obs://bkt/out/{run}/"]
        assert per_run["log_export_path"]["obs_url"] == f"obs://bkt/logs/train/{run}/"
        shared = with_identity(MOCKS.inputs["shared"], {})
        assert [o["obs_url"] for o in shared["algorithm"]["outputs"]] == ["obs://bkt/out/"]
        assert shared["log_export_path"]["obs_url"] == "obs://bkt/logs/train"
        default = with_identity(MOCKS.inputs["default"], {})
        assert "output_per_run" not in MOCKS.inputs["default"]
        assert [o["obs_url"] for o in default["algorithm"]["outputs"]] == [f"obs://bkt/out/{default['name']}/"]
        assert default["log_export_path"]["obs_url"] == f"obs://bkt/logs/train/{default['name']}/"

    return pulumi.Output.all(a.urn, b.urn, c.urn).apply(check)

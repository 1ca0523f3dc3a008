"""Which reading is newer after a failed `up` (results/failed_up.py): the state's JobsAwait with an init error says
the exports are behind; a settled one, another resource's init error or none say they are not."""

from __future__ import annotations

from modelarts_provider.cli.stack_reader import StackExport
from modelarts_provider.results.failed_up import exports_behind, failed_waits

FAILED = {"urn": "urn:pulumi:s::p::pulumi-python:dynamic/modelarts:JobsAwait::jobs-await",
          "type": "pulumi-python:dynamic/modelarts:JobsAwait",
          "initErrors": ["1 of 4 awaited training jobs did not reach their target: bad\n- bad: training job ..."]}
SETTLED = {"urn": "urn:pulumi:s::p::modelarts:index:JobsAwait::waited", "type": "modelarts:index:JobsAwait"}
POOL = {"urn": "urn:pulumi:s::p::modelarts:index:ResourcePool::own", "type": "modelarts:index:ResourcePool",
        "initErrors": ["the pool is Abnormal"]}


def test_a_wait_that_failed_puts_the_exports_behind_the_state() -> None:
    assert failed_waits([SETTLED, FAILED]) == ["1 of 4 awaited training jobs did not reach their target: bad"]
    assert exports_behind([SETTLED, FAILED]) is True
    # read the way the command-line tools read a checkpoint (their loose model keeps the engine's extra fields)
    exported = StackExport.model_validate({"deployment": {"resources": [SETTLED, FAILED, POOL]}})
    assert exports_behind(exported.deployment.resources or []) is True


def test_settled_waits_and_other_resources_init_errors_do_not() -> None:
    assert exports_behind([SETTLED, POOL]) is False
    assert exports_behind([{**FAILED, "initErrors": []}]) is False
    assert exports_behind([]) is False

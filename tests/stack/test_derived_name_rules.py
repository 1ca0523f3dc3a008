"""Rules that need a derived name hold for a job whose name the stack leaves unset (it is derived at deploy)."""

from __future__ import annotations

import pytest

from modelarts_provider.stack.config import StackConfigError, parse
from modelarts_provider.stack.program import plan
from testkit.faults import OBS, POOLS, job


@pytest.mark.parametrize("option", ["outputPerRun", "keepFinishedRuns"])
def test_an_unnamed_job_may_ask_for_a_derived_name_option(option: str) -> None:
    (p,) = plan(parse({"obs": OBS, "pools": POOLS, "jobs": {"a": job(**{option: True})}}))
    assert p.args.name is None


@pytest.mark.parametrize("option", ["outputPerRun", "keepFinishedRuns"])
def test_a_named_job_is_refused_those_options(option: str) -> None:
    with pytest.raises(StackConfigError, match=rf"jobs\.a\.{option}: needs a derived name"):
        plan(parse({"obs": OBS, "pools": POOLS, "jobs": {"a": job(name="fixed", **{option: True})}}))

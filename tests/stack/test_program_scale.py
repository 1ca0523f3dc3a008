"""The stack program's own work grows linearly with the number of jobs (issue 36 item 3).

No timing (the machine is shared): the program runs under Pulumi's mocks (benchmarks/program_cost.py) with
a sweep of N points, and the number of function calls made from the project's own code (sys.setprofile: Python calls and
the C calls they make) is counted. A per-job lookup over every job (a list rebuilt per job, `all()` over the jobs for each
job) adds calls proportional to N per job, and shows as a growing increment per job; linear work is an
equal increment per job. Plus: what the counting replaced (duplicate keys and names) is still refused.
"""

from __future__ import annotations

import copy
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from benchmarks.program_cost import run
from modelarts_provider.stack.config import StackConfigError, parse
from modelarts_provider.stack.program import plan


PACKAGE = str(Path(plan.__code__.co_filename).parents[1])  # .../modelarts_provider


def _calls(n: int) -> int:
    count = Counter[str]()

    def prof(frame: Any, event: str, arg: Any) -> None:
        # The program's own calls (a C call counts where it was called from): Pulumi's and asyncio's own
        # work per resource is theirs, and varies a little with scheduling.
        if event in ("call", "c_call") and PACKAGE in frame.f_code.co_filename:
            count[event] += 1

    sys.setprofile(prof)
    try:
        run(n)
    finally:
        sys.setprofile(None)
    return count["call"] + count["c_call"]


def test_program_calls_grow_linearly_with_jobs() -> None:
    run(5)  # warm-up: imports and first-use caches are not per job
    # Points 100..199 and 200..399: their grid values (and so keys) have the same length in both increments.
    c1, c2, c3 = _calls(100), _calls(200), _calls(400)
    per_job_low, per_job_high = (c2 - c1) / 100, (c3 - c2) / 200
    # Equal (within 1%: room for a future cache warming up); a lookup over every job per job would make the
    # second increment (jobs 200..400) exceed the first by about the number of jobs.
    assert per_job_high <= per_job_low * 1.01, (per_job_low, per_job_high)


BASE: dict[str, Any] = {
    "obs": {"main": {"bucket": "my-bucket"}},
    "pools": {"cpu": {"flavor": "modelarts.vm.cpu.2u", "maxNodes": 2}},
    "jobs": {"a": {"pool": "cpu", "codeDir": "mnist/", "bootFile": "train.py",
                   "engine": {"name": "PyTorch", "version": "1.8"}, "name": "same-name"}},
}


def test_a_job_name_used_twice_is_still_refused() -> None:
    cfg = copy.deepcopy(BASE)
    cfg["jobs"]["b"] = dict(cfg["jobs"]["a"])
    with pytest.raises(StackConfigError, match="job name same-name is used by more than one job"):
        plan(parse(cfg))


def test_a_job_key_that_is_also_a_sweep_point_is_still_refused() -> None:
    cfg = copy.deepcopy(BASE)
    point = "s-lr1-" + __import__("modelarts_provider.stack.sweep", fromlist=["point_hash"]).point_hash({"lr": 1})
    cfg["jobs"] = {point: {k: v for k, v in cfg["jobs"]["a"].items() if k != "name"}}
    cfg["sweeps"] = {"s": {**cfg["jobs"][point], "grid": {"lr": [1]}}}
    with pytest.raises(StackConfigError, match=f"job key {point} is declared twice"):
        plan(parse(cfg))

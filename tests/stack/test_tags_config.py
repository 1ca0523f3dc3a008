"""Issue 42: `tags` per job and per sweep over the stack's `defaultTags` (Terraform's default_tags), and a
secret tag marked secret in the TrainingJob inputs wherever it was set (a job's own, or the defaults)."""

from __future__ import annotations

import pytest

from modelarts_provider.stack.config import StackConfigError, parse
from modelarts_provider.stack.program import plan
from modelarts_provider.stack.secrets import SecretPaths, job_selectors

RAW = {"obs": {"main": {"bucket": "bkt"}}, "pools": {"cpu": {"flavor": "modelarts.vm.cpu.2u"}},
       "defaultTags": {"costCenter": "ml-42", "team": "research"},
       "jobs": {"a": {"pool": "cpu", "algorithmId": "x", "tags": {"team": "vision"}},
                "b": {"pool": "cpu", "algorithmId": "x"}},
       "sweeps": {"s": {"pool": "cpu", "algorithmId": "x", "grid": {"lr": [0.1, 0.2]}, "tags": {"sweep": "lr"}}}}


def test_a_jobs_and_a_sweeps_tags_lie_over_the_defaults() -> None:
    tags = {p.key: p.args.tags for p in plan(parse(RAW))}
    assert tags["a"] == {"costCenter": "ml-42", "team": "vision"}  # the job's own win
    assert tags["b"] == {"costCenter": "ml-42", "team": "research"}
    points = [k for k in tags if k.startswith("s-")]
    assert len(points) == 2 and all(tags[k] == {"costCenter": "ml-42", "team": "research", "sweep": "lr"}
                                    for k in points)


@pytest.mark.parametrize("bad, said", [
    ({"jobs": {"a": {"tags": {"a/b": "x"}}}}, "is not a valid tag key"),
    ({"jobs": {"a": {"tags": {"modelarts-pulumi.token": "x"}}}}, "the owner mark this tool writes itself"),
    ({"defaultTags": {"k": "a#b"}}, "is not a valid tag value"),
])
def test_bad_tags_name_the_key(bad: dict, said: str) -> None:
    raw = {**RAW, **{k: v for k, v in bad.items() if k != "jobs"}}
    if "jobs" in bad:
        raw["jobs"] = {"a": {**RAW["jobs"]["a"], **bad["jobs"]["a"]}}
    with pytest.raises((StackConfigError, ValueError)) as e:
        plan(parse(raw))
    # the message names the field the user wrote: jobs.a.tags or defaultTags
    assert said in str(e.value) and ("jobs.a.tags" in str(e.value) if "jobs" in bad else "defaultTags" in str(e.value))


def test_a_secret_tag_is_marked_where_it_lands() -> None:
    own = SecretPaths(paths=(("jobs", "a", "tags", "team"),))
    assert job_selectors(own, "jobs", "a", None, "cpu") == [("tags", "team")]
    default = SecretPaths(paths=(("defaultTags", "costCenter"),))
    assert job_selectors(default, "jobs", "b", None, "cpu") == [("tags", "costCenter")]
    assert job_selectors(default, "sweeps", "s", None, "cpu") == [("tags", "costCenter")]
    whole = SecretPaths(paths=(("defaultTags",),))
    assert job_selectors(whole, "jobs", "a", None, "cpu") == [("tags",)]

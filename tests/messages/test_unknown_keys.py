"""Issue 21 item 5, in-process: an unknown key or setting names the closest known one or the allowed ones,
and several errors print one per line, each a whole message naming its key."""

from __future__ import annotations

import pytest

from modelarts_provider.core.messages import did_you_mean
from modelarts_provider.core.provider_config import unknown_setting_errors
from modelarts_provider.stack.config import StackConfigError, known_keys_at, parse

POOLS = {"gpu": {"flavor": "modelarts.p3.large.public"}}
JOB = {"pool": "gpu", "algorithmId": "alg-1"}


@pytest.mark.parametrize("key, known, hint", [
    ("waitfor", ["pool", "waitFor"], "(did you mean waitFor?)"),
    ("wait_for", ["pool", "waitFor"], "(did you mean waitFor?)"),
    ("WAIT-FOR", ["pool", "waitFor"], "(did you mean waitFor?)"),
    ("flavour", ["pool", "obs"], "(allowed: pool, obs)"),
])
def test_did_you_mean(key: str, known: list[str], hint: str) -> None:
    assert did_you_mean(key, known) == hint


def _refusal(raw: dict) -> str:
    with pytest.raises(StackConfigError) as err:
        parse(raw)
    return str(err.value)


def test_an_unknown_job_key_suggests_the_close_one() -> None:
    assert _refusal({"pools": POOLS, "jobs": {"mytrain": {**JOB, "waitfor": "completed"}}}) == (
        "invalid stack config: modelarts-jobs:jobs.mytrain.waitfor: unknown key (did you mean waitFor?)")


def test_nested_models_offer_their_own_keys() -> None:
    assert known_keys_at(("jobs", "a", "engine")) == ["id", "name", "version", "image"]
    assert known_keys_at(("jobs", "a", "inputs", "data_url", "dataset")) == ["id", "versionId"]
    assert known_keys_at(("jobs", "a", "volumes", 0)) == ["nfsServerPath", "localPath", "readOnly"]
    assert "grid" in known_keys_at(("sweeps", "s")) and "grid" not in known_keys_at(("jobs", "a"))
    assert known_keys_at(("jobs", "a", "parameters")) == []  # a free map: no key is unknown
    assert _refusal({"pools": {"gpu": {"flavor": "f", "maxnodes": 2}}}) == (
        "invalid stack config: modelarts-jobs:pools.gpu.maxnodes: unknown key (did you mean maxNodes?)")


def test_several_errors_one_per_line() -> None:
    message = _refusal({"pools": POOLS, "jobs": {"a": {**JOB, "nodes": "two", "annotations": {"x": 60}},
                                                 "b": {**JOB, "bootfile": "t.py"}}})
    assert message.splitlines() == [  # in the entry's field order: its own keys, then the arguments' (nodes)
        "invalid stack config: modelarts-jobs:jobs.a.annotations.x: must be a string, not a whole number 60",
        "invalid stack config: modelarts-jobs:jobs.a.nodes: must be a whole number, not a string 'two'",
        "invalid stack config: modelarts-jobs:jobs.b.bootfile: unknown key (did you mean bootFile?)",
    ]


def test_unknown_sections_and_settings_one_per_line() -> None:
    with pytest.raises(StackConfigError) as err:
        parse({}, ["modelarts-jobs:job", "modelarts-jobs:tasks"])
    assert str(err.value).splitlines() == [
        "invalid stack config: unknown key modelarts-jobs:job (did you mean modelarts-jobs:jobs?)",
        "invalid stack config: unknown key modelarts-jobs:tasks (allowed: modelarts-jobs:obs, modelarts-jobs:networks, modelarts-jobs:pools, "
        "modelarts-jobs:jobs, modelarts-jobs:sweeps, modelarts-jobs:defaultTags, modelarts-jobs:keepRuns, modelarts-jobs:prices, modelarts-jobs:budget)",
    ]
    lines = unknown_setting_errors(["modelarts:regoin", "modelarts:region", "modelarts:endpont", "other:x"])
    assert lines == ["unknown provider setting modelarts:endpont (did you mean modelarts:endpoint?)",
                     "unknown provider setting modelarts:regoin (did you mean modelarts:region?)"]


def test_a_secret_setting_name_is_shown_never_its_value() -> None:
    (line,) = unknown_setting_errors(["modelarts:secretkey"])
    assert line == "unknown provider setting modelarts:secretkey (did you mean modelarts:secretKey?)"

"""`modelarts:defaultTags` (training_job/default_tags.py): tags of every TrainingJob under its own, read by the
provider's configure, so both front doors merge them the same way at check, before any API call."""

from __future__ import annotations

import re
from typing import Any

import pytest
from pulumi.dynamic import ConfigureRequest

from modelarts_provider.training_job.default_tags import parse_default_tags, with_default_tags
from modelarts_provider.training_job.provider import TrainingJobProvider

from .common import job_inputs

SETTINGS = {"modelarts:region": "cn-north-4", "modelarts:projectId": "p", "modelarts:accessKey": "AK",
            "modelarts:secretKey": "SK"}


def provider(default_tags: Any = None) -> TrainingJobProvider:
    p = TrainingJobProvider()
    config = dict(SETTINGS)
    if default_tags is not None:
        config["modelarts:defaultTags"] = default_tags
    p.configure(ConfigureRequest(config))
    return p


def test_the_setting_is_read_as_the_engine_hands_it_over() -> None:
    assert parse_default_tags('{"costCenter": "ml-42", "team": "research"}') == {"costCenter": "ml-42",
                                                                                 "team": "research"}
    assert parse_default_tags({"team": "research"}) == {"team": "research"}
    assert parse_default_tags(None) == {} and parse_default_tags("") == {}


NOT_A_MAP = "must be a map of tag keys to values"
BAD = {"ml-42": NOT_A_MAP, '["a", "b"]': NOT_A_MAP, '{"team": "a|b"}': "is not a valid tag value",
       '{"modelarts-pulumi.token": "x"}': "keys starting with modelarts-pulumi. are the owner mark"}


@pytest.mark.parametrize("raw", list(BAD))
def test_a_bad_setting_fails_every_jobs_check_naming_it(raw: str) -> None:
    words = BAD[raw]
    with pytest.raises(ValueError, match=re.escape(words)):
        parse_default_tags(raw)
    result = provider(raw).check({}, job_inputs())
    reasons = [f.reason for f in result.failures or []]
    assert len(reasons) == 1 and reasons[0].startswith("provider configuration: modelarts:defaultTags: "), reasons
    assert words in reasons[0]


def test_defaults_lie_under_a_jobs_own_tags_at_check() -> None:
    p = provider('{"costCenter": "ml-42", "team": "research"}')
    plain = p.check({}, job_inputs())
    assert not plain.failures and plain.inputs["tags"] == {"costCenter": "ml-42", "team": "research"}
    own = p.check({}, job_inputs(tags={"team": "vision"}))
    assert not own.failures and own.inputs["tags"] == {"costCenter": "ml-42", "team": "vision"}  # its own wins
    # without the setting nothing changes
    assert provider().check({}, job_inputs(tags={"team": "vision"})).inputs["tags"] == {"team": "vision"}


def test_too_many_tags_with_the_defaults_are_refused_naming_tags() -> None:
    defaults = {f"d{i}": "x" for i in range(10)}
    result = provider(defaults).check({}, job_inputs(tags={f"own{i}": "y" for i in range(10)}))
    assert [f.property for f in result.failures or []] == ["tags"]


def test_unknown_tags_wait_for_their_values() -> None:
    news = {"tags": object()}  # any non-map stands for a value the preview does not know (or a bad one)
    assert with_default_tags(news, {"a": "b"}) is news

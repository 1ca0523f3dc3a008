"""A key far too long is refused without being echoed in full in every line about its entry (issue 43)."""

from __future__ import annotations

import pytest

from modelarts_provider.stack.config import KEY_SHOWN, StackConfigError, parse


def test_a_200_character_key_is_cut_where_messages_name_it():
    key = "k" * 200
    with pytest.raises(StackConfigError) as e:
        parse({"jobs": {key: {"pool": "gpu", "nodes": -1}}, "pools": {"gpu": {"flavor": "f", "maxNodes": 1}}})
    lines = str(e.value).splitlines()
    assert lines and all(key not in line for line in lines), lines
    cut = "k" * (KEY_SHOWN - 3) + "..."
    assert any(f"modelarts-jobs:jobs.{cut}: " in line and "is not a valid key" in line for line in lines), lines
    assert all(len(line) < 400 for line in lines), lines

"""Property checks of the name and OBS-path rules (in-process: thousands of cases in milliseconds)."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from modelarts_emulator import errors
from modelarts_emulator.catalog.model import Catalog
from modelarts_emulator.jobs.validation import validate_create
from tests.emulator.helpers import minimal_job

CATALOG = Catalog.load()
NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")


def _code(body: dict) -> str | None:
    try:
        validate_create(body, CATALOG)
        return None
    except errors.ApiError as exc:
        return exc.code


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=70))
def test_name_rule(name):
    body = minimal_job()
    body["metadata"]["name"] = name
    expected = None if NAME.fullmatch(name) else "ModelArts.2788"
    assert _code(body) == expected


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["obs://", "/", "s3://", "obs:", "gs://"]),
       st.from_regex(r"[a-z0-9][a-z0-9.-]{1,20}[a-z0-9]", fullmatch=True)
       | st.text(st.characters(blacklist_categories=("Zs", "Zl", "Zp", "Cc"),
                               blacklist_characters="/"), max_size=8),
       st.sampled_from(["", "/", "/data/", "/a b/"]))
def test_obs_path_rule(prefix, bucket, rest):
    url = prefix + bucket + rest
    body = minimal_job()
    body["algorithm"]["outputs"][0]["remote"]["obs"]["obs_url"] = url
    ok = (prefix in ("obs://", "/") and re.fullmatch(r"[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]", bucket)
          and " " not in rest)
    assert _code(body) == (None if ok else "ModelArts.2791"), url


def test_missing_obs_url_is_a_missing_parameter():
    body = minimal_job()
    body["algorithm"]["outputs"][0]["remote"]["obs"]["obs_url"] = ""
    assert _code(body) == "ModelArts.2788"

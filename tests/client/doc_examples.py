"""Examples taken verbatim from the API documents in ../shared/api-docs (both editions)."""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path

DOCS = Path(__file__).resolve().parents[2].parent / "shared" / "api-docs"
DATA = Path(__file__).resolve().parent / "data"

CREATE_TXT = "004_126c216e710dc1ec.txt"  # Huawei Cloud edition (plain text)
CREATE_RST = "002_f1ca3f24bd0e4530.txt"  # Open Telekom Cloud edition (reStructuredText)
DETAILS_TXT = "003_d91a7524d1ebfb54.txt"
TERMINATE_TXT = "001_11a2338cea74f368.txt"
POST_PREFIX = "POST https://endpoint/v2/{project_id}/training-jobs"


def _balanced_json(text: str, start: int):
    """Decode the JSON object starting at text[start] ('{')."""
    return json.JSONDecoder().raw_decode(text, start)[0]


@lru_cache
def create_examples_txt() -> list[dict]:
    text = (DOCS / CREATE_TXT).read_text()
    out = []
    for m in re.finditer(re.escape(POST_PREFIX) + r"\s*", text):
        out.append(_balanced_json(text, m.end()))
    return out


@lru_cache
def create_examples_rst() -> list[dict]:
    text = (DOCS / CREATE_RST).read_text()
    out = []
    for m in re.finditer(re.escape(POST_PREFIX) + r"\s*", text):
        out.append(_balanced_json(text, m.end()))
    return out


def create_examples() -> list[dict]:
    return create_examples_txt()


@lru_cache
def create_response_example() -> dict:
    text = (DOCS / CREATE_TXT).read_text()
    i = text.index("Status code: 201\nok\n") + len("Status code: 201\nok\n")
    return _balanced_json(text, text.index("{", i))


@lru_cache
def error_example() -> dict:
    text = (DOCS / CREATE_TXT).read_text()
    i = text.index('{ "error_msg"')
    return _balanced_json(text, i)


@lru_cache
def terminate_response_example() -> dict:
    text = (DOCS / TERMINATE_TXT).read_text()
    i = text.index("Status code: 202\nok\n")
    return _balanced_json(text, text.index("{", i))


def details_example() -> dict:
    """The details example: the document's text lost its closing brackets, so it is kept here
    reconstructed; ``details_example_lines`` lets a test check it against the document."""
    return json.loads((DATA / "details_example.json").read_text())


def details_example_lines() -> list[str]:
    text = (DOCS / DETAILS_TXT).read_text()
    body = text[text.index("Example Responses"):text.index("Status Codes", text.index("Example Responses"))]
    return [ln.strip() for ln in body.splitlines() if ln.strip().startswith('"')]

"""Examples taken verbatim from the API documents in ../shared/api-docs (all five pages).

``request_examples()`` / ``response_examples()`` read every example of every page: the JSON after each
``POST https://endpoint/...`` line and after each ``Status code: NNN`` of "Example Responses". The
details page's text lost its closing brackets, so its example is kept reconstructed in
``data/details_example.json`` (``details_example_lines`` lets a test check it against the page).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

DOCS = Path(__file__).resolve().parents[2].parent / "shared" / "api-docs"
DATA = Path(__file__).resolve().parent / "data"

CREATE_TXT = "004_126c216e710dc1ec.txt"  # Huawei Cloud edition (plain text)
CREATE_RST = "002_f1ca3f24bd0e4530.txt"  # Open Telekom Cloud edition (reStructuredText)
DETAILS_TXT = "003_d91a7524d1ebfb54.txt"  # the one details page (text of an HTML rendering)
TERMINATE_TXT = "001_11a2338cea74f368.txt"  # Huawei Cloud edition
TERMINATE_RST = "000_63ab89c891148f33.txt"  # Open Telekom Cloud edition ("period": 30)
POST_PREFIX = "POST https://endpoint/v2/{project_id}/training-jobs"

# page -> (operation, edition)
PAGES = {
    CREATE_TXT: ("create", "huaweicloud"),
    CREATE_RST: ("create", "otc"),
    TERMINATE_TXT: ("terminate", "huaweicloud"),
    TERMINATE_RST: ("terminate", "otc"),
    DETAILS_TXT: ("details", "single"),
}
BROKEN_PAGES = {DETAILS_TXT}  # examples not machine-readable: reconstructed in data/

_POST_RE = re.compile(r"POST\s+https://endpoint/v2/\{project_id\}/training-jobs\S*\s*")
_STATUS_RE = re.compile(r"Status code: (\d{3})")


@dataclass(frozen=True)
class Example:
    page: str
    operation: str  # create | terminate | details
    edition: str  # huaweicloud | otc | single
    kind: str  # request | response
    status: int | None  # response status code
    body: dict
    index: int = 1  # 1-based position among the page's examples of this kind

    @property
    def id(self) -> str:
        what = f"{self.status}" if self.kind == "response" else f"request{self.index}"
        return f"{self.operation}-{self.edition}-{what}"


def _balanced_json(text: str, start: int):
    """Decode the JSON object starting at text[start] ('{')."""
    return json.JSONDecoder().raw_decode(text, start)[0]


def _text(page: str) -> str:
    return (DOCS / page).read_text()


def _section(text: str, title: str, end_titles: tuple[str, ...]) -> str:
    start = text.index(title)
    ends = [i for i in (text.find(t, start + len(title)) for t in end_titles) if i != -1]
    return text[start:min(ends) if ends else len(text)]


@lru_cache
def request_examples() -> tuple[Example, ...]:
    out = []
    for page, (operation, edition) in PAGES.items():
        text = _text(page)
        section = _section(text, "Example Requests", ("Example Responses",))
        for i, m in enumerate(_POST_RE.finditer(section), 1):
            body = _balanced_json(section, section.index("{", m.end()))
            out.append(Example(page, operation, edition, "request", None, body, i))
    return tuple(out)


@lru_cache
def response_examples() -> tuple[Example, ...]:
    out = []
    for page, (operation, edition) in PAGES.items():
        if page in BROKEN_PAGES:
            out.append(Example(page, operation, edition, "response", 200, details_example()))
            continue
        section = _section(_text(page), "Example Responses", ("Status Codes",))
        for m in _STATUS_RE.finditer(section):
            body = _balanced_json(section, section.index("{", m.end()))
            out.append(Example(page, operation, edition, "response", int(m.group(1)), body))
    return tuple(out)


# --- the named examples the older tests use ----------------------------------------------------------


def _requests_of(page: str) -> list[dict]:
    return [e.body for e in request_examples() if e.page == page]


def _response_of(page: str, status: int) -> dict:
    (found,) = [e.body for e in response_examples() if e.page == page and e.status == status]
    return found


def create_examples_txt() -> list[dict]:
    return _requests_of(CREATE_TXT)


def create_examples_rst() -> list[dict]:
    return _requests_of(CREATE_RST)


def create_examples() -> list[dict]:
    return create_examples_txt()


def create_response_example() -> dict:
    return _response_of(CREATE_TXT, 201)


def error_example() -> dict:
    return _response_of(CREATE_TXT, 400)


def terminate_response_example() -> dict:
    return _response_of(TERMINATE_TXT, 202)


def terminate_response_example_otc() -> dict:
    return _response_of(TERMINATE_RST, 202)


@lru_cache
def _details() -> str:
    return (DATA / "details_example.json").read_text()


def details_example() -> dict:
    """The details example: the document's text lost its closing brackets, so it is kept here
    reconstructed; ``details_example_lines`` lets a test check it against the document."""
    return json.loads(_details())


def details_example_lines() -> list[str]:
    text = _text(DETAILS_TXT)
    body = text[text.index("Example Responses"):text.index("Status Codes", text.index("Example Responses"))]
    return [ln.strip() for ln in body.splitlines() if ln.strip().startswith('"')]

"""Examples of the API documents (the five ModelArts pages), kept in the repository as the tests' own data.

``data/api_examples.json`` holds every example of every page, each naming the page it comes from: the JSON
after each ``POST https://endpoint/...`` line and after each ``Status code: NNN`` of "Example Responses".
``scripts/extract_api_examples.py`` copies them from the pages (``--check`` says whether they still match);
the tests never read the pages, which a clone of the repository does not have. The details page's text
lost its closing brackets, so its example is kept reconstructed in ``data/details_example.json``
(``details_example_lines`` are the page's own lines, so a test can check the reconstruction against them).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

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


@lru_cache
def _data() -> dict:
    return json.loads((DATA / "api_examples.json").read_text())


def _examples(kind: str) -> list[Example]:
    return [Example(e["page"], e["operation"], e["edition"], e["kind"], e["status"], e["body"], e["index"])
            for e in _data()["examples"] if e["kind"] == kind]


@lru_cache
def request_examples() -> tuple[Example, ...]:
    return tuple(_examples("request"))


@lru_cache
def response_examples() -> tuple[Example, ...]:
    out = _examples("response")
    for page in BROKEN_PAGES:
        operation, edition = PAGES[page]
        out.append(Example(page, operation, edition, "response", 200, details_example()))
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
    """The quoted lines of the details page's example response, as the page has them."""
    return list(_data()["details_example_lines"]["lines"])

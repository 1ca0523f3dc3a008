#!/usr/bin/env python3
"""Copy the examples of the ModelArts API pages into the repository, as the tests' own data.

The pages live in ``../shared/api-docs/`` beside a maintainer's checkout, never in a clone: the tests read
``tests/client/data/api_examples.json``, which this script writes (run it by hand when the pages change;
``--check`` says whether the file is still what the pages give). Each example names the page it comes from.

    python scripts/extract_api_examples.py [--docs ../shared/api-docs] [--check]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "client" / "data" / "api_examples.json"

# page -> (operation, edition, title); the details page's text lost its closing brackets, so its example
# is kept reconstructed in tests/client/data/details_example.json and only its lines are copied here.
PAGES = {
    "004_126c216e710dc1ec.txt": ("create", "huaweicloud", "Creating a Training Job"),
    "002_f1ca3f24bd0e4530.txt": ("create", "otc", "Creating a Training Job"),
    "001_11a2338cea74f368.txt": ("terminate", "huaweicloud", "Terminating a Training Job"),
    "000_63ab89c891148f33.txt": ("terminate", "otc", "Terminating a Training Job"),
    "003_d91a7524d1ebfb54.txt": ("details", "single", "Querying the Details About a Training Job"),
}
DETAILS_PAGE = "003_d91a7524d1ebfb54.txt"

_POST_RE = re.compile(r"POST\s+https://endpoint/v2/\{project_id\}/training-jobs\S*\s*")
_STATUS_RE = re.compile(r"Status code: (\d{3})")


def _json_at(text: str, start: int) -> dict:
    return json.JSONDecoder().raw_decode(text, text.index("{", start))[0]


def _section(text: str, title: str, end: str) -> str:
    start = text.index(title)
    stop = text.find(end, start + len(title))
    return text[start:stop if stop != -1 else len(text)]


def extract(docs: Path) -> dict:
    examples: list[dict] = []
    for page, (operation, edition, title) in PAGES.items():
        text = (docs / page).read_text()
        source = {"page": page, "title": title, "operation": operation, "edition": edition}
        requests = _section(text, "Example Requests", "Example Responses")
        for i, m in enumerate(_POST_RE.finditer(requests), 1):
            examples.append({**source, "kind": "request", "status": None, "index": i,
                             "body": _json_at(requests, m.end())})
        if page == DETAILS_PAGE:
            continue
        responses = _section(text, "Example Responses", "Status Codes")
        for m in _STATUS_RE.finditer(responses):
            examples.append({**source, "kind": "response", "status": int(m.group(1)), "index": 1,
                             "body": _json_at(responses, m.end())})
    details = _section((docs / DETAILS_PAGE).read_text(), "Example Responses", "Status Codes")
    lines = [ln.strip() for ln in details.splitlines() if ln.strip().startswith('"')]
    return {"source": "ModelArts v2 training-job API pages (shared/api-docs), copied by "
                      "scripts/extract_api_examples.py",
            "examples": examples, "details_example_lines": {"page": DETAILS_PAGE, "lines": lines}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=Path, default=ROOT.parent / "shared" / "api-docs")
    parser.add_argument("--check", action="store_true", help="exit 1 if the data file differs from the pages")
    args = parser.parse_args()
    text = json.dumps(extract(args.docs), indent=1, ensure_ascii=False) + "\n"
    if args.check:
        same = OUT.exists() and OUT.read_text() == text
        print(f"{OUT.relative_to(ROOT)}: {'up to date' if same else 'differs from the pages: run without --check'}")
        return 0 if same else 1
    OUT.write_text(text)
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

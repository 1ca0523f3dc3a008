"""What a fresh process of the product imports before its first call (the engine starts the stack program and
the dynamic provider anew for every command): the program needs no HTTP stack, the client's names load on first
use, and what the imports built is frozen out of the cyclic collector's walks (core/collector.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import import_module

from testkit.harness import REPO_ROOT

HTTP_STACK = ("requests", "urllib3", "modelarts_provider.client.api", "modelarts_provider.client.signer",
              "modelarts_provider.client.transport", "modelarts_provider.client.pool_api")


def _fresh(code: str) -> dict:
    """What a fresh interpreter prints as JSON after running `code` (the repository on its path)."""
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, check=True, capture_output=True, text=True)
    return json.loads(out.stdout.splitlines()[-1])


def test_the_stack_program_imports_no_http_stack() -> None:
    seen = _fresh("import sys, json, modelarts_provider.stack.run\n"
                  f"print(json.dumps([m for m in {list(HTTP_STACK)!r} if m in sys.modules]))")
    assert seen == [], f"the stack program imported {seen}: import them where a call is made"


def test_every_name_the_client_exports_loads_from_where_it_lives() -> None:
    client = import_module("modelarts_provider.client")
    for name in client.__all__:
        value = getattr(client, name)
        assert value is getattr(import_module(client._WHERE[name], client.__name__), name), name


def test_the_imports_are_frozen_at_the_packages_first_import_and_after_the_programs() -> None:
    counts = _fresh("import gc, json\nimport pulumi\nbefore = gc.get_freeze_count()\n"
                    "import modelarts_provider\nfirst = gc.get_freeze_count()\n"
                    "import modelarts_provider.stack.run\n"
                    "print(json.dumps([before, first, gc.get_freeze_count()]))")
    before, first, program = counts
    assert before == 0 and first > 0 and program > first, counts

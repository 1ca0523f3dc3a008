"""A package's routes written as the SDK's pages write them, one `METHOD /path/{part} operation` a line.

Each package of the local ModelArts (jobs, tags, pools, searches, the catalog) declares its table with
``routes(...)``; responses.py matches a request against every package's table in turn, first match wins.
"""

from __future__ import annotations

import re

Route = tuple[re.Pattern[str], dict[str, str]]
SEGMENT = "[^/]+"  # a {part} of the path: one segment


def routes(table: str, **parts: str) -> tuple[Route, ...]:
    """The table's paths in their order, each with its {method: operation}; a `{name}` is one segment, or the
    pattern `parts[name]` gives."""
    found: dict[str, dict[str, str]] = {}
    for line in table.strip().splitlines():
        method, path, op = line.split()
        assert re.fullmatch(r"[\w/{}-]+", path), path  # literal but for its {parts}: no pattern characters
        found.setdefault(path, {})[method] = op
    return tuple((re.compile("^" + re.sub(r"\{(\w+)\}", lambda m: f"(?P<{m[1]}>{parts.get(m[1], SEGMENT)})", path)
                             + "$"), ops) for path, ops in found.items())


def operations(table: tuple[Route, ...]) -> frozenset[str]:
    return frozenset(op for _, ops in table for op in ops.values())

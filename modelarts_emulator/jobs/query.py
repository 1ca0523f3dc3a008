"""Query parameters of the job routes (tags, events): one value per name, and integers within their bounds."""

from __future__ import annotations

from urllib.parse import parse_qs

from .. import errors


def query_params(raw_query: str) -> dict[str, str]:
    """The last value of each parameter; a blank one kept as ''."""
    return {k: v[-1] for k, v in parse_qs(raw_query, keep_blank_values=True).items()}


def int_param(query: dict[str, str], name: str, default: int, low: int, high: int | None) -> int:
    """An integer parameter: absent or blank is `default`; anything else must be an integer within [low, high]."""
    raw = query.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise errors.invalid_param(name, f"must be an integer, not {raw!r}") from None
    if value < low or (high is not None and value > high):
        raise errors.invalid_param(name, f"must be {low} or more" + (f" and {high} or less" if high else ""))
    return value

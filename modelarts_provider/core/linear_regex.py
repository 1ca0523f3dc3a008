r"""Objective regexes from the user's config, matched in linear time.

A regex is matched against log text the training code printed: with a backtracking engine (Python's `re`),
a pattern such as `acc=((?:\d+)+)%` takes exponential time on a long line of digits, and the wait hangs
after the jobs finished. RE2 (google-re2) matches in time linear in the text whatever the pattern; what
RE2 cannot match that way (backreferences, lookarounds) is refused when the config is checked (preview),
with one line naming what is allowed. Matching is line by line from the log's end: the last match is
found without a second copy of the log, and no match spans two lines (`^`/`$` are a line's ends).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import re2

_OPTIONS = re2.Options()
_OPTIONS.log_errors = False  # the refusal is our one line, not RE2's log on stderr


def compile_objective(pattern: str) -> Any:
    """The compiled pattern; ValueError (one line, what is allowed) when RE2 refuses it or it does not have
    exactly one group."""
    try:
        compiled = re2.compile(pattern, _OPTIONS)
    except re2.error as err:
        why = err.args[0].decode(errors="replace") if err.args and isinstance(err.args[0], bytes) else str(err)
        raise ValueError(f"is not a regular expression RE2 matches in linear time ({why.split(':')[0]}); use "
                         "RE2 syntax: groups, classes, repetitions, no backreferences or lookarounds") from None
    if compiled.groups != 1:
        raise ValueError(f"needs exactly one group around the number, e.g. accuracy=([0-9.]+); "
                         f"it has {compiled.groups}")
    return compiled


def check_objective(pattern: str) -> str:
    """A pydantic validator's body: the pattern when it is fine, else ValueError."""
    compile_objective(pattern)
    return pattern


def lines_from_end(text: str) -> Iterator[str]:
    """The lines of `text`, last first, without splitting the whole text into a list."""
    end = len(text)
    while end > 0:
        start = text.rfind("\n", 0, end)
        yield text[start + 1:end]
        end = start if start >= 0 else 0
    return


def last_capture(pattern: str, text: str) -> str | None:
    """What the group of the last match in `text` captured (None: no match)."""
    compiled = compile_objective(pattern)
    for line in lines_from_end(text):
        last = None
        for last in compiled.finditer(line):
            pass
        if last is not None:
            return last.group(1)
    return None

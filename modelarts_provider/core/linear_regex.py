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


def _problem(code: str, part: str) -> str:
    """RE2's error (a code and the part of the pattern it is about) in words; the part as the user wrote it."""
    if code == "missing )":
        return "a '(' is never closed: add its ')' or write \\( for a literal parenthesis"
    if code == "unexpected )":
        return "a ')' has no '(' before it: remove it or write \\) for a literal parenthesis"
    if code == "missing ]":
        return "a '[' is never closed: add its ']' or write \\[ for a literal bracket"
    if code == "invalid perl operator":
        return f"{part} (a lookahead or lookbehind) is not supported: RE2 matches in linear time without them"
    if code == "invalid escape sequence":
        if part[1:2].isdigit():
            return f"{part} (a backreference) is not supported: RE2 matches in linear time without them"
        return f"{part} is not an escape RE2 knows (e.g. \\d, \\w, \\s, \\.)"
    if code == "trailing \\":
        return "it ends with a lone backslash"
    if code == "invalid repetition size":
        return f"{part} is not a repetition RE2 allows (counts up to 1000, the smaller first)"
    if code == "no argument for repetition operator":
        return f"{part} repeats nothing: write \\{part[:1]} for the character itself"
    if code == "bad repetition operator":
        return f"{part} repeats a repetition"
    if code == "invalid character class range":
        return f"the range {part} runs backwards"
    if code == "invalid named capture group":
        return f"{part} is not a named group RE2 knows: (?P<name>...)"
    return f"{code}: {part}" if part else code


def compile_objective(pattern: str) -> Any:
    """The compiled pattern; ValueError (one line naming the problem, the pattern as written) when RE2 refuses
    it or it does not have exactly one group."""
    try:
        compiled = re2.compile(pattern, _OPTIONS)
    except re2.error as err:
        why = err.args[0].decode(errors="replace") if err.args and isinstance(err.args[0], bytes) else str(err)
        code, _, part = why.partition(": ")
        # The pattern as written between quotes (not repr: a repr doubles every backslash of it).
        raise ValueError(f"'{pattern}' is not a regular expression RE2 accepts: {_problem(code, part)}") from None
    if compiled.groups != 1:
        raise ValueError(f"'{pattern}' needs exactly one group around the number, e.g. accuracy=([0-9.]+); "
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


# --- metrics: every match is a point ---------------------------------------------------------------------

STEP_GROUPS = ("step", "epoch")  # a named group of one of these names gives the point's step
# Whole-log matching with no match across lines, `^`/`$` at each line's ends (as line by line, but one pass:
# the binding's per-call cost made line-by-line matching ~3x slower on a 5 MB log).
_METRIC_OPTIONS = re2.Options()
_METRIC_OPTIONS.log_errors = False
_METRIC_OPTIONS.never_nl = True


def compile_metric(pattern: str) -> tuple[Any, int, int | None]:
    """(compiled, the value's group index, the step's group index or None).

    A metric's regex has one group around the number (or a group named `value`), and may name one more
    group `step` or `epoch` (e.g. `epoch (?P<epoch>[0-9]+)/[0-9]+ loss=([0-9.]+)`): its capture is the
    point's step; without it the step is the match's number (1, 2, ...). ValueError (one line) otherwise."""
    try:
        compiled = re2.compile("(?m)" + pattern, _METRIC_OPTIONS)
    except re2.error as err:
        why = err.args[0].decode(errors="replace") if err.args and isinstance(err.args[0], bytes) else str(err)
        raise ValueError(f"is not a regular expression RE2 matches in linear time ({why.split(':')[0]}); use "
                         "RE2 syntax: groups, classes, repetitions, no backreferences or lookarounds") from None
    named = dict(compiled.groupindex)
    steps = [n for n in named if n in STEP_GROUPS]
    other = sorted(set(named) - {*STEP_GROUPS, "value"})
    if other:
        raise ValueError(f"names a group {other[0]!r}: a metric's groups are the number (unnamed, or named "
                         f"value) and optionally a step, named step or epoch")
    if len(steps) > 1:
        raise ValueError("names both a step and an epoch group: name one of them")
    step = named[steps[0]] if steps else None
    values = [named["value"]] if "value" in named else \
        [i for i in range(1, compiled.groups + 1) if i not in named.values()]
    if len(values) != 1:
        raise ValueError(f"needs exactly one group around the number (besides a step or epoch group), e.g. "
                         f"loss=([0-9.]+); it has {len(values)}")
    return compiled, values[0], step


def check_metric(pattern: str) -> str:
    """A pydantic validator's body: the metric's pattern when it is fine, else ValueError."""
    compile_metric(pattern)
    return pattern


def all_captures(pattern: str, text: str) -> list[tuple[str | None, str]]:
    """(step capture or None, value capture) of every match in `text`, in order (no match spans two lines, as
    for objectives)."""
    compiled, value, step = compile_metric(pattern)
    return [(m.group(step) if step is not None else None, m.group(value)) for m in compiled.finditer(text)]


def last_captures(pattern: str, text: str) -> tuple[str | None, str] | None:
    """(step capture or None, value capture) of the last match in `text`, found from the end: progress lines
    read only the latest value of a log that may be long. None: no match."""
    compiled, value, step = compile_metric(pattern)
    for line in lines_from_end(text):
        last = None
        for last in compiled.finditer(line):
            pass
        if last is not None:
            return (last.group(step) if step is not None else None), last.group(value)
    return None

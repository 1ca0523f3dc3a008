r"""Divergence: a metric whose value turns non-finite (nan, inf, -inf, as frameworks print them), whatever the
user's regex.

Users write regexes for numbers (`accuracy=([0-9.]+)`): such a regex never matches `accuracy=nan`, so the last
finite value before the divergence would count and a diverged run could win. Two checks, both linear-time (RE2):
- the user's regex itself captures a non-finite number (`loss=(\S+)` capturing `nan`, `-inf`, `Infinity`);
- its companion: the same regex with the value group's body replaced by a non-finite token (NON_FINITE), so
  the same prefix and suffix must match around it (`accuracy=(nan)` for `accuracy=([0-9.]+)`; a step group and
  the group numbering are kept).
The first such match, by position in the log, is the divergence ("nan at line 812"). Pure functions; the
companion is derived by scanning the pattern's text (escapes, \Q...\E, classes, group openings), not by
evaluating it.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

import re2

from ..core.linear_regex import compile_metric

# What PyTorch, numpy, TensorFlow, Python, C (`-nan`, `-nan(ind)`) and JavaScript (`NaN`, `Infinity`) print for
# a non-finite number, in any case; a word boundary after it, so `nanosec` or `info` is no divergence.
NON_FINITE = r"[+-]?(?i:nan\b(?:\(\w*\))?|inf(?:inity)?\b)"

_OPTIONS = re2.Options()
_OPTIONS.log_errors = False
_OPTIONS.never_nl = True  # as metrics are matched: no match across lines, ^/$ at each line's ends


def group_body(pattern: str, index: int) -> tuple[int, int] | None:
    """(start, end) of the body of capturing group `index` (1-based) in `pattern`: after its opening `(`,
    `(?P<name>` or `(?<name>`, up to its closing `)`. None when the pattern's text is not understood."""
    depth_groups: list[int | None] = []  # per open paren: its capture number (None: not capturing)
    captures = 0
    start: int | None = None
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":
            if pattern.startswith("\\Q", i):  # literal text up to \E (or the end)
                end = pattern.find("\\E", i + 2)
                i = n if end < 0 else end + 2
                continue
            i += 2
            continue
        if c == "[":
            i = _class_end(pattern, i)
            continue
        if c == "(":
            opening = i + 1
            capturing = True
            if pattern.startswith("?", opening):
                named = next((p for p in ("?P<", "?<") if pattern.startswith(p, opening)), None)
                if named is None:
                    capturing = False  # (?:...), (?i), (?i:...)
                else:
                    close = pattern.find(">", opening)
                    if close < 0:
                        return None
                    opening = close + 1
            number = None
            if capturing:
                captures += 1
                number = captures
                if number == index:
                    start = opening
            depth_groups.append(number)
            i = opening
            continue
        if c == ")":
            if not depth_groups:
                return None
            if depth_groups.pop() == index and start is not None:
                return start, i
        i += 1
    return None


def _class_end(pattern: str, i: int) -> int:
    """The index after the `]` closing the class that opens at `i` (a leading `]` or `^]` is literal)."""
    j = i + 1
    if pattern.startswith("^", j):
        j += 1
    if pattern.startswith("]", j):
        j += 1
    while j < len(pattern):
        if pattern[j] == "\\":
            j += 2
            continue
        if pattern.startswith("[:", j):  # [:alpha:]
            end = pattern.find(":]", j + 2)
            if end >= 0:
                j = end + 2
                continue
        if pattern[j] == "]":
            return j + 1
        j += 1
    return j


def companion(pattern: str) -> str | None:
    """The user's metric regex with its value group's body replaced by NON_FINITE (None: not derivable)."""
    try:
        compiled, value, _step = compile_metric(pattern)
    except ValueError:
        return None
    span = group_body(pattern, value)
    if span is None:
        return None
    derived = pattern[:span[0]] + NON_FINITE + pattern[span[1]:]
    try:
        again = re2.compile("(?m)" + derived, _OPTIONS)
    except re2.error:
        return None
    return derived if again.groups == compiled.groups else None


@lru_cache(maxsize=256)
def _compiled(pattern: str) -> tuple[Any, int, Any | None]:
    """(the user's regex, its value group, its companion or None), compiled once per pattern."""
    compiled, value, _step = compile_metric(pattern)
    derived = companion(pattern)
    return compiled, value, re2.compile("(?m)" + derived, _OPTIONS) if derived is not None else None


def _non_finite(text: str) -> bool:
    try:
        return not math.isfinite(float(text))
    except (TypeError, ValueError):
        return False


def first_divergence(pattern: str, text: str) -> str | None:
    """Where the metric first turned non-finite in `text` ("nan at line 3"), or None."""
    try:
        compiled, value, extra = _compiled(pattern)
    except ValueError:
        return None
    found: tuple[int, str] | None = None
    for m in compiled.finditer(text):
        captured = m.group(value)
        if captured is not None and _non_finite(captured):
            found = (m.start(value), captured)
            break
    if extra is not None:
        for m in extra.finditer(text):
            if found is None or m.start(value) < found[0]:
                found = (m.start(value), m.group(value))
            break
    if found is None:
        return None
    at, token = found
    return f"{token.strip()} at line {text.count(chr(10), 0, at) + 1}"

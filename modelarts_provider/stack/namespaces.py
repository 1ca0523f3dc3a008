"""Config namespaces that are almost ours: a one-letter slip that would make the program see nothing.

Pulumi hands a program every key of its stack file, whatever the namespace; a key under another namespace
is another program's or provider's business and not ours to judge. But `modelarts-job:sweeps` (for
`modelarts-jobs:sweeps`) is not another program's: it is our sweeps, which the program would then not see, and
the `up` would delete every job they made (issue 41). So a namespace within a small edit distance of ours
(case, '-'/'_' and up to two letters apart) is refused before anything is declared, with the key it meant.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..core.messages import edit_distance

# How far a namespace may be from ours and still be a slip: two edits covers a dropped, doubled or swapped
# letter; no real package name is that close to `modelarts` or `modelarts-jobs` by accident.
MAX_DISTANCE = 2


def _folded(namespace: str) -> str:
    return namespace.lower().replace("_", "-")


def misspelled_namespaces(keys: Iterable[str], ours: Iterable[str]) -> list[str]:
    """One line per config key whose namespace is a slip of one of `ours`, naming the key it meant."""
    ours = list(ours)
    lines = []
    for key in sorted(keys):
        namespace, sep, rest = key.partition(":")
        if not sep or namespace in ours:
            continue
        close = sorted((edit_distance(_folded(namespace), _folded(o)), o) for o in ours)
        distance, meant = close[0]
        if distance <= MAX_DISTANCE:
            lines.append(f"invalid stack config: {key}: unknown namespace {namespace} (did you mean {meant}:{rest}?)")
    return lines

"""Validation errors in words: the rule and the value given, once per field.

Pydantic speaks in regular expressions and lists every branch of a union ("Input should be a valid
string; ... valid integer; ..."). Every refusal of the stack config and of the resource args goes
through `explain()` instead, so users read ModelArts rules, e.g.

    obs.main.bucket: 'My_Bucket' is not a valid bucket name: 3-63 characters: lowercase letters,
    digits, dots, hyphens; starts and ends with a letter or digit

The patterns live here, each with its words, so a pattern can never be shown without them.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import Any

# pattern -> the rule in words
BUCKET_RE = r"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$"
KEY_RE = r"^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$"
PARAM_NAME_RE = r"^[A-Za-z0-9_.-]+$"
ENV_NAME_RE = r"^[A-Za-z_][A-Za-z0-9_.-]*$"
NFS_SERVER_RE = r"^[^\s:]+:/\S*$"
ABS_PATH_RE = r"^/\S*$"

PATTERN_WORDS = {
    BUCKET_RE: "is not a valid bucket name: 3-63 characters: lowercase letters, digits, dots, hyphens; "
               "starts and ends with a letter or digit",
    KEY_RE: "is not a valid key: 1-40 characters: letters, digits, '_' and '-'; starts with a letter or digit",
    PARAM_NAME_RE: "is not a valid name: letters, digits, '_', '.' and '-' only",
    ENV_NAME_RE: "is not a valid environment variable name: letters, digits, '_', '.' and '-'; "
                 "starts with a letter or '_'",
    NFS_SERVER_RE: "is not an NFS server path: host:/path, e.g. 192.168.0.82:/data",
    ABS_PATH_RE: "is not an absolute path: starts with '/', no spaces",
}

# Pools and networks (issue 24): the user's names (os.modelarts/name) as documented, and IPv4 CIDRs. A
# network's name is 4-32 characters like a pool's (the CreateNetwork reference, Terraform's network resource;
# issue 42): the same rule, written apart so that each has its own words below.
POOL_NAME_RE = r"^[a-z][a-z0-9-]{2,30}[a-z0-9]$"
NETWORK_NAME_RE = r"^[a-z](?:[a-z0-9-]{2,30})[a-z0-9]$"
# A pool's description (annotation os.modelarts/description): the SDK's PoolMetadataUpdateAnnotations says
# it may not hold !<>=&"' .
POOL_DESCRIPTION_RE = r"^[^!<>=&\"']*$"
CIDR_RE = r"^(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}/([0-9]|[12]\d|3[0-2])$"
PATTERN_WORDS.update({
    POOL_NAME_RE: "is not a valid pool name: 4-32 characters: lowercase letters, digits and '-'; starts with a "
                  "letter, ends with a letter or digit",
    NETWORK_NAME_RE: "is not a valid network name: 4-32 characters: lowercase letters, digits and '-'; starts "
                     "with a letter, ends with a letter or digit",
    CIDR_RE: "is not an IPv4 CIDR block, e.g. 192.168.128.0/17",
    POOL_DESCRIPTION_RE: "is not a valid pool description: any text without the characters ! < > = & \" '",
})

_TYPE_WORDS = {
    "string_type": "a string", "int_type": "a whole number", "int_parsing": "a whole number",
    "int_from_float": "a whole number", "float_type": "a number", "float_parsing": "a number",
    "bool_type": "a boolean", "bool_parsing": "a boolean (true or false)", "list_type": "a list",
    "dict_type": "a map", "model_type": "a map", "model_attributes_type": "a map",
    "literal_error": None,
}


def kind_of(value: Any) -> str:
    """What a value is, in the words of a config file."""
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "a whole number"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, dict):
        return "a map"
    return "empty" if value is None else type(value).__name__


def shown(value: Any) -> str:
    """A value as a message quotes it: repr, cut at 60 characters."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)  # config numbers arrive as floats: 1, not 1.0
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _one(err: dict[str, Any]) -> str:
    kind, ctx, value = err["type"], err.get("ctx") or {}, err.get("input")
    msg: str = err["msg"]
    if kind == "string_pattern_mismatch":
        words = PATTERN_WORDS.get(str(ctx.get("pattern")), "is not in the allowed form")
        return f"{shown(value)} {words}"
    if kind == "literal_error":
        expected = str(ctx.get("expected", "")).replace(chr(39), "")
        few = ", " not in expected  # one choice or two: "must be max or min"
        return f"must be {'' if few else 'one of '}{expected}, not {shown(value)}"
    if kind == "string_too_long":
        return f"must be at most {ctx.get('max_length')} characters (got {len(value) if isinstance(value, str) else '?'})"
    if kind == "string_too_short":
        if ctx.get("min_length") == 1:
            return "must not be empty"
        return f"must be at least {ctx.get('min_length')} characters (got {len(value) if isinstance(value, str) else '?'})"
    if kind in ("greater_than", "greater_than_equal", "less_than", "less_than_equal"):
        op = {"greater_than": "greater than", "greater_than_equal": "at least", "less_than": "less than",
              "less_than_equal": "at most"}[kind]
        bound = next(iter(ctx.values()), "?")
        return f"must be {op} {shown(bound)}, not {shown(value)}"
    if kind == "too_short":
        if ctx.get("min_length") == 1:
            return "must not be empty"
        return f"must hold at least {ctx.get('min_length')} items (got {ctx.get('actual_length', '?')})"
    if kind in _TYPE_WORDS and _TYPE_WORDS[kind]:
        return f"must be {_TYPE_WORDS[kind]}, not {kind_of(value)}" + (
            f" {shown(value)}" if isinstance(value, (str, int, float)) and not isinstance(value, bool) else "")
    if kind == "extra_forbidden":
        return "is not a known field"
    if kind == "missing":
        return "is required"
    return msg.removeprefix("Value error, ")


def _union(errs: list[dict[str, Any]]) -> str:
    """One sentence for the failed branches of a union (e.g. string | number | boolean)."""
    wanted: list[str] = []
    for e in errs:
        w = _TYPE_WORDS.get(e["type"])
        if w is None and e["type"] in ("model_type", "model_attributes_type", "dict_type"):
            w = "a map"
        if w and w not in wanted:
            wanted.append(w)
    value = errs[0].get("input")
    if not wanted:
        return _one(errs[0])
    if "a whole number" in wanted and "a number" in wanted:
        wanted.remove("a whole number")
    # one article for the list: "a string, number or boolean"
    bare = [w.split(" ", 1)[1] for w in wanted]
    choice = wanted[0] if len(wanted) == 1 else f"a {', '.join(bare[:-1])} or {bare[-1]}"
    return f"must be {choice}, not {kind_of(value)}"


# Names pydantic puts into a location for union branches and validators; never part of a field path.
_BRANCH_PREFIXES = ("function-", "list[", "dict[", "union[", "tagged-union[", "literal[")
_BRANCHES = {"str", "int", "float", "bool", "none"}


def is_branch(part: Any, model_names: Iterable[str] = ()) -> bool:
    return isinstance(part, str) and (part in _BRANCHES or part.startswith(_BRANCH_PREFIXES)
                                      or part in set(model_names))


def explain(errors: list[dict[str, Any]], model_names: Iterable[str] = ()) -> list[tuple[tuple[Any, ...], str]]:
    """[(field location, reason)] with union alternatives merged: one reason per field."""
    names = set(model_names)
    grouped: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    branchy: set[tuple[Any, ...]] = set()
    for err in errors:
        raw = tuple(err["loc"])
        loc = tuple(p for p in raw if not is_branch(p, names))
        if len(loc) != len(raw):
            branchy.add(loc)
        grouped.setdefault(loc, []).append(err)
    # A union branch that got further (e.g. a map whose `versionId` is missing) says more than the
    # branches that failed on the type: keep the deeper errors alone.
    for loc in list(branchy):
        if any(len(other) > len(loc) and other[:len(loc)] == loc for other in grouped):
            kept = [e for e in grouped[loc] if e["type"] not in _TYPE_WORDS]
            if kept:
                grouped[loc] = kept
            else:
                del grouped[loc]
    out = []
    for loc, errs in grouped.items():
        if loc and loc[-1] == "[key]":  # a map key: name the key itself
            loc = loc[:-1]
        if len(errs) > 1 and loc in branchy:
            out.append((loc, _union(errs)))
            continue
        for err in errs:  # several rules may fail on one model: each names its own field
            field = (err.get("ctx") or {}).get("field") if err["type"] == "rule" else None
            out.append((loc + tuple(field.split(".")) if field else loc, _one(err)))
    return out


def _folded(key: str) -> str:
    """waitFor, wait_for, WAITFOR and wait-for are one key to a reader."""
    return key.lower().replace("_", "").replace("-", "")


def did_you_mean(key: str, known: Iterable[str], prefix: str = "") -> str:
    """The hint for an unknown key: '(did you mean waitFor?)' for a close known key, else every allowed key.

    `prefix` is put before each key shown (e.g. 'modelarts:')."""
    known = list(known)
    by_fold = {_folded(k): k for k in known}
    close = difflib.get_close_matches(_folded(key), list(by_fold), n=1, cutoff=0.75)
    if close:
        return f"(did you mean {prefix}{by_fold[close[0]]}?)"
    return f"(allowed: {', '.join(prefix + k for k in known)})"


def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance: the fewest one-character insertions, deletions or substitutions from a to b."""
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]

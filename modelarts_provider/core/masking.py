"""The one masking step every printed text passes: `up` output, errors, the logs command, failure reports.

Two rules, applied together:
- known values: every secret value the product knows (the stack's config secrets, a job's secret inputs as
  recorded by their paths, the client's credentials) is masked wherever it appears; a value shorter than
  MIN_ANYWHERE characters only as a whole token (a PIN "42" must not turn "epoch 42/50" into a riddle);
- shapes, for secrets nobody told us about: the value of a secret-looking key (token, key, secret,
  password, passwd, pwd, credential, auth, private, signature; AK/SK as whole words) in `KEY=value`
  (whatever precedes it: `ERROR: HF_TOKEN=...`, `WARNING:root:API_KEY=...`), `key: value`, JSON and
  Python-dict pairs (`"token": "..."`, `{'api_key': '...'}`), `--hf-token value` / `--token=value`
  flags, `Bearer ...` headers and `scheme://user:password@host` URLs.

Values are replaced by MASK. A process-wide registry (`remember`) holds the values this process learnt
(a provider process learns each job's secret inputs in check()); nothing of it is ever written anywhere.
No Pulumi imports: the client uses it too.
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Iterable, Iterator
from typing import Any

__all__ = ["MASK", "mask", "mask_shapes", "mask_values", "remember", "known", "secret_looking", "leaves"]

MASK = "******"
MIN_ANYWHERE = 4
SECRET_PARTS = ("KEY", "SECRET", "TOKEN", "PASSWORD", "PASSWD", "PWD", "CREDENTIAL", "AUTH", "PRIVATE",
                "SIGNATURE")
SECRET_WORDS = frozenset({"AK", "SK"})

_KNOWN: set[str] = set()
_KNOWN_LOCK = threading.Lock()

_NAME = r"[A-Za-z_][A-Za-z0-9_.-]*"
_VALUE = r"(?:(?i:bearer|basic)\s+)?(?:\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'|[^\s,;'\"}\])]+)"
# "token": "x" / 'api_key': 'x' / "password"="x" (JSON, Python dicts, quoted assignments)
_QUOTED_PAIR = re.compile(r"(?P<q>[\"'])(?P<name>[^\"'\s]{1,100})(?P=q)(?P<sep>\s*[:=]\s*)(?P<value>" + _VALUE + ")")
# KEY=value, key: value, whatever precedes it (not inside another name)
_PAIR = re.compile(r"(?<![A-Za-z0-9_.-])(?P<name>" + _NAME + r")(?P<sep>\s*(?:=|:(?!//))\s*)(?P<value>" + _VALUE + ")")
# --hf-token value, --token=value, -password value
_FLAG = re.compile(r"(?<![A-Za-z0-9_])(?P<dash>--?)(?P<name>[A-Za-z][A-Za-z0-9_.-]*)(?P<sep>=|\s+)(?P<value>(?:(?<==)|(?!-))"
                   + _VALUE + ")")
# Pulumi's own switches, followed by words, not values
_SWITCHES = frozenset({"secret", "secrets", "show-secrets", "secrets-provider"})
_BEARER = re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{8,}")
_URL_PASSWORD = re.compile(r"(?P<head>\b[A-Za-z][A-Za-z0-9+.-]*://[^\s:/@]+:)(?P<value>[^\s@/]+)(?=@)")


def secret_looking(name: str) -> bool:
    """True for names like HW_SECRET_KEY, api-token, hf_token, DB_PASSWORD, MY_AK, OBS_SK, Authorization."""
    upper = name.upper()
    return bool(set(re.split(r"[^A-Z0-9]+", upper)) & SECRET_WORDS) or any(p in upper for p in SECRET_PARTS)


def _secret_name(name: str) -> bool:
    # "KeyError: 'epochs'" is a traceback's last line, not a key: keep it readable
    return secret_looking(name) and not name.endswith(("Error", "Exception", "Warning"))


# `credentials: set` is prose, `token: 9f8e7d...` is not: an unquoted value after a colon is masked
# from this length on (after `=`, a flag or in quotes: any length).
MIN_COLON_VALUE = 6


def _secret_pair(m: re.Match[str]) -> bool:
    if not _secret_name(m.group("name")) or ("dash" in m.groupdict() and m.group("name").lower() in _SWITCHES):
        return False
    value = m.group("value")
    return not (":" in m.group("sep") and value[:1] not in ("'", '"') and len(value) < MIN_COLON_VALUE)


def _masked(m: re.Match[str]) -> str:
    value = m.group("value")
    quote = value[0] if value[:1] in ("'", '"') else ""
    prefix = m.group(0)[: m.start("value") - m.start(0)]
    return prefix + quote + MASK + quote


def _sub_nested(pattern: re.Pattern[str], text: str) -> str:
    """pattern.sub(_masked, ...), except that a pair whose key is not secret-looking is scanned again from
    its value: in `ERROR: HF_TOKEN=x` the pair `ERROR: ...` holds the pair `HF_TOKEN=x`."""
    out, pos = [], 0
    while True:
        m = pattern.search(text, pos)
        if m is None:
            return "".join(out) + text[pos:]
        if _secret_pair(m):
            out.append(text[pos:m.start()] + _masked(m))
            pos = m.end()
        else:
            out.append(text[pos:m.start("value")])
            pos = m.start("value")


def mask_shapes(text: str) -> str:
    """Masks the values of secret-looking keys in the usual shapes (see the module docstring)."""
    text = _sub_nested(_QUOTED_PAIR, text)
    text = _sub_nested(_FLAG, text)
    text = _sub_nested(_PAIR, text)
    text = _BEARER.sub(lambda m: f"{m.group(1)} {MASK}", text)
    return _URL_PASSWORD.sub(lambda m: m.group("head") + MASK, text)


@functools.lru_cache(maxsize=32)
def _values_pattern(values: frozenset[str]) -> re.Pattern[str] | None:
    """One pattern for a set of values, built once per set: every printed line passes here, and the set (the
    registry, the client's credentials) rarely changes."""
    parts = []
    for v in sorted(values, key=len, reverse=True):  # longest first: no partial masks
        if len(v) >= MIN_ANYWHERE:
            parts.append(re.escape(v))
        else:
            # short: only as an assigned value (`PIN=42`, `pin: 42`, `--pin 42`) or a whole line
            parts.append(r"(?:(?:(?<=[=:])|(?<=[=:] )|(?<=[A-Za-z0-9_-]\s))" + re.escape(v)
                         + r"(?=$|[\s,;'\"}\])])|^" + re.escape(v) + "$)")
    return re.compile("|".join(parts)) if parts else None


def mask_values(text: str, values: Iterable[str]) -> str:
    pattern = _values_pattern(frozenset(v for v in values if v))
    return pattern.sub(MASK, text) if pattern is not None else text


def leaves(value: Any) -> Iterator[Any]:
    """The scalar values inside a (config) value: every value of a map or list, at any depth."""
    if isinstance(value, dict):
        for v in value.values():
            yield from leaves(v)
    elif isinstance(value, list):
        for v in value:
            yield from leaves(v)
    else:
        yield value


def remember(values: Iterable[object]) -> None:
    """Adds secret values this process learnt (strings, or numbers as their text) to the registry."""
    fresh = {v if isinstance(v, str) else str(v) for v in values
             if isinstance(v, (str, int, float)) and not isinstance(v, bool) and str(v).strip()}
    with _KNOWN_LOCK:
        _KNOWN.update(fresh)


def known() -> frozenset[str]:
    with _KNOWN_LOCK:
        return frozenset(_KNOWN)


def mask(text: str, values: Iterable[str | None] = ()) -> str:
    """The masking step: known values (the registry and `values`) first, then the shapes."""
    text = mask_values(text, known().union(v for v in values if v))
    return mask_shapes(text)

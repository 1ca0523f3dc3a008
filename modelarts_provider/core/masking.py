"""The one masking step every printed text passes: `up` output, errors, the logs command, failure reports.

Two rules, applied together:
- known values: every secret value handed in (`Secrets`: the stack's config secrets, a job's secret inputs as
  recorded by their paths, the plugin's secret markers; the client's credentials) is masked as a whole: where it is not part of a longer
  word (`fail` never masks `failingsecret-8adyj3`); a value of LONG_ANYWHERE characters or more (a token, a
  key) wherever it appears; a value shorter than MIN_ANYWHERE characters only where it is assigned (a PIN
  "42" must not turn "epoch 42/50" into a riddle). Values a secret section merely holds are masked only
  when they are secret material (`secret_material`): a number, true/false/none, a phase or a short word
  (`1`, `0.01`, `none`, `fail`, a pool name) would mask every count and phase in the output; an explicit
  secret (`explicit`: an environment value set with `--secret --path`) is masked whatever it is;
- shown names: the jobs' own names (`show`) are never masked, not even in part: a failure names its job;
- shapes, for secrets nobody told us about: the value of a secret-looking key (token, key, secret,
  password, passwd, pwd, credential, auth, private, signature; AK/SK as whole words) in `KEY=value`
  (whatever precedes it: `ERROR: HF_TOKEN=...`, `WARNING:root:API_KEY=...`), `key: value`, JSON and
  Python-dict pairs (`"token": "..."`, `{'api_key': '...'}`), `--hf-token value` / `--token=value`
  flags, `Bearer ...` headers and `scheme://user:password@host` URLs.

Values are replaced by MASK. Which values are secret travels with the data: a `Secrets` value, built where the
inputs enter (a TrainingJob's values at its `secret_paths`, the plugin's secret markers, the stack program's
secret config, a JobsAwait's per-job `secrets`), is handed to `mask` explicitly, or bound for the length of one
provider call (`binding`: the call's own inputs, as its URN is, core/call_urn.py) for the lines and errors that
call prints. Nothing is learnt across calls: two resources served by one process never mask each other's
values. No Pulumi imports: the client uses it too.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

__all__ = ["MASK", "NONE", "Secrets", "binding", "in_call", "mask", "mask_shapes", "mask_values", "secret_looking",
           "leaves", "secret_material", "secret_values"]

MASK = "******"
MIN_ANYWHERE = 4
LONG_ANYWHERE = 16  # a value this long is a token or a key: masked even inside other text
MIN_MATERIAL = 6  # a plain word shorter than this (`fail`, `none`, `gpu`) is no secret material
# Words of the service and of YAML that any secret section holds and any output prints (phases, switches).
PLAIN_WORDS = frozenset({
    "true", "false", "none", "null", "yes", "no", "on", "off", "auto", "default",
    "creating", "pending", "running", "completed", "failed", "abnormal", "terminating", "terminated",
    "deleting", "deleted", "stopped", "submitted", "active", "train", "infer", "notebook"})
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
SECRET_PARTS = ("KEY", "SECRET", "TOKEN", "PASSWORD", "PASSPHRASE", "PASSWD", "PWD", "CREDENTIAL", "AUTH", "PRIVATE",
                "SIGNATURE")
SECRET_WORDS = frozenset({"AK", "SK"})
PLAIN_KEY_WORDS = frozenset({"KEY", "KEYS"})  # names that are only these are not secret-looking

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
    words = set(re.split(r"[^A-Z0-9]+", upper)) - {""}
    if words <= PLAIN_KEY_WORDS:  # a bare `key`: a job's key in this product's outputs, an object's key in OBS
        return False
    return bool(words & SECRET_WORDS) or any(p in upper for p in SECRET_PARTS)


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


def secret_material(value: str) -> bool:
    """False for what a secret section holds beside its secrets: numbers (counts, learning rates), phases and
    switches, plain words shorter than MIN_MATERIAL letters. Masking those would hide every count, phase and
    `--lr=0.1` of the output and protect nothing."""
    v = value.strip()
    if not v or v.lower() in PLAIN_WORDS or _NUMBER.fullmatch(v):
        return False
    return not (len(v) < MIN_MATERIAL and v.isalpha())


_ALNUM_BEFORE = r"(?<![A-Za-z0-9])"
_ALNUM_AFTER = r"(?![A-Za-z0-9])"


@functools.lru_cache(maxsize=32)
def _values_pattern(values: frozenset[str], names: frozenset[str] = frozenset()) -> re.Pattern[str] | None:
    """One pattern for a set of values (and the names shown as they are), built once per set: every printed
    line passes here, and the sets (a call's secrets, the client's credentials) rarely change. A shown name is
    matched first (group `keep`), so no value is masked inside it."""
    parts = []
    for v in sorted(values, key=len, reverse=True):  # longest first: no partial masks
        if len(v) >= LONG_ANYWHERE:
            parts.append(re.escape(v))
        elif len(v) >= MIN_ANYWHERE:  # as a whole: not inside another word
            parts.append(_ALNUM_BEFORE + re.escape(v) + _ALNUM_AFTER)
        else:
            # short: only as an assigned value (`PIN=42`, `pin: 42`, `--pin 42`) or a whole line
            parts.append(r"(?:(?:(?<=[=:])|(?<=[=:] )|(?<=[A-Za-z0-9_-]\s))" + re.escape(v)
                         + r"(?=$|[\s,;'\"}\])])|^" + re.escape(v) + "$)")
    if not parts:
        return None
    keep = [re.escape(n) for n in sorted(names, key=len, reverse=True) if n]
    values_part = "|".join(parts)
    if keep:
        return re.compile(f"(?P<keep>{_ALNUM_BEFORE}(?:{'|'.join(keep)}){_ALNUM_AFTER})|(?:{values_part})")
    return re.compile(values_part)


def _replace(m: re.Match[str]) -> str:
    return m.group(0) if m.lastgroup == "keep" else MASK


def mask_values(text: str, values: Iterable[str], names: Iterable[str] = ()) -> str:
    """`text` with the values masked, except inside the names. The names are read only when a value occurs in
    the text, and only those the text contains join the pattern: a provider shows every job's name, so a
    pattern of all the names would be compiled again at each new job's line (N lines x N names: quadratic in
    a sweep's size, 1/3 of the provider's CPU at 1,000 jobs). The result is the same."""
    known_values = frozenset(v for v in values if v)
    pattern = _values_pattern(known_values)
    if pattern is None or pattern.search(text) is None:
        return text
    present = frozenset(n for n in names if n and n in text)
    return (_values_pattern(known_values, present) if present else pattern).sub(_replace, text)


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


def secret_values(value: Any, explicit_under: frozenset[str] = frozenset({"environments"})) -> list[str]:
    """The texts of a secret (config) value worth masking: every leaf under a key of `explicit_under` (an
    environment value is a secret of its own, whatever its length), the secret material among the others."""
    out: list[str] = []

    def walk(node: Any, explicit: bool) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                walk(v, explicit or str(k) in explicit_under)
        elif isinstance(node, list):
            for v in node:
                walk(v, explicit)
        elif isinstance(node, (str, int, float)) and not isinstance(node, bool):
            text = str(node)
            if text.strip() and (explicit or secret_material(text)):
                out.append(text)

    walk(value, False)
    return out


def _texts(values: Iterable[object]) -> set[str]:
    """Strings, and numbers as their text (what a printed line or a record holds of them)."""
    return {v if isinstance(v, str) else str(v) for v in values
            if isinstance(v, (str, int, float)) and not isinstance(v, bool) and str(v).strip()}


@dataclass(frozen=True)
class Secrets:
    """What is secret for one piece of output, derived from the inputs it came from (never learnt).

    masked: the values masked in printed text (see the module docstring: secret material, or any value set as a
    secret of its own); every: all secret values, counts and short words too (what a record in the state must
    never hold in plain text, e.g. a run's parameters); shown: names printed as they are (a job's own name)."""

    masked: frozenset[str] = frozenset()
    every: frozenset[str] = frozenset()
    shown: frozenset[str] = frozenset()

    @classmethod
    def of(cls, values: Iterable[object] = (), *, explicit: bool = False, shown: Iterable[object] = ()) -> Secrets:
        """Secret values (strings, or numbers as their text): the secret material among them is masked, or all of
        them with `explicit` (a value set as a secret of its own, e.g. an environment value)."""
        texts = _texts(values)
        return cls(frozenset(t for t in texts if explicit or secret_material(t)), frozenset(texts),
                   frozenset(n for n in shown if isinstance(n, str) and n.strip()))

    def __or__(self, other: Secrets) -> Secrets:
        if not other:
            return self
        if not self:
            return other
        return Secrets(self.masked | other.masked, self.every | other.every, self.shown | other.shown)

    def __bool__(self) -> bool:
        return bool(self.masked or self.every or self.shown)

    def mask(self, text: str) -> str:
        return mask(text, self)


NONE = Secrets()

# The secrets of the provider call running in this context (its own inputs), bound by the call's entry
# (provider_base.ModelArtsProvider, plugin/provider.py): what say() and ProviderError mask when not handed any.
_CALL: contextvars.ContextVar[Secrets] = contextvars.ContextVar("modelarts_call_secrets", default=NONE)


def in_call() -> Secrets:
    """The secrets of the provider call running in this context (NONE outside a call)."""
    return _CALL.get()


@contextlib.contextmanager
def binding(secrets: Secrets) -> Iterator[Secrets]:
    """Bind `secrets` (with those already bound: the plugin's markers around the provider's own) for the length of
    one provider call in this context."""
    bound = _CALL.get() | secrets
    token = _CALL.set(bound)
    try:
        yield bound
    finally:
        _CALL.reset(token)


def mask(text: str, secrets: Secrets | Iterable[str | None] | None = None, *, values: Iterable[str | None] = (),
         names: Iterable[str] = ()) -> str:
    """The masking step: the secret values (`secrets`, else the running call's, and `values`: e.g. the client's
    credentials, each masked whatever it is) first, except inside shown names, then the shapes. Plain values in
    place of `secrets` are `values` besides the running call's."""
    if secrets is not None and not isinstance(secrets, Secrets):
        values, secrets = [*values, *secrets], None
    given = in_call() if secrets is None else secrets
    text = mask_values(text, given.masked.union(v for v in values if v), (*names, *given.shown))
    return mask_shapes(text)

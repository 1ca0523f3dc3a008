"""Secret stack-config values stay secrets in the resources built from them: marked by *path*.

Pulumi tells a program only which top-level keys hold a secret (`modelarts-jobs:jobs` as a whole,
after `pulumi config set --secret --path modelarts-jobs:jobs.a.environments.HF_TOKEN ...`), and
`Config.get_object` returns plain values. Which parts are secret is read from the stack's config file:
a `secure:` leaf at a path (set with `--path`), or the whole key (`pulumi config set --secret KEY
'<json>'`, one `secure:` for the whole map). The engine cannot tell: its language host hands a Python program
the config as strings and the names of the keys holding a secret (PULUMI_CONFIG, PULUMI_CONFIG_SECRET_KEYS;
the RunRequest's `configPropertyMap`, which would mark sub-paths, is deprecated and left unset by the engine,
3.259). So the file is read only for a secret key holding a map or list, and at most once. When it cannot be
read (config from elsewhere, e.g. an ESC environment), the whole key counts as secret.

From those paths (`SecretPaths`):
- every resource input that carries a value from under a secret path is a Pulumi secret, whatever its
  type (a map or list: every value under it) or length (a 2-digit PIN too): the config's job fields map
  to the TrainingJob inputs they become (`job_selectors`), an OBS location to every OBS URL of the jobs
  using it, a pool to the flavor/pool id;
- a secret value that would become part of a name, URN, export key or OBS object key (a sweep's grid
  values, a job's explicit `name`, `movedFrom`, an OBS location's prefixes) is refused at preview
  (`name_refusals`): Pulumi keeps names and URNs in plaintext, and OBS lists object keys to anyone who
  can list the bucket;
- a secret set on a provider option (waitFor, a timeout, keepRuns, ...) is refused at preview too
  (`name_refusals`): an option steers the provider, is never sent, and the state records it as it is; marking
  it secret would make every output built from it secret (the jobs' phases), masking what is not secret;
- as a second line of defence, any other string input that contains a secret value of 4 or more
  characters (e.g. a secret the program put into a command line) becomes a secret too;
- the TrainingJob gets `secret_paths`, the input paths it holds secrets at (paths only, never values): the
  dynamic provider gets plain values, and its calls mask what is at those paths (core/job_secrets.py); the
  TrainingJob hands the values there to its JobsAwait (`secrets`, a Pulumi secret) for what the wait prints.
Keys of a secret map (job keys) are names: they stay visible in URNs, as with any Pulumi resource.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import pulumi

from ..core.masking import leaves
# The stack file's `secure:` markers, read without Pulumi (the command-line tools read them too).
from .config_file import Path_, _at, _secure_paths
from .config import JobEntry
from .job_fields import maps_of
from .sweep import as_param

MIN_SECRET_LEN = 4  # the by-value second line: shorter values (e.g. "1", "true") would mark unrelated fields


def _covers(secret: Path_, path: Path_) -> bool:
    """Something at `path` carries a secret value: it is under the secret, or the secret is under it."""
    n = min(len(secret), len(path))
    return secret[:n] == path[:n]


@dataclass(frozen=True)
class SecretPaths:
    """The secret parts of the stack config, as paths (section, key, ...), and their values."""

    paths: tuple[Path_, ...] = ()
    values: frozenset[str] = field(default_factory=frozenset)  # every leaf under them, any length

    def touching(self, *prefix: Any) -> list[Path_]:
        """The secret paths at, under or above `prefix`, relative to it (() when all of it is secret)."""
        return [p[len(prefix):] if len(p) > len(prefix) else () for p in self.paths if _covers(p, prefix)]

    def long_values(self) -> set[str]:
        return {v for v in self.values if len(v) >= MIN_SECRET_LEN}


def secret_paths(sections: dict[str, Any], full_key: Callable[[str], str], is_secret: Callable[[str], bool],
                 stack_config: dict[str, Any] | None | Callable[[], dict[str, Any] | None]) -> SecretPaths:
    """The secret parts of `sections`. The engine tells which top-level keys hold a secret (`is_secret`), and a
    secret scalar is all secret: the stack file (`stack_config`, read lazily when a callable) is read only for
    a secret map or list, whose secret parts the engine does not tell a Python program (its language host gets
    the config as strings and the secret keys' names: PULUMI_CONFIG, PULUMI_CONFIG_SECRET_KEYS)."""
    paths: list[Path_] = []
    values: set[str] = set()
    read: list[dict[str, Any] | None] = []

    def config() -> dict[str, Any] | None:
        if not callable(stack_config):
            return stack_config
        if not read:
            read.append(stack_config())
        return read[0]

    for section, value in sections.items():
        if value is None or not is_secret(full_key(section)):
            continue
        written = (config() or {}).get(full_key(section)) if isinstance(value, (dict, list)) else None
        found = [(section, *p) for p in _secure_paths(written)] if written is not None else []
        try:
            held = [leaf for p in found for leaf in leaves(_at(value, p[1:]))]
        except (KeyError, IndexError, TypeError):
            found = []
        if not found:  # the whole key (set as one secret), or a file that does not say: all of it
            found, held = [(section,)], list(leaves(value))
        paths += found
        values |= {as_param(v) for v in held if isinstance(v, (str, int, float, bool)) and as_param(v) != ""}
    return SecretPaths(tuple(paths), frozenset(values))


# Derived from the job fields' rows (stack/job_fields.py): a config key -> the TrainingJob inputs it becomes;
# everything a job sends to the service (not the provider's own options: waiting, replacement policy); the
# OBS URLs of its location; the inputs whose entries the config names by key (a secret `environments.X` is
# that entry alone).
_FIELDS = maps_of(JobEntry)
_JOB_FIELDS: dict[str, list[Path_]] = _FIELDS.secret_targets
_JOB_DATA: list[Path_] = _FIELDS.sent
_OBS_URLS: list[Path_] = _FIELDS.obs_paths()
_KEYED = _FIELDS.keyed


# --- what may not be secret ------------------------------------------------------------------------------

_NAMES_WHY = ("becomes part of job keys, resource names, URNs and OBS object keys, which Pulumi and OBS keep in "
              "plaintext")


def name_refusals(raw: dict[str, Any], secrets: SecretPaths, full_key: Callable[[str], str]) -> list[str]:
    """One line per secret that would become part of a name, URN, export key or OBS key."""
    out: list[str] = []

    def refuse(path: Path_, what: str) -> None:
        shown = full_key(path[0]) + "".join(f".{p}" if isinstance(p, str) else f"[{p}]" for p in path[1:])
        out.append(f"invalid stack config: {shown} is secret, but {what} {_NAMES_WHY}; set it without --secret "
                   "and keep --secret for values such as environments (pulumi config set --secret --path ...)")

    for section, what_fields in (("sweeps", {"grid": "a grid value", **_FIELDS.names}),
                                 ("jobs", _FIELDS.names),
                                 ("obs", {"code": "a code prefix", "data": "a data prefix",
                                          "outputs": "an outputs prefix", "logs": "a logs prefix"})):
        entries = raw.get(section)
        if not isinstance(entries, dict):
            continue
        for key, entry in entries.items():
            if not isinstance(entry, dict):
                continue
            for fld, what in what_fields.items():
                if entry.get(fld) not in (None, "", [], {}) and any(
                        _covers(p, (section, key, fld)) for p in secrets.paths):
                    refuse((section, key, fld), what)
            for fld in _FIELDS.options if section != "obs" else ():
                # set secret itself (a whole secret entry is its data, marked where it lands; its options are not)
                if fld in entry and any(p[:3] == (section, key, fld) for p in secrets.paths):
                    out.append(f"invalid stack config: {full_key(section)}.{key}.{fld} is secret, but it is a provider "
                               "option (how to wait, replace and keep runs), never sent, which the state records in "
                               "plaintext; set it without --secret")
    return out


# --- marking ---------------------------------------------------------------------------------------------

AUTO_SEARCH: Path_ = ("algorithm", "policies", "auto_search")


def job_selectors(secrets: SecretPaths, section: str, key: str, obs: str | None, pool: str,
                  search: Any = None) -> list[Path_]:
    """The TrainingJob input paths that carry a secret of the job entry `section.key`, of its OBS location
    and of its pool. `search`: the entry's SearchConfig, whose secret values become those values alone in the
    request (search_config.SearchConfig.secret_targets), not the whole search."""
    out: list[Path_] = []
    for rel in secrets.touching(section, key):
        if not rel:
            return list(_JOB_DATA)  # the whole entry (or section) is secret
        if rel[0] == "search" and search is not None:
            within = search.secret_targets(tuple(rel[1:]))
            if within is not None:
                out += [AUTO_SEARCH + t for t in within]
                continue
        targets = _JOB_FIELDS.get(str(rel[0]))
        if targets is None:
            continue  # the provider's own options (waitFor, timeouts, ...) or a refused name field
        out += [t + tuple(rel[1:2]) if t in _KEYED else t for t in targets]
    for rel in secrets.touching("defaultTags"):  # every job's tags lie over the stack's defaults
        out += [("tags",) + tuple(rel[:1])]
    if obs is not None and secrets.touching("obs", obs):
        out += _OBS_URLS
    if secrets.touching("pools", pool):
        out += [("flavor_id",), ("pool_id",)]
    return out


def _secret_leaves(value: Any, path: tuple[str, ...], marked: list[str]) -> Any:
    if isinstance(value, dict):
        return {k: _secret_leaves(v, path + (str(k),), marked) for k, v in value.items()}
    if isinstance(value, list):
        return [_secret_leaves(v, path + (str(i),), marked) for i, v in enumerate(value)]
    if value is None or isinstance(value, bool) or value == "":
        return value
    marked.append(".".join(path))
    return pulumi.Output.secret(value)


def _select(value: Any, selector: Path_, path: tuple[str, ...], marked: list[str]) -> Any:
    if not selector:
        return _secret_leaves(value, path, marked)
    head, rest = selector[0], selector[1:]
    if isinstance(value, dict) and head in value:
        return {**value, head: _select(value[head], rest, path + (str(head),), marked)}
    if isinstance(value, list) and isinstance(head, int):  # a list's item by its index
        return [_select(v, rest, path + (str(i),), marked) if i == head else v for i, v in enumerate(value)]
    if isinstance(value, list):  # [{name, ...}] or [{key, ...}]: the entry of that name or key
        return [_select(v, rest, path + (str(i),), marked)
                if isinstance(v, dict) and head in (v.get("name"), v.get("key")) else v
                for i, v in enumerate(value)]
    return value


def _by_value(value: Any, secrets: set[str], path: tuple[str, ...], marked: list[str]) -> Any:
    if isinstance(value, dict):
        return {k: _by_value(v, secrets, path + (str(k),), marked) for k, v in value.items()}
    if isinstance(value, list):
        return [_by_value(v, secrets, path + (str(i),), marked) for i, v in enumerate(value)]
    if isinstance(value, str) and any(s in value for s in secrets):
        marked.append(".".join(path))
        return pulumi.Output.secret(value)
    return value


def mark_secrets(props: dict[str, Any], selectors: Iterable[Path_], secrets: SecretPaths) -> tuple[dict[str, Any],
                                                                                                    list[str]]:
    """The props with every value at a selector (and every string containing a long secret value) as a
    Pulumi secret, and the dotted input paths so marked."""
    marked: list[str] = []
    for selector in selectors:
        props = _select(props, selector, (), marked)
    props = _by_value(props, secrets.long_values(), (), marked)
    return props, sorted(set(marked))

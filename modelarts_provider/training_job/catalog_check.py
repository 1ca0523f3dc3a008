"""Catalog check at preview: a job's flavor, engine and algorithm id against what the service offers.

Static checks (check.py) make no API call. This one reads the service's training catalogs, so it runs
only where it can save something: for a job whose replace-triggering spec is new or changed (a job that
will be submitted), never for an unchanged one (an unchanged stack still makes no API call at preview or
up), and only once its static checks passed.

- Public flavors (``GET training-job-flavors``) and preset engines (``GET training-job-engines``) are read
  at most once per provider process and place (cloud, region, project, endpoint); an algorithm by id
  (``GET algorithms/{id}``) once per id. `CatalogCache` holds them.
- A catalog that cannot be read (nothing listens, no permission, API not published, any other error)
  skips the check for the rest of the process, with one warning line: the service still checks at create.
- A flavor with a dedicated pool (``pool_id``) is the pool's, not in the public list: not checked.
  Subscriptions (``subscription_id``) have no lookup API for training: not checked. A custom image
  (``image_url``) is not an engine of the catalog: not checked.
- A value that is not known yet at preview (an output of another resource) is not checked.

A failure names where the value was declared: the stack program passes the config keys of the checked
fields (``config_keys``, e.g. ``flavor_id`` -> ``modelarts-jobs:pools.gpu.flavor``), and the close matches
(difflib), e.g. ``modelarts-jobs:pools.gpu.flavor: unknown flavor 'modelarts.p3.largee.public' in
cn-north-4; did you mean modelarts.p3.large.public?``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..client.errors import ModelArtsError
from .catalog_hints import SECRET_SHOWN
from .catalog_hints import did_you_mean as _close
from ..core.failures import Failure
from .normalize import spec_of, try_canonical
from .outputs import strip_outputs
from .search_check import search_failures
from ..core.unknowns import contains_unknown


@dataclass(frozen=True)
class EngineEntry:
    engine_id: str
    name: str
    version: str


class CatalogUnreadable(Exception):
    """The catalogs of this place cannot be read; the message says why, in a few words."""


class CatalogCache:
    """The catalogs of one place, each read at most once (thread-safe: checks run on several threads).

    After the first failed read, nothing more is read: every lookup raises CatalogUnreadable, and
    `note` is called once with the reason.
    """

    def __init__(self, client: Any, region: str, note: Callable[[str], None]) -> None:
        self._client = client
        self.region = region
        self._note = note
        self._lock = threading.Lock()
        self._flavors: frozenset[str] | None = None
        self._engines: tuple[EngineEntry, ...] | None = None
        self._algorithms: dict[str, bool] = {}
        self._search: dict[str, dict[str, str]] | None = None
        self._unreadable: str | None = None

    def _read(self, what: str, fetch: Callable[[], Any]) -> Any:
        """Call under the lock."""
        if self._unreadable is not None:
            raise CatalogUnreadable(self._unreadable)
        try:
            return fetch()
        except (ModelArtsError, ValueError) as err:
            self._unreadable = f"{what}: {_short(err)}"
            self._note(f"warning: catalog check skipped: cannot read the training catalogs of {self.region} "
                       f"({self._unreadable}); flavors, engines and algorithm ids are checked by the service "
                       "when a job is submitted")
            raise CatalogUnreadable(self._unreadable) from None

    def flavors(self) -> frozenset[str]:
        with self._lock:
            if self._flavors is None:
                page = self._read("training-job-flavors", self._client.list_training_flavors)
                self._flavors = frozenset(str(f.flavor_id) for f in page.flavors if f.flavor_id)
            return self._flavors

    def engines(self) -> tuple[EngineEntry, ...]:
        with self._lock:
            if self._engines is None:
                page = self._read("training-job-engines", self._client.list_training_engines)
                self._engines = tuple(EngineEntry(str(e.engine_id or ""), str(e.engine_name or ""),
                                                  str(e.engine_version or "")) for e in page.items)
            return self._engines

    def algorithm_exists(self, algorithm_id: str) -> bool:
        with self._lock:
            if algorithm_id not in self._algorithms:
                found = self._read("algorithms", lambda: self._client.get_algorithm(algorithm_id))
                self._algorithms[algorithm_id] = found is not None
            return self._algorithms[algorithm_id]


    def search_algorithms(self) -> dict[str, dict[str, str]]:
        """{search algorithm: {parameter key: type}} (``GET search-algorithms``), read once."""
        with self._lock:
            if self._search is None:
                page = self._read("search-algorithms", self._client.list_search_algorithms)
                self._search = page.catalog()
            return self._search


def _short(err: Exception) -> str:
    """The error's one line (a ModelArtsError's names the URL and the setting to fix), kept short."""
    text = " ".join(str(err).split())
    return text if len(text) <= 400 else text[:399] + "…"


def needs_check(olds: Mapping[str, Any] | None, news: Mapping[str, Any]) -> bool:
    """A job that will be submitted: new, or its replace-triggering spec changed (see the module docstring)."""
    if not olds:
        return True
    old = try_canonical(strip_outputs(olds))
    return old is None or spec_of(old) != spec_of(news)


def _known(value: Any) -> str | None:
    return value if isinstance(value, str) and value and not contains_unknown(value) else None


class _Namer:
    """The key a failure names: the config key the stack program passed, else the argument path; and
    whether the value there is a Pulumi secret (`secret_paths`, paths set by the stack program), whose
    value and close matches a message must not show."""

    def __init__(self, config_keys: Mapping[str, Any] | None, secret_paths: Any = None) -> None:
        self.keys = {k: v for k, v in (config_keys or {}).items() if isinstance(v, str)}
        self.secret_paths = [p for p in secret_paths or [] if isinstance(p, str)] \
            if isinstance(secret_paths, list) else []

    def secret(self, arg_path: str) -> bool:
        return any(arg_path == p or arg_path.startswith(p + ".") or p.startswith(arg_path + ".")
                   for p in self.secret_paths)

    def __call__(self, arg_path: str, config_suffix: str = "", arg_suffix: str = "") -> tuple[str, str]:
        """(property, prefix of the reason): the argument path is the property; the config key leads the reason."""
        prop = arg_path + arg_suffix
        key = self.keys.get(arg_path)
        return prop, (f"{key}{config_suffix}: " if key else "")


def catalog_failures(news: Mapping[str, Any], cache: CatalogCache) -> list[Failure]:
    """One Failure per value the catalogs do not know. Raises nothing: an unreadable catalog skips."""
    name = _Namer(news.get("config_keys") if isinstance(news.get("config_keys"), Mapping) else None,
                  news.get("secret_paths"))
    out: list[Failure] = []
    try:
        flavor = _known(news.get("flavor_id"))
        if flavor is not None and news.get("pool_id") is None:
            flavors = cache.flavors()
            if flavor not in flavors:
                prop, lead = name("flavor_id")
                out.append(Failure(prop, f"{lead}unknown flavor {SECRET_SHOWN} in {cache.region}"
                                   if name.secret("flavor_id") else f"{lead}unknown flavor {flavor!r} in "
                                   f"{cache.region}" + _close(flavor, flavors, "public flavors")))
        alg = news.get("algorithm") if isinstance(news.get("algorithm"), Mapping) else {}
        engine = alg.get("engine") if isinstance(alg.get("engine"), Mapping) else {}
        failure = _engine_failure(engine, cache, name) if engine else None
        if failure is not None:
            out.append(failure)
        alg_id = _known(alg.get("id"))
        if alg_id is not None and not cache.algorithm_exists(alg_id):
            prop, lead = name("algorithm.id")
            shown = SECRET_SHOWN if name.secret("algorithm.id") else repr(alg_id)
            out.append(Failure(prop, f"{lead}unknown algorithm id {shown} in {cache.region}: algorithm "
                                     "management does not have it (ModelArts.2755 algorithm not found)"))
        out += search_failures(alg, cache, name.keys.get("algorithm.policies"),
                               secret=name.secret("algorithm.policies"))
    except CatalogUnreadable:
        pass  # noted once by the cache; the service checks at create
    return out


def _engine_failure(engine: Mapping[str, Any], cache: CatalogCache, name: _Namer) -> Failure | None:
    failure = _engine_problem(engine, cache, name)
    if failure is not None and name.secret("algorithm.engine"):
        lead = failure.reason.split("unknown ", 1)[0]
        return Failure(failure.property, f"{lead}unknown engine {SECRET_SHOWN} in {cache.region}")
    return failure


def _engine_problem(engine: Mapping[str, Any], cache: CatalogCache, name: _Namer) -> Failure | None:
    engine_id = _known(engine.get("engine_id"))
    engine_name, version = _known(engine.get("engine_name")), _known(engine.get("engine_version"))
    if engine_id is not None:
        ids = {e.engine_id for e in cache.engines() if e.engine_id}
        if engine_id in ids:
            return None
        prop, lead = name("algorithm.engine", ".id", ".engine_id")
        return Failure(prop, f"{lead}unknown engine id {engine_id!r} in {cache.region}" + _close(engine_id, ids, "engine ids"))
    if engine_name is None or version is None:
        return None  # an image, or not known yet
    engines = cache.engines()
    if any(e.name == engine_name and e.version == version for e in engines):
        return None
    names = {e.name for e in engines if e.name}
    if engine_name not in names:
        prop, lead = name("algorithm.engine", ".name", ".engine_name")
        return Failure(prop, f"{lead}unknown engine {engine_name!r} in {cache.region}" + _close(engine_name, names, "engines"))
    versions = {e.version for e in engines if e.name == engine_name and e.version}
    prop, lead = name("algorithm.engine", ".version", ".engine_version")
    return Failure(prop, f"{lead}unknown version {version!r} of engine {engine_name} in {cache.region}"
                         + _close(version, versions, f"{engine_name} versions"))

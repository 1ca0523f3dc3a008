"""The search algorithm of a job's `auto_search` against the service's catalog (``GET search-algorithms``).

Part of the catalog check (catalog_check.py): read once per provider process and place, only for a job
that will be submitted, skipped with one warning when the catalog cannot be read. An unknown algorithm,
or a parameter the algorithm does not take, is one failure with the close matches. Failures name the
config key the stack program passed for ``algorithm.policies`` (``modelarts-jobs:jobs.<key>.search``),
else the argument path.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from .catalog_hints import SECRET_SHOWN, did_you_mean
from ..core.failures import Failure
from ..core.unknowns import contains_unknown

# The entry's own fields that become algorithm parameters (stack/search_config.py), for messages.
_FIELDS = {"num_samples": "trials", "max_concurrent": "parallel"}
# Taken by every algorithm though the catalog does not list it: trials at once, a key of the service's
# YAML templates' search_algorithm section (an assumption, docs/search.md).
EVERY_ALGORITHM = frozenset({"max_concurrent"})


class _Catalog(Protocol):
    region: str

    def search_algorithms(self) -> dict[str, dict[str, str]]: ...


def _algo_configs(alg: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    policies = alg.get("policies")
    auto = policies.get("auto_search") if isinstance(policies, Mapping) else None
    configs = auto.get("algo_configs") if isinstance(auto, Mapping) else None
    return [c for c in configs if isinstance(c, Mapping)] if isinstance(configs, list) else []


def search_failures(alg: Mapping[str, Any], cache: _Catalog, config_key: str | None, *,
                    secret: bool = False) -> list[Failure]:
    """One Failure per unknown algorithm or parameter. Raises CatalogUnreadable (the caller skips).
    `secret`: the search is a Pulumi secret: a failure shows neither the value nor close matches."""
    out = _failures(alg, cache, config_key)
    if secret:
        return [Failure(f.property, f"{f.reason.split(': ', 1)[0] + ': ' if config_key else ''}the search is not "
                                    f"one the service's catalog in {cache.region} takes {SECRET_SHOWN}")
                for f in out[:1]]
    return out


def _failures(alg: Mapping[str, Any], cache: _Catalog, config_key: str | None) -> list[Failure]:
    configs = _algo_configs(alg)
    if not configs:
        return []
    catalog = cache.search_algorithms()
    out = []
    for i, config in enumerate(configs):
        name = config.get("name")
        if not isinstance(name, str) or contains_unknown(name):
            continue
        prop = f"algorithm.policies.auto_search.algo_configs[{i}]"
        where = f"{config_key}.algorithm" if config_key else None
        if name not in catalog:
            lead = f"{where}.name: " if where else ""
            hint = did_you_mean(name, set(catalog), "search algorithms")
            out.append(Failure(prop + ".name", f"{lead}unknown search algorithm {name!r} in {cache.region}{hint}"))
            continue
        takes = catalog[name]
        for j, param in enumerate(p for p in config.get("params") or [] if isinstance(p, Mapping)):
            key = param.get("key")
            if not isinstance(key, str) or key in EVERY_ALGORITHM:
                continue
            if key in takes:
                own = _FIELDS.get(key) if config_key else None
                at = f"{config_key}.{own}: " if own else (f"{where}.params.{key}: " if where else "")
                wrong = _type_problem(param.get("type"), takes[key])
                if wrong:
                    out.append(Failure(f"{prop}.params[{j}]", f"{at}{key} of {name} is {wrong}"))
                continue
            own = _FIELDS.get(key) if config_key else None
            at = f"{config_key}.{own}: " if own else (f"{where}.params.{key}: " if where else "")
            what = f" ({own}: {'trials at once' if own == 'parallel' else 'the number of trials'})" if own else ""
            hint = f"; leave {own} out" if own else did_you_mean(key, set(takes), f"parameters of {name}")
            out.append(Failure(f"{prop}.params[{j}]", f"{at}the search algorithm {name} in {cache.region} takes "
                                                      f"no parameter {key}{what}" + hint))
    return out


def _type_problem(sent: Any, listed: str) -> str | None:
    """What is wrong with a value of catalog type `listed` sent as type `sent` (None: fine)."""
    if not isinstance(sent, str) or not listed or sent == listed:
        return None
    if listed == "Float" and sent == "Integer":
        return None  # a whole number is a number
    if listed == "String":
        return None  # the service reads any value as text
    words = {"Integer": "a whole number", "Float": "a number", "List": "a list"}
    return f"{words.get(listed, listed)} ({listed} in the catalog), not {words.get(sent, sent.lower())}"

"""diff(): node counts, added flavors, the job types (scope) and the description change in place (one merge-patch PATCH, as
Terraform's resource pool updates them); the name, the network, the workspace and a flavor taken away
replace (CreatePool fields PatchPool cannot change). Resources are compared as a map flavor -> count, so
re-ordering equivalent declarations is no diff. No API call."""

from __future__ import annotations

from typing import Any

from ..core.fields import Change, names_changing
from .args import ResourcePoolArgs

# What a change does, from the fields' declarations (args.py); resources are compared as a map below.
REPLACING = names_changing(ResourcePoolArgs, Change.REPLACE)
IN_PLACE = names_changing(ResourcePoolArgs, Change.IN_PLACE)
OPTIONS = names_changing(ResourcePoolArgs, Change.PROVIDER)


def recorded_counts(props: dict[str, Any]) -> dict[str, int]:
    # Whole numbers come back from the engine as floats (2.0): compare them as the numbers they are.
    return {r["flavor"]: int(r["count"]) for r in props.get("resources") or [] if isinstance(r, dict)}


def recorded_scope(props: dict[str, Any]) -> list[str]:
    return sorted(set(props.get("scope") or ["Train"]))


# Fields changed in place whose equivalent declarations differ as recorded: compared in their own terms. Any other
# field is compared as it is, a value left out being its default (a field added to the declarations needs no line).
_SAME = {
    "resources": lambda olds, news: recorded_counts(olds) == recorded_counts(news),
    "scope": lambda olds, news: recorded_scope(olds) == recorded_scope(news),
    "description": lambda olds, news: (olds.get("description") or None) == (news.get("description") or None),
}


def _same(name: str, olds: dict[str, Any], news: dict[str, Any]) -> bool:
    if name in _SAME:
        return _SAME[name](olds, news)
    default = ResourcePoolArgs.model_fields[name].get_default(call_default_factory=True)
    return olds.get(name, default) == news.get(name, default)


def decide(olds: dict[str, Any], news: dict[str, Any]) -> tuple[list[str], list[str]]:
    """(replaced fields, fields updated in place)."""
    replaces = [k for k in REPLACING if olds.get(k) != news.get(k)]
    if set(recorded_counts(olds)) - set(recorded_counts(news)):  # a flavor taken away: PatchPool only adds flavors
        replaces.append("resources")
    updates = [k for k in IN_PLACE if k not in replaces and not _same(k, olds, news)]
    updates += [k for k in OPTIONS if not _same(k, olds, news)]  # the state holds the defaults, a declaration may not
    return replaces, updates

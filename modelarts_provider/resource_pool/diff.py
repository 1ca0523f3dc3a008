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
OPTIONS = names_changing(ResourcePoolArgs, Change.PROVIDER)


def _counts(props: dict[str, Any]) -> dict[str, int]:
    # Whole numbers come back from the engine as floats (2.0): compare them as the numbers they are.
    return {r["flavor"]: int(r["count"]) for r in props.get("resources") or [] if isinstance(r, dict)}


def _scope(props: dict[str, Any]) -> list[str]:
    return sorted(set(props.get("scope") or ["Train"]))


def decide(olds: dict[str, Any], news: dict[str, Any]) -> tuple[list[str], list[str]]:
    """(replaced fields, fields updated in place)."""
    replaces = [k for k in REPLACING if olds.get(k) != news.get(k)]
    old, new = _counts(olds), _counts(news)
    if set(old) - set(new):  # a flavor taken away: PatchPool only adds flavors
        replaces.append("resources")
    updates = []
    if _scope(olds) != _scope(news):
        updates.append("scope")
    if (olds.get("description") or None) != (news.get("description") or None):
        updates.append("description")
    if not set(old) - set(new) and old != new:
        updates.append("resources")
    fields = ResourcePoolArgs.model_fields  # the state holds the defaults, a declaration may leave them out
    updates += [k for k in OPTIONS
                if olds.get(k, fields[k].default) != news.get(k, fields[k].default)]
    return replaces, updates

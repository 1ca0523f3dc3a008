"""Declared args vs a live job (adoption and create takeover), derived from the fields' declarations.

Every field the create request sends and whose change replaces the job (core/fields.py) is compared; one
updated in place (description, tags) is not: a takeover updates it. Both sides are brought into one form by the
field's own read-back (wire_forms.py), from the declaration's payload and from the job's details, so OBS
spellings and number types meet and what the service adds on its own is dropped alike.

Only what the declaration states is compared: the service echoes defaults (algorithm parameters, local dirs,
engine ids) that a declaration need not repeat. So a map compares its declared keys, a list of named items its
declared names, any other list (volumes) whole; a field left out stands for its `Declared.unset` (node_count 1,
the default workspace "0"; annotations, which the service may drop, are compared only when it gives them).
Values of secret-looking names, of secret fields and of environments are never quoted.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from ..client.models import TrainingJob
from ..core.fields import Change, Unset, declarations, get, to_wire
from .args import AutoSearchArg
from .plaintext_credentials import ENV_PATH
from .search_form import search_summary

# Names whose values are likely credentials: never quoted in a message.
SECRET_LOOKING = re.compile(r"(?i)key|secret|token|passw|credential|auth")
# Values compared whole (already in their canonical form), shown in their own words: a search is one choice.
_WHOLE: dict[str, Callable[[Any], Any]] = {AutoSearchArg.API_PATH: lambda s: search_summary(s) or "no search"}


def _fmt(v: Any) -> str:
    return "(unset)" if v is None else repr(v)


def _same(declared: Any, actual: Any) -> bool:
    """Equal, or the same number in the other JSON type (the client keeps either as received)."""
    if declared == actual:
        return True
    scalars = (str, int, float)
    return (isinstance(declared, scalars) and isinstance(actual, scalars)
            and not isinstance(declared, bool) and not isinstance(actual, bool)
            and isinstance(declared, str) != isinstance(actual, str) and str(declared) == str(actual))


def mismatches(args: BaseModel, job: TrainingJob) -> list[str]:
    """'field: declared X, live Y' for every declared field the live job does not match, in declaration order."""
    declared_wire, live_wire = to_wire(args), job.to_wire()  # to_wire: the declared fields, no owner mark
    out: list[str] = []
    for f in declarations(type(args)):
        if not f.declared.sent or f.declared.change is not Change.REPLACE:
            continue
        assert f.declared.api is not None
        sent = get(declared_wire, f.declared.api)
        declared = f.or_unset(f.declared.read_back(sent))
        live = f.or_unset(f.declared.read_back(_within(sent, get(live_wire, f.declared.api), f.name)))
        if declared is None or Unset.UNKNOWN in (declared, live):
            continue  # stated by neither the declaration nor (annotations dropped) the service
        entries = isinstance(getattr(args, f.name), dict)  # a map of the user's keys: annotations[k]
        _compare(f.name, declared, live, out, not f.declared.secret, entries)
    return out


def _within(declared: Any, live: Any, path: str) -> Any:
    """The live wire value cut to the keys the declaration sends, before it is read back: a read that picks one of
    the forms it finds (an engine echoed with id, name and version) then picks the declared one."""
    if path in _WHOLE or not (isinstance(declared, dict) and isinstance(live, dict)):
        return live
    return {k: _within(declared[k], live[k], f"{path}.{k}") for k in declared if k in live}


def _named(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(i, dict) and "name" in i for i in value)


def _compare(path: str, declared: Any, live: Any, out: list[str], quoted: bool, entries: bool = False) -> None:
    if path in _WHOLE:
        if declared != live:
            shown = _WHOLE[path]
            out.append(f"{path}: declared {_fmt(shown(declared))}, live {_fmt(shown(live))}")
    elif isinstance(declared, dict):
        live = live if isinstance(live, dict) else {}
        if path == ENV_PATH:  # values may be secrets: named, never quoted
            differing = sorted(k for k, v in declared.items() if not _same(v, live.get(k)))
            if differing:
                out.append(f"{path}: declared 'values of {', '.join(differing)} (not shown)', live 'different values'")
            return
        for key, value in declared.items():
            _compare(f"{path}[{key}]" if entries else f"{path}.{key}", value, live.get(key), out, quoted)
    elif _named(declared):
        by_name = {i.get("name"): i for i in (live if isinstance(live, list) else []) if isinstance(i, dict)}
        if all(set(i) == {"name", "value"} for i in declared):  # name = value pairs (parameters): a map's entries
            _compare(path, {i["name"]: i["value"] for i in declared},
                     {name: i.get("value") for name, i in by_name.items()}, out, quoted, entries=True)
            return
        for item in declared:
            _compare(f"{path}[{item['name']}]", {k: v for k, v in item.items() if k != "name"},
                     by_name.get(item["name"]), out, quoted)
    elif not _same(declared, live):
        if quoted and not SECRET_LOOKING.search(path):
            out.append(f"{path}: declared {_fmt(declared)}, live {_fmt(live)}")
        else:
            out.append(f"{path}: differs (values not shown)")

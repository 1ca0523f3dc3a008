"""One canonical form of a TrainingJob declaration, shared by check, diff, naming and adoption.

Equivalent declarations must be equal here: a default written out (`node_count: 1`), parameters as a
map or as a list, numbers or strings as parameter values. The canonical form is the validated args
dumped to JSON without nulls (defaults filled, parameters as a list of {name, value} strings,
environments as a map).

Inputs not known yet (preview, values from other resources) stay as they are, in the top-level field
that holds them; the rest of the declaration is still normalized, so an unknown description does not
make the algorithm look changed.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
import threading
from collections import OrderedDict
from typing import Any

from pydantic import ValidationError

from .args import MESSAGE_ONLY_FIELDS, PROVIDER_ONLY_FIELDS, UPDATABLE_FIELDS, TrainingJobArgs
from ..core.unknowns import STAND_IN_NAME, UNKNOWN, contains_unknown, is_unknown

# Fields that never replace the job, so they are not part of its "spec" (the name suffix keepers,
# the takeover comparison key and the derived-name rule all use the spec).
NOT_SPEC = PROVIDER_ONLY_FIELDS | UPDATABLE_FIELDS | MESSAGE_ONLY_FIELDS | {"name"}
# The dumps of validated args: the canonical form (None values dropped: Pulumi's wire format drops them too,
# so state and checked inputs agree), and the stored form, which the state records (see stored_form).
_CANONICAL: dict[str, Any] = {"mode": "json", "exclude_none": True}
_STORED: dict[str, Any] = {**_CANONICAL, "exclude_defaults": True, "exclude": MESSAGE_ONLY_FIELDS}


def _fingerprint(value: Any) -> str:
    """One text per value as validation sees it: unknowns in their one spelling (core/unknowns.py). Key order
    kept: it is meaningful (parameters given as a map become a list in its order)."""
    return json.dumps(value, separators=(",", ":"),
                      default=lambda v: UNKNOWN if is_unknown(v) else repr(v))


# Validated values by fingerprint, newest last (a pure function's results: bounded, never stale).
_VALIDATED: OrderedDict[str, TrainingJobArgs | ValidationError] = OrderedDict()
_VALIDATED_MAX = 256
_VALIDATED_LOCK = threading.Lock()


def _remember(key: str, result: TrainingJobArgs | ValidationError) -> None:
    with _VALIDATED_LOCK:
        _VALIDATED[key] = result
        _VALIDATED.move_to_end(key)
        while len(_VALIDATED) > _VALIDATED_MAX:
            _VALIDATED.popitem(last=False)


def validated(raw: Mapping[str, Any]) -> TrainingJobArgs:
    """`raw` validated as TrainingJobArgs (raises its ValidationError), once per distinct value: one engine call
    meets a job's inputs several times (check derives the name, checks, canonicalises and stores them; diff
    compares both sides, maybe twice; naming tries the recorded layouts), each a pure function of the value;
    the canonical form of a validated value is known valid too (canonical() records it)."""
    try:
        key = _fingerprint(dict(raw))
    except (TypeError, ValueError):  # not JSON-like (never from the engine): validated as it is
        return TrainingJobArgs.model_validate(raw)
    with _VALIDATED_LOCK:
        found = _VALIDATED.get(key)
    if found is None:
        try:
            found = TrainingJobArgs.model_validate(json.loads(key))
        except ValidationError as err:
            found = err
        _remember(key, found)
    if isinstance(found, ValidationError):
        raise found
    return found  # shared: args are frozen (args.py), a caller changes a copy (model_copy(update=...))


def canonical(raw: Mapping[str, Any], fallback: Mapping[str, Any] | None = None, *,
              stored: bool = False) -> dict[str, Any]:
    """The canonical inputs. Raises ValidationError when the known fields are invalid.

    A top-level field holding an unknown keeps its raw value; to validate the rest, it is replaced by
    the same field of `fallback` (the previous inputs) when there is one.

    stored=True: the form the state records (see `stored_form`).
    """
    unknown = {k for k, v in raw.items() if contains_unknown(v)}
    probe = {k: v for k, v in raw.items() if k not in unknown}
    for key in unknown:
        if fallback is not None and key in fallback and not contains_unknown(fallback[key]):
            probe[key] = fallback[key]
        elif key == "name":
            probe[key] = STAND_IN_NAME
    args = validated(probe)
    out = args.model_dump(**(_STORED if stored else _CANONICAL))
    if not stored:  # the canonical form validates to the same args (the state's readers rely on it); the
        _remember(_fingerprint(out), args)  # stored form does not hold the message-only fields
    for key in unknown - (MESSAGE_ONLY_FIELDS if stored else set()):
        out[key] = raw[key]
    return out


def stored_form(inputs: Mapping[str, Any], fallback: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """What the state records of canonical inputs: no value equal to its default, no message-only field.

    Every job's inputs are written twice into the state (inputs, and outputs: a dynamic provider's diff,
    update and delete see only the outputs), and the engine writes the whole state at each step of an
    `up`, so a sweep's `up` costs its jobs' state size times its steps (docs/benchmarks.md). Readers validate
    the stored form back through TrainingJobArgs (canonical()), which fills the defaults in again: equality,
    the spec hash and the derived name are those of the canonical form, whichever form a state holds.
    Inputs that do not validate (never the case after check) are kept as they are.
    """
    try:
        return canonical(inputs, fallback, stored=True)
    except ValidationError:
        return dict(inputs)


def stored_args(args: TrainingJobArgs) -> dict[str, Any]:
    """The stored form of validated args (create and update outputs)."""
    return args.model_dump(**_STORED)


def try_canonical(raw: Mapping[str, Any], fallback: Mapping[str, Any] | None = None) -> dict[str, Any] | None:
    try:
        return canonical(raw, fallback)
    except ValidationError:
        return None


def spec_of(inputs: Mapping[str, Any]) -> dict[str, Any]:
    """The replace-triggering part of canonical inputs."""
    return {k: v for k, v in inputs.items() if k not in NOT_SPEC}


def spec_hash(raw: Mapping[str, Any]) -> str:
    """Hash of the canonical spec of fully known inputs (keepers of the derived name's suffix).

    Invalid inputs hash as written: check() reports them before anything is created.
    """
    norm = try_canonical({**raw, "name": raw.get("name") or STAND_IN_NAME})
    spec = spec_of(norm if norm is not None else {k: v for k, v in raw.items() if v is not None})
    return hashlib.sha256(json.dumps(spec, sort_keys=True, separators=(",", ":")).encode()).hexdigest()[:32]

"""check(): raw Pulumi inputs -> canonical args, or one failure per bad field. No API calls.

During preview some inputs are still unknown (e.g. a random name suffix). Pydantic cannot know
what they will become, so errors located at (or under) an unknown value are dropped here; the
engine calls check again with the resolved values before create.

A derived name (resource name + random suffix) is an identifier, not part of the declaration: when
the rest of the spec equals the previous inputs, the job keeps the name it has, so a renewed suffix
(or dropping `adopt_job_id` after an adoption) never replaces a job by itself.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from ..core.failures import Failure, failures_from as _failures_from
from ..core.resource_inputs import Checked
from ..core.unknowns import STAND_IN_TOKEN, contains_unknown, is_unknown
from .args import MODEL_NAMES
from .normalize import spec_of, try_canonical, validated
from .outputs import strip_outputs


def failures_from(error: ValidationError, raw: dict[str, Any], prefix: tuple[Any, ...] = ()) -> list[Failure]:
    """One Failure per bad field of TrainingJobArgs (core/failures.py with this model's names)."""
    return _failures_from(error, raw, MODEL_NAMES, prefix)


def _keep_name(news: dict[str, Any], olds: dict[str, Any]) -> dict[str, Any]:
    """The derived-name rule of the module docstring."""
    old_name = olds.get("job_name") or olds.get("name")
    if not news.get("derived_name") or not old_name or news.get("adopt_job_id") is not None:
        return news
    old_inputs = try_canonical(strip_outputs(olds))
    new_spec = spec_of(news)
    if old_inputs is None or contains_unknown(new_spec) or spec_of(old_inputs) != new_spec:
        return news
    return {**news, "name": old_name}


# A new job's owner token is always unknown at preview (core/unknowns.py: its stand-in), and must not hide the
# errors of the whole declaration.
TOKEN_PLACEHOLDER = STAND_IN_TOKEN


def _probe(raw: dict[str, Any]) -> dict[str, Any]:
    owner = raw.get("owner")
    if isinstance(owner, dict) and is_unknown(owner.get("token")):
        return {**raw, "owner": {**owner, "token": TOKEN_PLACEHOLDER}}
    return raw


def check_inputs(news: dict[str, Any], olds: dict[str, Any] | None = None) -> Checked[dict[str, Any]]:
    """(inputs to store, failures). Valid inputs come back canonical (see normalize.py); others as given."""
    raw = strip_outputs(news)
    probe = _probe(raw)
    try:
        validated(probe)
    except ValidationError as e:
        failures = failures_from(e, probe)
        if failures:
            return Checked(raw, failures)
    previous = strip_outputs(olds) if olds else None
    norm = try_canonical(raw, previous)
    if norm is None:  # only unknown-hidden errors: decided once the values are known
        return Checked(raw, [])
    return Checked(_keep_name(norm, olds) if olds else norm, [])

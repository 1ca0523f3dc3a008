"""diff(): which input changes update in place, which replace, which touch nothing remote. No API calls.

Rules
- ``description``: in-place update (PUT).
- provider-only options (waiting, timeouts, replacement policy): an update that makes no API call,
  so the state records the new option.
- anything else in the args: replace. Delete-before-replace unless ``delete_before_replace: false``;
  forced on when the job name stays the same (ModelArts job names identify jobs for takeover).
- status outputs (phase, times, ...) are not inputs and never diff.
- ``replace_failed: true`` and a last-seen phase of Failed/Abnormal: replace (old one deleted first).
- ``adopt_job_id``: replaces only when set to a job other than the one managed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .args import FAILED_PHASES, PROVIDER_ONLY_FIELDS, UPDATABLE_FIELDS, TrainingJobArgs
from .checking import OUTPUT_KEYS, contains_unknown, is_unknown


@dataclass
class DiffDecision:
    changes: bool
    replaces: list[str] = field(default_factory=list)
    delete_before_replace: bool = True
    updates: list[str] = field(default_factory=list)  # in-place (description) or provider-only


_DEFAULTS = TrainingJobArgs.model_fields


def _norm_value(key: str, value: Any) -> Any:
    # Old states or unchecked inputs may omit defaulted fields; compare against the default.
    if value is None and key in _DEFAULTS and not _DEFAULTS[key].is_required():
        default = _DEFAULTS[key].get_default(call_default_factory=True)
        return default.model_dump(mode="json") if hasattr(default, "model_dump") else default
    return value


def decide(job_id: str, olds: dict[str, Any], news: dict[str, Any]) -> DiffDecision:
    """olds: the state's outputs (inputs + status); news: the checked new inputs."""
    keys = {k for k in set(olds) | set(news) if k not in OUTPUT_KEYS and not k.startswith("__")}
    changed = sorted(k for k in keys if _norm_value(k, olds.get(k)) != _norm_value(k, news.get(k)))
    replaces: list[str] = []
    updates: list[str] = []
    for k in changed:
        if k in UPDATABLE_FIELDS or k in PROVIDER_ONLY_FIELDS - {"adopt_job_id"}:
            updates.append(k)
        elif k == "adopt_job_id":
            new = news.get(k)
            if new not in (None, job_id):
                replaces.append(k)
            else:
                updates.append(k)
        else:
            replaces.append(k)

    if news.get("replace_failed") is True and olds.get("phase") in FAILED_PHASES and "phase" not in replaces:
        replaces.append("phase")

    new_name = news.get("name")
    name_unchanged = new_name is not None and not is_unknown(new_name) and (
        olds.get("job_name") or olds.get("name")) == new_name
    dbr_opt = news.get("delete_before_replace")
    if contains_unknown(dbr_opt) or dbr_opt is None:
        dbr_opt = True
    forced = name_unchanged or "phase" in replaces
    return DiffDecision(
        changes=bool(replaces or updates),
        replaces=replaces,
        delete_before_replace=bool(dbr_opt) or forced,
        updates=updates,
    )

"""diff(): which input changes update in place, which replace, which touch nothing remote. No API calls.

Rules
- Both sides are compared in canonical form (normalize.py): equivalent declarations never differ.
- ``description``: in-place update (PUT).
- provider-only options (waiting, timeouts, replacement policy): an update that makes no API call,
  so the state records the new option.
- ``name``: compared with the live job's name, so naming an adopted job by its own name changes nothing;
  a derived name (resource name + random suffix) never replaces the job by itself.
- ``adopt_job_id``: replaces only when set to a job other than the one managed; dropping it after
  adoption keeps the job.
- anything else in the args: replace.
- ``replace_failed: true`` and a phase of Failed/Abnormal/Terminated (a run that did not complete, e.g.
  stopped at its wait deadline), read from the service (below): replace.
- status outputs (phase, times, ...) are not inputs and never diff; nor does ``config_keys`` (messages only).

Replacement order (a finished run is never deleted before its successor is accepted):
- the old job stopped and deleted first when it is still running and both would write to the same OBS
  output or log path (the create page says nothing about two running jobs sharing an output path, so
  two never run at once on one), and when an explicit name stays the same (the service may hold a name
  only once: the new job could not be created beside the old); for a Completed run that is refused
  instead, unless ``delete_before_replace: true`` accepts the loss;
- otherwise the new job first, the old one stopped and deleted after it was accepted: always for a
  finished run (Completed, Failed, Abnormal, Terminated) unless its explicit name stays;
- ``delete_before_replace: true`` always stops and deletes first; ``false`` is the default rule.

What the job became (provider.diff): the state keeps the phase seen at create (``Creating``); the phase that
decides the order and ``replace_failed`` is read from the service (one GET) when a replacement is in the diff
or ``replace_failed`` asks, and the recorded phase is not final. A Completed run whose successor needs the
same explicit name (the service holds a name once) is refused: ``same_name_refusal`` says how to go on; so is
one whose pool is being replaced (the pool and the jobs on it go first): ``pool_replacement_refusal``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .args import MESSAGE_ONLY_FIELDS, PROVIDER_ONLY_FIELDS, UPDATABLE_FIELDS
from .normalize import try_canonical
from .outputs import strip_outputs
from ..core.unknowns import contains_unknown, is_unknown
from ..client.models import FAILED_PHASES, TERMINAL_PHASES, normalize_obs_path


# Runs that did not complete: `replace_failed` re-runs them.
RERUN_PHASES = FAILED_PHASES | {"Terminated"}


@dataclass
class DiffDecision:
    changes: bool
    replaces: list[str] = field(default_factory=list)
    delete_before_replace: bool = True
    updates: list[str] = field(default_factory=list)  # in-place (description) or provider-only


# The inputs holding OBS prefixes a job writes to (the job fields' rows say the same: stack/job_fields.py).
WRITTEN_INPUTS = ("algorithm.outputs", "log_export_path")


def _written_paths(inputs: dict[str, Any]) -> set[str]:
    """OBS prefixes a job writes to: its outputs and its log export path."""
    out: set[str] = set()
    alg = inputs.get("algorithm")
    if isinstance(alg, dict):
        for ch in alg.get("outputs") or []:
            if isinstance(ch, dict) and isinstance(ch.get("obs_url"), str):
                out.add(normalize_obs_path(ch["obs_url"]) or ch["obs_url"])
    log = inputs.get("log_export_path")
    if isinstance(log, dict) and isinstance(log.get("obs_url"), str):
        out.add(normalize_obs_path(log["obs_url"]) or log["obs_url"])
    return out


def _overlap(a: set[str], b: set[str]) -> bool:
    return any(x.startswith(y) or y.startswith(x) for x in a for y in b)


def needs_live_phase(decision: DiffDecision, olds: dict[str, Any], news: dict[str, Any]) -> bool:
    """Whether the job's phase now must be read before the decision stands: a replacement (its order,
    and whether a finished run is at stake) or `replace_failed` (whether the run failed), unless the
    recorded phase is final already. Nothing replaced and nothing asked: no call (an unchanged stack's
    preview makes none)."""
    if olds.get("phase") in TERMINAL_PHASES:
        return False
    return bool(decision.replaces) or news.get("replace_failed") is True


def same_name_refusal(decision: DiffDecision, olds: dict[str, Any], news: dict[str, Any]) -> str | None:
    """One line when replacing would delete a Completed run before its successor is accepted: the
    successor keeps the explicit name, which the service holds once, so the old job must go first.
    `delete_before_replace: true` accepts that loss; a new name (or a derived one) keeps the run."""
    if not decision.replaces or olds.get("phase") != "Completed" or news.get("delete_before_replace") is True:
        return None
    new_name = news.get("name")
    live_name = olds.get("job_name") or olds.get("name")
    if new_name is None or is_unknown(new_name) or news.get("derived_name") is True or new_name != live_name:
        return None
    return (f"training job {live_name} ({olds.get('job_id') or ''}) has completed and its replacement "
            f"({', '.join(decision.replaces)} changed) keeps the name {live_name}, which the service holds once: "
            "the finished run would be deleted before the new one is accepted; nothing was changed: give the "
            "job a new name (or leave name unset for a derived one) to keep the run until its successor is "
            "accepted, or set deleteBeforeReplace: true on the job to delete it first and accept the loss")


def pool_replacement_refusal(decision: DiffDecision, olds: dict[str, Any], news: dict[str, Any]) -> str | None:
    """One line when the pool a Completed run ran on is being replaced: a pool's replacement deletes the old pool
    first (its name stays), and Pulumi deletes the jobs on it before it, whatever their own diff says, so the
    finished run would be gone before any new pool, let alone its successor, exists. Its `pool_id` is then
    unknown (the pool's id, unknown until the new pool exists; the engine also asks this diff with it unknown
    before such a delete, with the job's recorded inputs). `keep_finished_runs` keeps the run in the service
    (nothing is lost); `delete_before_replace: true` accepts the loss: either counts once recorded by an `up`."""
    if ("pool_id" not in decision.replaces or not is_unknown(news.get("pool_id")) or olds.get("phase") != "Completed"
            or news.get("delete_before_replace") is True or news.get("keep_finished_runs") is True):
        return None
    name = olds.get("job_name") or olds.get("name") or ""
    return (f"training job {name} ({olds.get('job_id') or ''}) has completed and its pool is being replaced: a pool's "
            "replacement deletes the old pool first and the jobs on it before it, so the finished run would be "
            "deleted before its successor exists; nothing was changed: set keepFinishedRuns: true on the job to keep "
            "the run in the service (it leaves the state), or deleteBeforeReplace: true to delete it and accept the "
            "loss, and run up with the pool unchanged to record that first; or move the job to another pool in an "
            "up before replacing this one")


def decide(job_id: str, olds: dict[str, Any], news: dict[str, Any]) -> DiffDecision:
    """olds: the state's outputs (inputs + status); news: the checked new inputs."""
    raw_old = strip_outputs(olds)
    old = try_canonical(raw_old) or raw_old
    raw_new = strip_outputs(news)
    new = try_canonical(raw_new, old) or raw_new
    live_name = olds.get("job_name") or old.get("name")
    replaces: list[str] = []
    updates: list[str] = []
    for k in sorted((set(old) | set(new)) - {"name"} - MESSAGE_ONLY_FIELDS):
        if old.get(k) == new.get(k) and not contains_unknown(new.get(k)):
            continue
        if k == "adopt_job_id":
            (replaces if new.get(k) not in (None, job_id) else updates).append(k)
        elif k in UPDATABLE_FIELDS or k in PROVIDER_ONLY_FIELDS:
            updates.append(k)
        else:
            replaces.append(k)
    new_name = new.get("name")
    if new_name is not None and (is_unknown(new_name) or new_name != live_name):
        # A derived name is an identifier, not part of the declaration: a renewed suffix (or a
        # suffix generated after adopt_job_id was dropped) never replaces a job by itself. It is
        # recorded once (an update); compared with the recorded name, not the live one, so it is
        # not an update again at every `up` (the job keeps its live name).
        if new.get("derived_name") is not True:
            replaces.append("name")
        elif is_unknown(new_name) or new_name != old.get("name"):
            updates.append("name")

    if new.get("replace_failed") is True and olds.get("phase") in RERUN_PHASES:
        replaces.append("phase")

    name_unchanged = new_name is None or (not is_unknown(new_name) and new_name == live_name)
    dbr_opt = new.get("delete_before_replace")
    forced = dbr_opt is True or contains_unknown(dbr_opt)
    running = olds.get("phase") not in TERMINAL_PHASES  # unknown (never seen) counts as running
    shared_paths = contains_unknown(new.get("algorithm")) or _overlap(_written_paths(old), _written_paths(new))
    return DiffDecision(
        changes=bool(replaces or updates),
        replaces=replaces,
        delete_before_replace=forced or name_unchanged or (running and shared_paths),
        updates=updates,
    )

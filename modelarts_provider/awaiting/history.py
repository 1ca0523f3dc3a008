"""Run history: every run of a job key stays on record after it is replaced or deleted.

The JobsAwait keeps it (its `runs` output, {key: [record, ...]}, newest last): it sees each run finish (and learns
of the runs a new run replaces that no wait recorded, a killed `up`'s: core/replaced_runs.py), and
its update receives its own previous outputs, so the records of a replaced run carry forward whatever
happens to that run's TrainingJob (created anew, deleted after its successor, refused). A record is written
from the job view a wait ended with (parameters, output path, times) and the status (phase, objective);
a run that leaves while its recorded phase is not final is read once (one GET) so the record says what it
became. Parameter values secret in the job's inputs (the JobsAwait's `secrets` of its key), or whose names look
secret, are recorded masked: the state never holds them in plain text.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime, timezone
from typing import Any

from pydantic import BaseModel, ConfigDict

from ..client.models import TERMINAL_PHASES, TrainingJob, as_list, normalize_obs_path
from ..core.masking import MASK, NONE, Secrets, secret_looking
from ..results.curves import Curve
from .args import AwaitedStatus


class RunRecord(BaseModel):
    """One run of a job key, as last seen."""

    model_config = ConfigDict(extra="forbid")
    job_id: str
    job_name: str | None = None
    parameters: dict[str, str] = {}
    phase: str | None = None
    objective: float | None = None
    output_path: str | None = None
    create_time: str | None = None
    start_time: str | None = None
    duration_s: float | None = None
    node_count: int | None = None  # the nodes it ran on, as the service reports them: what its cost multiplies
    note: str | None = None  # e.g. gone before it was seen to finish
    # Its objective's and metrics' curves (results/curves.py, at most 60 points each): what `results KEY --history
    # --chart` overlays. In the state only: the `runs` export keeps to the fields above.
    metrics: dict[str, Curve] | None = None


def _iso(ms: Any) -> str | None:
    try:
        value = int(ms)
    except (TypeError, ValueError):
        return None
    return datetime.fromtimestamp(value / 1000, tz=timezone.utc).isoformat().replace("+00:00", "Z") if value else None


def masked_parameters(job: TrainingJob, known: Secrets = NONE) -> dict[str, str]:
    """The job's running parameters; a value secret in its inputs (`known`), or under a secret-looking name,
    masked as a whole."""
    secrets = known.every  # a secret `lr: 0.01` too: readable in printed text, never in the state
    out: dict[str, str] = {}
    for p in as_list((job.to_wire().get("algorithm") or {}).get("parameters")):
        if not isinstance(p, dict) or not p.get("name"):
            continue
        value = "" if p.get("value") is None else str(p.get("value"))
        out[str(p["name"])] = MASK if value in secrets or secret_looking(str(p["name"])) else value
    return out


def from_job(job: TrainingJob, secrets: Secrets = NONE) -> dict[str, Any]:
    """What a record takes from a job view."""
    live = job.to_wire()
    status = live.get("status") or {}
    paths = [((ch.get("remote") or {}).get("obs") or {}).get("obs_url")
             for ch in as_list((live.get("algorithm") or {}).get("outputs")) if isinstance(ch, dict)]
    path = next((p for p in paths if p), None)
    duration = status.get("duration")
    return {"job_name": job.name, "parameters": masked_parameters(job, secrets), "phase": job.phase,
            "output_path": (normalize_obs_path(path) or path) if path else None,
            "create_time": _iso((live.get("metadata") or {}).get("create_time")),
            "start_time": _iso(status.get("start_time")),
            "duration_s": float(duration) / 1000 if isinstance(duration, (int, float)) and duration else None,
            "node_count": _node_count(live)}


def _node_count(live: dict[str, Any]) -> int | None:
    nodes = ((live.get("spec") or {}).get("resource") or {}).get("node_count")
    return nodes if isinstance(nodes, int) and not isinstance(nodes, bool) and nodes > 0 else None


def _record(before: RunRecord | None, status: AwaitedStatus | None, job: TrainingJob | None,
            job_id: str, secrets: Secrets = NONE) -> RunRecord:
    data: dict[str, Any] = before.model_dump() if before is not None else {"job_id": job_id}
    if job is not None:
        data.update({k: v for k, v in from_job(job, secrets).items() if v not in (None, {})})
    if status is not None:
        data["job_name"] = data.get("job_name") or status.job_name
        data["phase"] = status.phase or data.get("phase")
        diverged = next((f"{n} {c.diverged}" for n, c in (status.metrics or {}).items() if c.diverged), None)
        if diverged is not None:  # no value, as in a sweep's table: the last finite one before it never counts
            data["objective"] = None
            data["note"] = f"diverged: {diverged}"
        elif status.objective is not None:
            data["objective"] = status.objective
        if status.duration_s is not None:
            data["duration_s"] = status.duration_s
        if status.metrics:
            data["metrics"] = status.metrics
        why = _failure_note(status.failure, data.get("phase"))
        if why and not data.get("note"):
            data["note"] = why  # a failed run says why in `results KEY --history` (issue 56)
    return RunRecord.model_validate(data)


def _failure_note(failure: str | None, phase: str | None) -> str | None:
    """Why a finished run failed, without the phase the record shows beside it ("Failed; exit code 3: boom" ->
    "exit code 3: boom"); None for a run that is not finished or has no cause beyond its phase."""
    if not failure or phase not in TERMINAL_PHASES:
        return None
    if phase and failure.startswith(phase):
        failure = failure[len(phase):].lstrip("; ")
    return failure or None


def merged(old_runs: dict[str, Any] | None, statuses: dict[str, AwaitedStatus], seen: dict[str, TrainingJob],
           read: Callable[[str, str | None], TrainingJob | None],
           previous: dict[str, Any] | None = None,
           secrets: dict[str, Secrets] | None = None,
           replaced: Callable[[str], Iterable[str]] = lambda _job_id: ()) -> dict[str, list[RunRecord]]:
    """The history after a wait (or update): the recorded runs, each current run's record refreshed from
    `statuses` and the job views `seen` this time ({job id: view}); the `previous` statuses' runs recorded
    too when missing (a state written before the history was kept), and the runs a current run replaces
    (`replaced(job_id)`, core/replaced_runs.py: a run whose `up` was killed during its wait) when no record has them;
    a run no longer current whose recorded phase is not final read once with `read(job_id, workspace_id)` (None:
    gone, the record notes it). `secrets`: per key, the job's secrets (its parameters recorded masked)."""
    secrets = secrets or {}
    runs: dict[str, list[RunRecord]] = {}
    for key, records in (old_runs or {}).items():
        if isinstance(records, list):
            runs[key] = [RunRecord.model_validate(r) for r in records if isinstance(r, dict) and r.get("job_id")]
    for key, raw in (previous or {}).items():
        try:
            before = AwaitedStatus.model_validate(raw)
        except ValueError:
            continue
        records = runs.setdefault(key, [])
        if not any(r.job_id == before.job_id for r in records):
            records.append(_record(None, before, None, before.job_id))
    for key, status in statuses.items():
        records = runs.setdefault(key, [])
        for earlier in replaced(status.job_id):  # runs it replaces that no wait recorded: older, before it
            if not any(r.job_id == earlier for r in records):
                at = next((i for i, r in enumerate(records) if r.job_id == status.job_id), len(records))
                records.insert(at, RunRecord(job_id=earlier, job_name=None))
        at = next((i for i, r in enumerate(records) if r.job_id == status.job_id), None)
        if at is None:
            records.append(_record(None, status, seen.get(status.job_id), status.job_id, secrets.get(key, NONE)))
        else:
            records[at] = _record(records[at], status, seen.get(status.job_id), status.job_id,
                                  secrets.get(key, NONE))
    for key, records in runs.items():
        current = statuses.get(key)
        for i, r in enumerate(records):
            if (current is None or r.job_id != current.job_id) and r.phase not in TERMINAL_PHASES \
                    and r.note is None:
                live = read(r.job_id, current.workspace_id if current is not None else None)
                records[i] = _record(r, None, live, r.job_id, secrets.get(key, NONE)) if live is not None else \
                    r.model_copy(update={"note": "gone before it was seen to finish"})
    return runs


def dumped(runs: dict[str, list[RunRecord]]) -> dict[str, list[dict[str, Any]]]:
    return {k: [r.model_dump(mode="json", exclude_none=True) for r in v] for k, v in runs.items() if v}

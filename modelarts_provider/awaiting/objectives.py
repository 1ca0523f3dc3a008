"""Objectives and metric curves read from the logs of completed jobs: one log per job.

The objective is the last match of its regex; each declared metric (and the objective) also becomes a curve,
every match a point (results/curves.py), from the same one read. A run whose objective or a metric turned
non-finite (results/divergence.py, whatever the regex) is diverged: it has no value (the last finite one before
the divergence never counts) and says where, so a lone job's exported objective reads as a sweep's diverged point.

The service's metrics API carries machine usage only (cpuUsage, gpuUtil, ...); ModelArts' own
hyperparameter search reads its objective from the training log with a regex, and so do we. The
log is the preview API's (the newest 5 MB: where the final metrics are). One preview per job, of its
first task (rank 0 prints the metrics of a distributed job), fetched `concurrency` at a time.
"""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from ..client.models import TrainingJob, task_ids
from ..core.job_logs import client_secrets, one_line_error
from .args import Metric, Objective
from ..core.linear_regex import last_capture
from ..results.curves import Curve, curve, first_diverged

CONCURRENCY = 8


@dataclass(frozen=True)
class Reading:
    value: float | None
    note: str | None = None  # why there is no value
    curves: dict[str, Curve] = field(default_factory=dict)  # by metric name (the objective's too)
    diverged: str | None = None  # the first curve that turned non-finite: "accuracy nan at line 3"


@dataclass(frozen=True)
class ToRead:
    key: str
    job: TrainingJob
    objective: Objective | None
    metrics: tuple[Objective | Metric, ...] = ()  # curves to draw from the same log (AwaitedJob.series())


def last_value(text: str, objective: Objective) -> Reading:
    """The number the last match of the objective's regex captured in `text` (linear_regex.py: RE2, line by
    line from the end). NaN and infinities are no value: a point that printed `loss=nan` is never best."""
    captured = last_capture(objective.regex, text)
    if captured is None:
        return Reading(None, f"no match for {objective.regex!r} in the log")
    try:
        value = float(captured)
    except (TypeError, ValueError):
        return Reading(None, f"the last match captured {captured!r}, not a number")
    if not math.isfinite(value):
        return Reading(None, f"no value: the last match captured {captured!r}")
    return Reading(value)


def _read(client: Any, item: ToRead, secrets: list[str]) -> Reading:
    job_id = item.job.id or ""
    task = task_ids(item.job)[0]
    try:
        text = client.get_task_log_preview(job_id, task).text
    except Exception as exc:  # noqa: BLE001 - a log that cannot be read leaves the point without a value
        why = f"log of {task} unavailable: {one_line_error(exc, secrets)}"
        return Reading(None, why if item.objective is not None else None,
                       {m.name: Curve(note=why) for m in item.metrics})
    reading = last_value(text, item.objective) if item.objective is not None else Reading(None)
    curves = {m.name: curve(text, m.regex, m.goal) for m in item.metrics}
    diverged = first_diverged(curves)
    if diverged is not None:  # both doors export this reading (statuses, objectives): no last finite value
        return Reading(None, f"diverged: {diverged}", curves, diverged)
    return Reading(reading.value, reading.note, curves)


def read_objectives(client: Any, items: list[ToRead], concurrency: int = CONCURRENCY) -> dict[str, Reading]:
    """{key: Reading} for every item; never raises (a failed read is a note)."""
    if not items:
        return {}
    secrets = client_secrets(client)
    with ThreadPoolExecutor(max_workers=max(1, min(concurrency, len(items)))) as pool:
        readings = list(pool.map(lambda item: _read(client, item, secrets), items))
    return {item.key: reading for item, reading in zip(items, readings)}

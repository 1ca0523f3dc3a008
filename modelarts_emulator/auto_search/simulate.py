"""Trials of a search job the local ModelArts does not execute: derived from the job row and the clock.

Like a plain job's phases, nothing moves unless the clock does, and the same job shows the same trials
after a restart. The job's run time is shared by waves of ``max_concurrent`` trials (``num_samples`` in
all); each trial reports its metrics ``REPORTS`` times, its objective a smooth function of its parameters
(best where every parameter sits at ``OPTIMUM`` of its range), so a best trial exists and is known. The
parameters come from a random generator seeded by the algorithm's ``seed`` and the trial's index. An
early stop (stored in the job document) ends a running trial with what it reported so far. A terminated
job's running trials end TERMINATED, not done; a job failed by ``emulator/outcome`` fails every trial.
"""

from __future__ import annotations

import math
import random
from typing import Any

from ..jobs.models import JobRow
from .space import Param, Search, space_size
from .trials import ERROR, RUNNING, TERMINATED, Report, Trial, trial_id

REPORTS = 3
OPTIMUM = 0.35
HANG_TRIAL_MS = 60_000  # a job without a run time (hang): each trial lasts this long
FAKE_PID = 300


def quality(search: Search, config: dict[str, Any]) -> float:
    """1 at the optimum, falling smoothly to 0 at the far corner of the space."""
    dist = [(p.unit(config[p.name]) - OPTIMUM) ** 2 for p in search.params]
    worst = max(OPTIMUM, 1 - OPTIMUM) ** 2
    return max(0.0, 1 - sum(dist) / (len(dist) * worst))


def reward_for(search: Search, config: dict[str, Any], fraction: float = 1.0) -> dict[str, float]:
    """Every metric at ``fraction`` of the trial's run: accuracy-like for max, loss-like for min."""
    q = quality(search, config)
    out = {}
    for m in search.metrics:
        if m.mode == "max":
            value = (0.5 + 0.49 * q) * (0.8 + 0.2 * fraction)
        else:
            value = (0.05 + 2 * (1 - q)) * (1.5 - 0.5 * fraction)
        out[m.name] = round(value, 6)
    return out


def configs(search: Search, count: int) -> list[dict[str, Any]]:
    """The trials' parameters: trial i's from a generator seeded by the seed and i, drawn again (same
    generator) while it repeats an earlier trial's point and the discrete space has an unused one; once every
    point has had a trial, repeats (the trial's log says so: repeats())."""
    size = space_size(search)
    out: list[dict[str, Any]] = []
    seen: set[tuple[Any, ...]] = set()
    for i in range(count):
        rnd = random.Random(search.seed * 1_000_003 + i)
        config = {p.name: p.sample(rnd) for p in search.params}
        while size is not None and len(seen) < size and _key(search, config) in seen:
            config = {p.name: p.sample(rnd) for p in search.params}
        seen.add(_key(search, config))
        out.append(config)
    return out


def _key(search: Search, config: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(config[p.name] for p in search.params)


def repeats(search: Search, index: int) -> str | None:
    """Why trial `index` runs a point an earlier trial ran (None: it does not)."""
    size = space_size(search)
    if size is None or index < size:
        return None
    return (f"every one of the {size} points of the search space had a trial before this one: it repeats one "
            "(num_samples is more than the space's points)")


def trials_at(row: JobRow, search: Search, t: int) -> list[Trial]:
    """The trials started by ``t`` (a trial not yet started does not exist yet, as in Ray Tune)."""
    start = row.start_ms()
    if t < start or math.isinf(start):
        return []
    n, c = search.num_samples, max(1, min(search.max_concurrent, search.num_samples))
    waves = math.ceil(n / c)
    length = (row.run_ms / waves) if row.run_ms is not None and row.outcome != "hang" else HANG_TRIAL_MS
    end, final = row.natural_end_ms()
    stop = min(end, row.terminate_ms) if row.terminate_ms is not None else end
    stopped_by = "Terminated" if row.terminate_ms is not None and row.terminate_ms < end else final
    early = ((row.doc.get("auto_search") or {}).get("early_stops") or {})
    out = []
    for i, config in enumerate(configs(search, n)):
        begins = start + (i // c) * length
        if begins > t or (begins >= stop and stop < float("inf")):
            break
        tid = trial_id(row.id, i)
        finishes = begins + length
        cut = min(stop, early.get(tid, float("inf")))
        now = min(t, finishes, cut)
        reports = [Report(round(length * k / REPORTS / 1000, 3), reward_for(search, config, k / REPORTS))
                   for k in range(1, REPORTS + 1) if begins + length * k / REPORTS <= now]
        trial = Trial(i, tid, config, pid=FAKE_PID + i, start_ms=int(begins), reports=reports)
        ends_at = min(finishes, cut)
        if t >= ends_at:
            trial.end_ms, trial.status = int(ends_at), TERMINATED
            if early.get(tid, float("inf")) <= min(finishes, stop):
                trial.early_stopped = True
            elif stopped_by in ("Failed", "Abnormal"):
                trial.status = ERROR
            else:
                trial.done = finishes <= stop  # else the job was terminated under it
        else:
            trial.status = RUNNING
        out.append(trial)
    return out


def trial_log(row: JobRow, search: Search, trial: Trial) -> str:
    """A simulated trial's log: its command line with its own parameters, one line per report (metric=value),
    its end. Timestamps are the emulated moments the lines were written."""
    from datetime import datetime, timezone

    def stamp(ms: float) -> str:
        return datetime.fromtimestamp(ms / 1000, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")

    argv = " ".join(f"--{p.name}={Param.text(trial.config[p.name])}" for p in search.params)
    lines = [f"{stamp(trial.start_ms)} [ModelArts Service Log] trial {trial.trial_id} (#{trial.index}) of "
             f"training job {row.name}: {argv}"]
    again = repeats(search, trial.index)
    if again is not None:
        lines.append(f"{stamp(trial.start_ms)} [ModelArts Service Log] {again}")
    for k, rep in enumerate(trial.reports, 1):
        values = " ".join(f"{name}={value!r}" for name, value in rep.metrics.items())
        lines.append(f"{stamp(trial.start_ms + rep.time_total_s * 1000)} iteration {k}: {values}")
    if trial.end_ms is not None:
        how = "early stopped" if trial.early_stopped else "done" if trial.done else trial.status
        lines.append(f"{stamp(trial.end_ms)} [ModelArts Service Log] trial {trial.trial_id} ended ({how})")
    return "".join(line + "\n" for line in lines)

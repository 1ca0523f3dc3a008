"""Trials of a search and the tables the service answers with.

The service answers Ray Tune's result table: ``ShowAutoSearchTrials`` ``items`` = ``{header, data}`` with
one row per trial (its last report), ``ShowAutoSearchPerTrial`` one row per report of one trial. The
columns follow the service's example responses: ``""`` (the row index), ``done``, ``pid``, ``config``
(an object of the trial's parameters, ``trial_index`` and ``param/<name>``, as the service sends it inside
the string table), ``trial_id``, ``training_iteration``, ``time_total_s``, ``worker_index``,
``reward_attr`` (the objective's value), ``status`` (PENDING | RUNNING | TERMINATED | ERROR), one column
per reward_attrs metric, ``best_reward``; and ``early_stopped`` (``True`` for a trial stopped by the
early-stop API; our addition, the service's example has no early-stopped trial).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from .space import Param, Search

PENDING, RUNNING, TERMINATED, ERROR = "PENDING", "RUNNING", "TERMINATED", "ERROR"
LIST_HEADER = ("", "done", "pid", "config", "trial_id", "training_iteration", "time_total_s", "worker_index",
               "reward_attr", "status")
TRIAL_HEADER = ("done", "pid", "best_reward", "time_total_s", "config")


def trial_id(job_id: str, index: int) -> str:
    """Eight hex digits, as Ray Tune names trials; stable for a job and index."""
    return hashlib.sha1(f"{job_id}:{index}".encode()).hexdigest()[:8]


@dataclass
class Report:
    time_total_s: float
    metrics: dict[str, float]


@dataclass
class Trial:
    index: int
    trial_id: str
    config: dict[str, Any]
    status: str = RUNNING
    done: bool = False
    early_stopped: bool = False
    pid: int = 0
    start_ms: int = 0
    end_ms: int | None = None
    reports: list[Report] = field(default_factory=list)

    @property
    def ended(self) -> bool:
        return self.status in (TERMINATED, ERROR)

    def reward(self, search: Search) -> float | None:
        last = next((r for r in reversed(self.reports) if search.reward.name in r.metrics), None)
        return None if last is None else last.metrics[search.reward.name]

    def best(self, search: Search) -> float | None:
        values = [r.metrics[search.reward.name] for r in self.reports if search.reward.name in r.metrics]
        if not values:
            return None
        return max(values) if search.reward.mode == "max" else min(values)

    def to_doc(self) -> dict[str, Any]:
        return {"index": self.index, "trial_id": self.trial_id, "config": self.config, "status": self.status,
                "done": self.done, "early_stopped": self.early_stopped, "pid": self.pid,
                "start_ms": self.start_ms, "end_ms": self.end_ms,
                "reports": [[r.time_total_s, r.metrics] for r in self.reports]}

    @classmethod
    def from_doc(cls, d: dict[str, Any]) -> "Trial":
        return cls(d["index"], d["trial_id"], d["config"], d["status"], d["done"], d["early_stopped"], d["pid"],
                   d["start_ms"], d["end_ms"], [Report(float(t), dict(m)) for t, m in d["reports"]])


def config_cell(trial: Trial, params: tuple[Param, ...]) -> dict[str, Any]:
    """The ``config`` cell: the values, ``trial_index``, and each value again as ``param/<name>``."""
    values = {p.name: _json_value(trial.config[p.name]) for p in params if p.name in trial.config}
    return {**values, "trial_index": trial.index, **{f"param/{k}": v for k, v in values.items()}}


def _json_value(value: Any) -> Any:
    if isinstance(value, str):
        for kind in (int, float):
            try:
                return kind(value)
            except ValueError:
                continue
    return value


def _num(value: float | None) -> str:
    return "" if value is None else repr(float(value))


def list_header(search: Search) -> list[str]:
    return [*LIST_HEADER, *(m.name for m in search.metrics), "best_reward", "early_stopped"]


def list_row(n: int, trial: Trial, search: Search) -> list[Any]:
    last = trial.reports[-1] if trial.reports else None
    return [str(n), str(trial.done), str(trial.pid), config_cell(trial, search.params), trial.trial_id,
            str(len(trial.reports)), _num(last.time_total_s if last else None), "",
            _num(trial.reward(search)), trial.status,
            *(_num(last.metrics.get(m.name) if last else None) for m in search.metrics),
            _num(trial.best(search)), str(trial.early_stopped)]


def trial_header(search: Search) -> list[str]:
    return [*TRIAL_HEADER, *(m.name for m in search.metrics), "trial_id", "training_iteration", "reward_attr"]


def trial_rows(trial: Trial, search: Search) -> list[list[Any]]:
    """One row per report; ``done`` is True on the last report of a trial that ran to its end."""
    rows = []
    best: float | None = None
    for k, rep in enumerate(trial.reports):
        value = rep.metrics.get(search.reward.name)
        if value is not None and (best is None or search.reward.better(value, best)):
            best = value
        last = k == len(trial.reports) - 1
        rows.append([str(trial.done and last), str(trial.pid), _num(best), _num(rep.time_total_s),
                     config_cell(trial, search.params), *(_num(rep.metrics.get(m.name)) for m in search.metrics),
                     trial.trial_id, str(k + 1), _num(value)])
    return rows

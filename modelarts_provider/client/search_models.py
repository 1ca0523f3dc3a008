"""Wire models of the service's own hyperparameter search (SDK ``show_search_algorithms``,
``show_auto_search_trials``, ``show_auto_search_trial_early_stop``), and the trials read as rows.

The trials come as a table: ``items.header`` names the columns, ``items.data`` holds one row per trial.
The SDK types a row as strings; the service's documented example sends the ``config`` cell as an object
(the trial's parameters, each also as ``param/<name>``). Both are read. Columns we use: ``trial_id``,
``status`` (Ray Tune's: PENDING, RUNNING, TERMINATED, ERROR), ``done`` (a TERMINATED trial that is not
done and not stopped early was stopped with its job: Terminated), ``config``, ``reward_attr`` (the trial's
reward), ``time_total_s`` (how long it ran), and an early-stop marker where the service sends one (``early_stopped`` / ``earlystop``, or the
status EARLY_STOPPED).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any, Optional

from .models import Int, Many, Str, WireModel, as_list


class SearchAlgorithmParam(WireModel):
    key: Optional[Str] = None
    value: Optional[Str] = None
    type: Optional[Str] = None  # Integer, Float, String, List


class SearchAlgorithm(WireModel):
    name: Optional[Str] = None
    params: Optional[Many[SearchAlgorithmParam]] = None
    description: Optional[Str] = None


class SearchAlgorithmList(WireModel):
    search_algo_count: Optional[Int] = None
    search_algo_list: Optional[Many[SearchAlgorithm]] = None

    def catalog(self) -> dict[str, dict[str, str]]:
        """{algorithm name: {parameter key: type}}."""
        return {str(a.name): {str(p.key): str(p.type or "") for p in as_list(a.params) if p.key}
                for a in as_list(self.search_algo_list) if a.name}


class TrialTable(WireModel):
    header: Optional[list[Any]] = None
    data: Optional[list[list[Any]]] = None


class AutoSearchTrials(WireModel):
    total: Optional[Int] = None
    count: Optional[Int] = None
    limit: Optional[Int] = None
    offset: Optional[Int] = None
    group_by: Optional[Str] = None
    items: Optional[TrialTable] = None


class EarlyStopResponse(WireModel):
    earlystop_trial: Optional[Str] = None


# Ray Tune's statuses (the service's trials table) -> the phases our tables use for jobs.
STATUS_PHASES = {"PENDING": "Pending", "RUNNING": "Running", "TERMINATED": "Completed", "ERROR": "Failed",
                 "PAUSED": "Pending", "EARLY_STOPPED": "Completed", "EARLYSTOPPED": "Completed"}
_EARLY_COLUMNS = ("early_stopped", "earlystop", "early_stop")


@dataclass(frozen=True)
class Trial:
    trial_id: str
    phase: str
    status: str
    parameters: dict[str, str] = field(default_factory=dict)
    reward: float | None = None
    early_stopped: bool = False
    duration_s: float | None = None  # Ray Tune's time_total_s: how long the trial ran


def _number(value: Any) -> float | None:
    try:
        number = float(str(value).strip())
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def _config(value: Any) -> dict[str, Any]:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return {}
    if not isinstance(value, dict):
        return {}
    prefixed = {k[len("param/"):]: v for k, v in value.items() if isinstance(k, str) and k.startswith("param/")}
    if prefixed:
        return prefixed
    return {k: v for k, v in value.items() if k != "trial_index"}


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return str(value)


def _truthy(value: Any) -> bool:
    return value is True or str(value).strip().lower() in ("true", "1", "yes")


def trials_of(page: AutoSearchTrials, reward_name: str | None = None) -> list[Trial]:
    """The rows of a trials page as Trials (rows without a trial id are skipped)."""
    table = page.items or TrialTable()
    header = [str(h) for h in (table.header or [])]
    out = []
    for row in table.data or []:
        cells = dict(zip(header, row))
        trial_id = cells.get("trial_id")
        if trial_id in (None, ""):
            continue
        status = str(cells.get("status") or "").upper()
        reward = _number(cells.get("reward_attr"))
        if reward is None and reward_name:
            reward = _number(cells.get(reward_name))
        early = status in ("EARLY_STOPPED", "EARLYSTOPPED") or any(_truthy(cells.get(c)) for c in _EARLY_COLUMNS)
        phase = STATUS_PHASES.get(status, status.title() or "Unknown")
        if status == "TERMINATED" and not early and "done" in cells and not _truthy(cells.get("done")):
            phase = "Terminated"  # neither ran to its end nor stopped early: the job was stopped under it
        out.append(Trial(trial_id=str(trial_id), phase=phase,
                         status=status, parameters={k: _text(v) for k, v in _config(cells.get("config")).items()},
                         reward=reward, early_stopped=early, duration_s=_number(cells.get("time_total_s"))))
    return out

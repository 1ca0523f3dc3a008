"""The search endpoints of the local ModelArts, in the official SDK's paths and shapes (huaweicloudsdkmodelarts v1):

- ``GET  /v2/{p}/search-algorithms`` -> ShowSearchAlgorithmsResponse (catalog.py);
- ``GET  /v2/{p}/training-jobs/{id}/autosearch-trials[?limit&offset]`` -> ShowAutoSearchTrialsResponse
  (``offset`` counts pages, 0 = the first, as the SDK documents it; ``limit`` defaults to 50);
- ``GET  /v2/{p}/training-jobs/{id}/autosearch-trials/{trial_id}`` -> ShowAutoSearchPerTrialResponse;
- ``POST /v2/{p}/training-jobs/{id}/autosearch-trial-earlystop/{trial_id}`` -> ShowAutoSearchTrialEarlyStopResponse;
- ``GET  /v2/{p}/training-jobs/{id}/autosearch-parameter-analysis[/{parameter_name}]`` -> the parameters'
  importance table, and where its image would be stored;
- ``GET  /v2/{p}/training-jobs/autosearch/yaml-templates[/{type}/{name}]`` -> the YAML templates.

A trial that is not the job's, a job without ``auto_search`` and a trial that is not running (early
stop) are the service's parameter error ModelArts.2788 naming the field (our assumption: the reference
documents no code of its own for them); an unknown job is ModelArts.2775 as everywhere.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from .. import errors
from ..jobs.models import JobRow, Store
from ..routes import operations, routes
from . import catalog, simulate
from .space import Search
from .trials import RUNNING, Trial, list_header, list_row, trial_header, trial_rows

ROUTES = routes("""
    GET   /v2/{project}/search-algorithms                                                  search_algorithms
    GET   /v2/{project}/training-jobs/autosearch/yaml-templates                            autosearch_yaml_templates
    GET   /v2/{project}/training-jobs/autosearch/yaml-templates/{type}/{name}              autosearch_yaml_template
    GET   /v2/{project}/training-jobs/{job}/autosearch-trials                              autosearch_trials
    GET   /v2/{project}/training-jobs/{job}/autosearch-trials/{trial}                      autosearch_trial
    POST  /v2/{project}/training-jobs/{job}/autosearch-trial-earlystop/{trial}             autosearch_earlystop
    GET   /v2/{project}/training-jobs/{job}/autosearch-parameter-analysis                  autosearch_analysis
    GET   /v2/{project}/training-jobs/{job}/autosearch-parameter-analysis/{parameter}      autosearch_analysis_path
""")
OPERATIONS = operations(ROUTES)
DEFAULT_LIMIT = 50
MAX_LIMIT = 1000


def runner(store: Store, executor: Any) -> Any:
    """The runner of searches in execution mode, or None when Optuna is not installed (then a search job
    is refused in that mode, see search_of_draft)."""
    try:
        from .runner import SearchRunner
    except ImportError:
        return None
    found = SearchRunner(store, executor)
    found.recover()
    return found


def search_of_draft(draft: Any, runner: Any) -> bool:
    """True when a job about to run locally is a search (its trials run through ``runner``)."""
    if Search.of(draft.algorithm) is None:
        return False
    if runner is None:
        raise errors.invalid_param("algorithm.policies.auto_search",
                                   "the local ModelArts runs searches with Optuna, which is not installed "
                                   "(install the emulator extra: pip install -e '.[emulator]')")
    return True


def trial_log(row: JobRow, task: str, now: int) -> dict[str, Any] | None:
    """The log preview of task ``trial-<trial_id>`` of a search job (our addition: one trial's own log,
    its parameters first); None for any other task (the job's own tasks, served as for every job)."""
    if not task.startswith("trial-") or Search.of(row.doc.get("algorithm")) is None:
        return None
    search = search_of(row)
    tid = task[len("trial-"):]
    trial = next((t for t in trials_of(row, search, now) if t.trial_id == tid), None)
    if trial is None:
        raise errors.invalid_param("task_id", f"the training job {row.id} has no trial {tid}")
    if "execution" in row.doc:
        path = Path(row.doc["execution"]["root"]) / "trials" / tid / "logs" / "worker-0.log"
        try:
            data = path.read_bytes().decode("utf-8", errors="replace")
        except FileNotFoundError:
            data = ""
    else:
        data = simulate.trial_log(row, search, trial)
    size = len(data.encode())
    return {"content": data, "current_size": size, "full_size": size}


def search_of(row: JobRow) -> Search:
    found = Search.of(row.doc.get("algorithm"))
    if found is None:
        raise errors.invalid_param("training_job_id", f"the training job {row.id} is not an auto search job "
                                                      "(it has no algorithm.policies.auto_search)")
    return found


def trials_of(row: JobRow, search: Search, now: int) -> list[Trial]:
    """Executed jobs (--execute) keep their trials in the job document as they run; others are simulated."""
    if "execution" in row.doc:
        return [Trial.from_doc(d) for d in (row.doc.get("auto_search") or {}).get("trials") or []]
    return simulate.trials_at(row, search, now)


def _query_int(raw_query: str, name: str, default: int, low: int, high: int) -> int:
    values = parse_qs(raw_query).get(name)
    if not values:
        return default
    try:
        value = int(values[0])
    except ValueError:
        raise errors.invalid_param(name, f"must be an integer, got {values[0]!r}") from None
    if not low <= value <= high:
        raise errors.invalid_param(name, f"must be between {low} and {high}, got {value}")
    return value


class AutoSearchApi:
    def __init__(self, store: Store) -> None:
        self.store = store

    def handle(self, op: str, params: dict[str, str], raw_query: str) -> tuple[int, Any]:
        if op == "search_algorithms":
            return 200, catalog.catalog_body()
        if op == "autosearch_yaml_templates":
            return 200, catalog.templates_body()
        if op == "autosearch_yaml_template":
            found = catalog.template_content(params["type"], params["name"])
            if found is None:
                raise errors.invalid_param("algorithm_name", f"no YAML template {params['type']}/{params['name']}")
            return 200, found
        row = self.store.row(params["job"])
        search = search_of(row)
        now = self.store.now()
        trials = trials_of(row, search, now)
        if op == "autosearch_trials":
            limit = _query_int(raw_query, "limit", DEFAULT_LIMIT, 1, MAX_LIMIT)
            page = _query_int(raw_query, "offset", 0, 0, 1_000_000)
            shown = trials[page * limit:(page + 1) * limit]
            return 200, {"total": len(trials), "count": len(shown), "limit": limit, "offset": page, "group_by": "",
                         "items": {"header": list_header(search),
                                   "data": [list_row(page * limit + k, t, search) for k, t in enumerate(shown)]}}
        if op == "autosearch_analysis":
            return 200, {"header": ["parameters", "the mean/std of importance"],
                         "data": [[name, f"{mean:.4f}/{std:.4f}"] for name, mean, std in _importance(search, trials)]}
        if op == "autosearch_analysis_path":
            name = params["parameter"]
            if name not in {p.name for p in search.params}:
                raise errors.invalid_param("parameter_name", f"{name!r} is not a searched parameter of the job "
                                                             f"({', '.join(p.name for p in search.params)})")
            return 200, {"file_path": f"{_log_dir(row)}/hyperparameter-analysis/fanova/{name}.png"}
        trial = next((t for t in trials if t.trial_id == params["trial"]), None)
        if trial is None:
            raise errors.invalid_param("trial_id", f"the training job {row.id} has no trial {params['trial']}")
        if op == "autosearch_trial":
            return 200, {"header": trial_header(search), "data": trial_rows(trial, search)}
        assert op == "autosearch_earlystop"
        if trial.status != RUNNING:
            raise errors.invalid_param("trial_id", f"the trial {trial.trial_id} is {trial.status}; only a "
                                                   "RUNNING trial can be stopped early")
        self.store.update_doc(row.id, lambda doc: doc.setdefault("auto_search", {}).setdefault(
            "early_stops", {}).setdefault(trial.trial_id, now))
        return 200, {"earlystop_trial": trial.trial_id}


def _log_dir(row: JobRow) -> str:
    spec = row.doc.get("spec") or {}
    url = ((spec.get("log_export_path") or {}).get("obs_url") or "").rstrip("/")
    if not url:
        outputs = (row.doc.get("algorithm") or {}).get("outputs") or []
        url = ((outputs[0].get("remote") or {}).get("obs") or {}).get("obs_url", "").rstrip("/") if outputs else ""
    return (url or f"/modelarts-training/{row.id}") + "/log"


def _importance(search: Search, trials: list[Trial]) -> list[tuple[str, float, float]]:
    """Each parameter's share of the reward's variation (|correlation| of its place in the range with
    the reward, normalised to sum 1) over the trials that reported; std: over halves of those trials."""
    points = [(t.config, r) for t in trials if (r := t.reward(search)) is not None]
    if len(points) < 2:
        return []

    def shares(subset: list[tuple[dict[str, Any], float]]) -> list[float]:
        raw = [abs(_corr([p.unit(c[p.name]) for c, _ in subset], [r for _, r in subset])) for p in search.params]
        total = sum(raw)
        return [v / total if total else 1 / len(raw) for v in raw]

    whole = shares(points)
    halves = [shares(h) for h in (points[::2], points[1::2]) if len(h) >= 2]
    out = []
    for k, p in enumerate(search.params):
        values = [h[k] for h in halves] or [whole[k]]
        std = math.sqrt(sum((v - whole[k]) ** 2 for v in values) / len(values))
        out.append((p.name, whole[k], std))
    return out


def _corr(xs: list[float], ys: list[float]) -> float:
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sx = math.sqrt(sum((x - mx) ** 2 for x in xs))
    sy = math.sqrt(sum((y - my) ** 2 for y in ys))
    if sx == 0 or sy == 0:
        return 0.0
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / (sx * sy)

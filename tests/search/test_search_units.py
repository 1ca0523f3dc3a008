"""The service's own hyperparameter search, provider side, without the engine: the entry's mapping to
`auto_search`, the algorithm catalog check, reading the trials table, the export and the table, and the
replace rule. Rule messages are in tests/bad_input/stack_cases.py (exact text, 0 API calls)."""

from __future__ import annotations

import math
from typing import Any

import pytest

from modelarts_provider.awaiting.args import AwaitedJob, AwaitedStatus, JobsAwaitArgs, JobsAwaitOutputs
from modelarts_provider.awaiting.results import enrich, report_tables
from modelarts_provider.awaiting.searches import SearchStatus, as_sweep_results, export, read_search
from modelarts_provider.client.errors import ModelArtsError
from modelarts_provider.client.search_models import AutoSearchTrials, SearchAlgorithmList, trials_of
from modelarts_provider.results.table import SweepObjective
from modelarts_provider.stack.config import parse
from modelarts_provider.stack.program import plan
from modelarts_provider.stack.results import build_searches
from modelarts_provider.training_job.catalog_check import CatalogCache, catalog_failures
from modelarts_provider.training_job.check import check_inputs
from modelarts_provider.training_job.diff import decide
from tests.provider.common import CODE, job_inputs

# The service's documented catalog example (ShowSearchAlgorithms), with anneal_search as the guide lists it.
CATALOG = {"search_algo_count": 3, "search_algo_list": [
    {"name": "bayes_opt_search", "description": "Gaussian process", "params": [
        {"key": "kind", "value": "ucb", "type": "String"}, {"key": "kappa", "value": "2.5", "type": "Float"},
        {"key": "xi", "value": "0.0", "type": "Float"}, {"key": "num_samples", "value": "20", "type": "Integer"},
        {"key": "seed", "value": "1", "type": "Integer"}]},
    {"name": "tpe_search", "description": "TPE", "params": [
        {"key": "gamma", "value": "0.25", "type": "Float"}, {"key": "n_initial_points", "value": "20", "type": "Integer"},
        {"key": "num_samples", "value": "20", "type": "Integer"}, {"key": "seed", "value": "1", "type": "Integer"},
        {"key": "max_concurrent", "value": "1", "type": "Integer"}]},
    {"name": "anneal_search", "description": "Annealing", "params": [
        {"key": "num_samples", "value": "20", "type": "Integer"}, {"key": "seed", "value": "1", "type": "Integer"}]},
]}

JOB = {"pool": "cpu", "codeDir": "mnist/", "bootFile": "train.py", "engine": {"name": "PyTorch", "version": "1"},
       "waitFor": "completed", "parameters": {"data": "x"}}
SEARCH = {"objective": {"name": "accuracy", "regex": "accuracy=([0-9.]+)"},
          "space": {"lr": {"loguniform": [0.0001, 0.1], "points": 4}, "momentum": {"uniform": [0.5, 0.9]},
                    "epochs": {"int": [1, 3]}, "batch_size": {"choice": [32, 64]}},
          "algorithm": {"name": "tpe_search", "params": {"gamma": 0.25}}, "trials": 8, "parallel": 2,
          "skip": ["batch_size"]}


def planned(search: dict[str, Any] | None = None, **job: Any) -> Any:
    raw = {"obs": {"main": {"bucket": "bucket-a"}}, "pools": {"cpu": {"flavor": "modelarts.vm.cpu.2u"}},
           "jobs": {"tune": {**JOB, **job, "search": search or SEARCH}}}
    return plan(parse(raw))[0]


# --- the entry -> algorithm.policies.auto_search ---------------------------------------------------

def test_the_entry_becomes_the_documented_auto_search() -> None:
    p = planned()
    auto = p.args.model_dump(mode="json", exclude_none=True)["algorithm"]["policies"]["auto_search"]
    assert auto["reward_attrs"] == [{"name": "accuracy", "mode": "max", "regex": "accuracy=([0-9.]+)"}]
    params = {s["name"]: s for s in auto["search_params"]}
    assert params["lr"] == {"name": "lr", "param_type": "discrete",
                            "discrete_values": ["0.0001", "0.001", "0.01", "0.1"]}  # log-spaced points
    assert params["momentum"] == {"name": "momentum", "param_type": "continuous", "lower_bound": "0.5",
                                  "upper_bound": "0.9"}
    assert params["epochs"]["discrete_values"] == ["1", "2", "3"]
    assert params["batch_size"]["discrete_values"] == ["32", "64"]
    assert auto["algo_configs"] == [{"name": "tpe_search", "params": [
        {"key": "gamma", "value": "0.25", "type": "Float"}, {"key": "num_samples", "value": "8", "type": "Integer"},
        {"key": "max_concurrent", "value": "2", "type": "Integer"}]}]
    assert auto["skip_search_params"] == "batch_size"
    assert p.args.config_keys["algorithm.policies"] == "modelarts-jobs:jobs.tune.search"


def test_uniform_points_become_discrete_points_num() -> None:
    p = planned({**SEARCH, "space": {"momentum": {"uniform": [0.5, 0.9], "points": 5}}, "skip": []})
    auto = p.args.model_dump(mode="json", exclude_none=True)["algorithm"]["policies"]["auto_search"]
    assert auto["search_params"][0]["discrete_points_num"] == "5"


def test_a_changed_space_objective_or_algorithm_replaces_the_job() -> None:
    base = planned().args.model_dump(mode="json", exclude_none=True)["algorithm"]

    def inputs(alg: dict[str, Any]) -> dict[str, Any]:
        return job_inputs(algorithm={**CODE, "policies": alg["policies"]})

    olds, failures = check_inputs(inputs(base))
    assert failures == []
    state = {**olds, "job_id": "j1", "job_name": olds["name"], "phase": "Completed"}
    same, _ = check_inputs(inputs(base), state)
    assert not decide("j1", state, same).changes
    for change in ({"space": {"lr": {"uniform": [0.001, 0.1]}}, "skip": []},
                   {"objective": {"name": "accuracy", "regex": "accuracy=([0-9.]+)", "goal": "min"}},
                   {"algorithm": {"name": "anneal_search"}}):
        alg = planned({**SEARCH, **change}).args.model_dump(mode="json", exclude_none=True)["algorithm"]
        new, failures = check_inputs(inputs(alg), state)
        assert failures == []
        d = decide("j1", state, new)
        assert d.replaces, change


# --- the algorithm catalog check ---------------------------------------------------------------------

class CatalogClient:
    def __init__(self, fail: bool = False) -> None:
        self.calls = 0
        self.fail = fail

    def list_search_algorithms(self) -> SearchAlgorithmList:
        self.calls += 1
        if self.fail:
            raise ModelArtsError("no such API", status=404)
        return SearchAlgorithmList.model_validate(CATALOG)


def failures_of(search: dict[str, Any], cache: CatalogCache) -> list[str]:
    news = planned(search).args.model_dump(mode="json", exclude_none=True)
    news["flavor_id"] = None  # only the search is checked here
    news["algorithm"].pop("engine")
    return [f.reason for f in catalog_failures(news, cache)]


def test_unknown_algorithm_with_did_you_mean() -> None:
    cache = CatalogCache(CatalogClient(), "cn-north-4", print)
    assert failures_of({**SEARCH, "algorithm": {"name": "tpe_serch"}, "parallel": None}, cache) == [
        "modelarts-jobs:jobs.tune.search.algorithm.name: unknown search algorithm 'tpe_serch' in cn-north-4; "
        "did you mean tpe_search?"]


def test_unknown_algorithm_parameter_with_did_you_mean() -> None:
    cache = CatalogCache(CatalogClient(), "cn-north-4", print)
    assert failures_of({**SEARCH, "algorithm": {"name": "tpe_search", "params": {"gama": 0.3}}}, cache) == [
        "modelarts-jobs:jobs.tune.search.algorithm.params.gama: the search algorithm tpe_search in cn-north-4 "
        "takes no parameter gama; did you mean gamma?"]


def test_trials_only_where_the_algorithm_takes_them_and_parallel_everywhere() -> None:
    catalog = {"search_algo_list": [{"name": "grid_like", "params": [{"key": "seed", "type": "Integer"}]}]}
    client = CatalogClient()
    client.list_search_algorithms = lambda: SearchAlgorithmList.model_validate(catalog)  # type: ignore[method-assign]
    cache = CatalogCache(client, "cn-north-4", print)
    assert failures_of({**SEARCH, "algorithm": {"name": "grid_like"}}, cache) == [
        "modelarts-jobs:jobs.tune.search.trials: the search algorithm grid_like in cn-north-4 takes no "
        "parameter num_samples (trials: the number of trials); leave trials out"]
    assert failures_of({**SEARCH, "algorithm": {"name": "grid_like"}, "trials": None}, cache) == []


def test_an_algorithm_parameter_of_the_wrong_type() -> None:
    cache = CatalogCache(CatalogClient(), "cn-north-4", print)
    assert failures_of({**SEARCH, "algorithm": {"name": "tpe_search", "params": {"n_initial_points": 2.5}}},
                       cache) == [
        "modelarts-jobs:jobs.tune.search.algorithm.params.n_initial_points: n_initial_points of tpe_search is a "
        "whole number (Integer in the catalog), not a number"]


def test_the_catalog_is_read_once_per_place_and_an_unreadable_one_is_noted_once() -> None:
    client = CatalogClient()
    cache = CatalogCache(client, "cn-north-4", print)
    for _ in range(3):
        failures_of(SEARCH, cache)
    assert client.calls == 1
    notes: list[str] = []
    broken = CatalogClient(fail=True)
    cache = CatalogCache(broken, "cn-north-4", notes.append)
    assert failures_of(SEARCH, cache) == [] and failures_of(SEARCH, cache) == []
    assert broken.calls == 1 and len(notes) == 1 and "search-algorithms" in notes[0]


# --- the trials table ----------------------------------------------------------------------------------

HEADER = ["", "done", "pid", "config", "trial_id", "training_iteration", "time_total_s", "worker_index",
          "reward_attr", "status", "accuracy", "best_reward"]


def row(i: int, lr: float, reward: str, status: str = "TERMINATED") -> list[Any]:
    config = {"lr": lr, "batch_size": 32, "trial_index": i, "param/lr": lr, "param/batch_size": 32}
    return [str(i), "True", "314", config, f"t{i:03d}", "2", "19.4", "", reward, status, reward, reward]


def page(rows: list[list[Any]], header: list[str] = HEADER) -> AutoSearchTrials:
    return AutoSearchTrials.model_validate({"total": len(rows), "count": len(rows), "limit": 1000, "offset": 0,
                                            "group_by": "", "items": {"header": header, "data": rows}})


def test_trials_read_from_the_documented_table() -> None:
    trials = trials_of(page([row(0, 0.05, "0.0625"), row(1, 0.01, "", "RUNNING"), row(2, 0.2, "nan", "ERROR")]))
    assert [(t.trial_id, t.phase, t.reward) for t in trials] == [("t000", "Completed", 0.0625),
                                                                ("t001", "Running", None), ("t002", "Failed", None)]
    assert trials[0].parameters == {"lr": "0.05", "batch_size": "32"}
    assert trials[0].duration_s == 19.4  # time_total_s: the tables' duration column (it read `-` before)


def test_a_search_table_shows_durations_and_never_ranks_a_failed_trial() -> None:
    from modelarts_provider.awaiting.searches import SearchStatus, TrialStatus, search_lines

    search = SearchStatus(trials=[
        TrialStatus(trial_id="t0", phase="Completed", parameters={"lr": "0.03333333333333333"}, reward=0.8,
                    duration_s=19.4),
        TrialStatus(trial_id="t1", phase="Failed", parameters={"lr": "0.1"}, reward=0.95, duration_s=3.0),
        TrialStatus(trial_id="t2", phase="Completed", parameters={"lr": "0.01"}, reward=0.9, duration_s=75)])
    lines = search_lines("tune", SweepObjective(name="accuracy"), search)
    assert lines[0] == "tune (search): 3 trials, 1 failed; best t2 (accuracy 0.9, max)"
    assert lines[2].split() == ["1", "0.01", "Completed", "0.9", "1m15s", "t2"]
    assert lines[3].split() == ["2", "0.0333333", "Completed", "0.8", "19s", "t0"]
    assert lines[4].startswith("  not ranked") and lines[5].split() == ["-", "0.1", "Failed", "-", "3s", "t1"]


def test_a_trial_stopped_with_its_job_is_terminated() -> None:
    stopped = row(0, 0.1, "0.5")
    stopped[1] = "False"  # not done, not stopped early
    (trial,) = trials_of(page([stopped]))
    assert trial.phase == "Terminated" and not trial.early_stopped


def test_config_as_a_string_and_an_early_stop_column() -> None:
    header = ["trial_id", "status", "config", "reward_attr", "early_stopped"]
    rows = [["a", "TERMINATED", '{"lr": 0.1}', "0.5", "True"], ["b", "TERMINATED", '{"lr": 0.2}', "0.7", "False"]]
    trials = trials_of(page(rows, header))
    assert [(t.parameters, t.early_stopped) for t in trials] == [({"lr": "0.1"}, True), ({"lr": "0.2"}, False)]


class TrialsClient:
    """The trials of one search job; counts every request."""

    def __init__(self, rows: list[list[Any]], log: str = "", fail: bool = False) -> None:
        self.rows, self.log, self.fail = rows, log, fail
        self.trial_logs: dict[str, str] = {}
        self.calls: list[str] = []

    def all_trials(self, job_id: str, reward_name: str | None = None) -> list[Any]:
        self.calls.append(f"trials {job_id}")
        if self.fail:
            raise ModelArtsError("job not found", status=404, error_code="ModelArts.2775")
        return trials_of(page(self.rows), reward_name)

    def get_task_log_preview(self, job_id: str, task: str) -> Any:
        self.calls.append(f"log {job_id} {task}")
        if task.startswith("trial-"):
            if task not in self.trial_logs:
                raise ModelArtsError("no such task", status=400, error_code="ModelArts.2788")
            return type("Preview", (), {"text": self.trial_logs[task]})()
        return type("Preview", (), {"text": self.log})()


def test_a_failed_trial_names_its_log_tail() -> None:
    log = "t000 accuracy=0.9\nt001 starting\nt001 Traceback\nt001 ValueError: bad lr\nother line\n"
    client = TrialsClient([row(0, 0.1, "0.9"), row(1, 5.0, "", "ERROR")], log)
    search = read_search(client, "job-1", "accuracy")
    failed = [t for t in search.trials if t.phase == "Failed"]
    assert failed[0].note == "log tail: t001 starting | t001 Traceback | t001 ValueError: bad lr"
    assert client.calls == ["trials job-1", "log job-1 trial-t001", "log job-1 worker-0"]
    # where the trial has a log of its own (the local ModelArts' task trial-<id>), its last lines
    client = TrialsClient([row(0, 0.1, "0.9"), row(1, 5.0, "", "ERROR")], log)
    client.trial_logs["trial-t001"] = "lr=5.0\nepoch 1\nloss=nan\nFloatingPointError: nan loss\n"
    search = read_search(client, "job-1", "accuracy")
    assert [t.note for t in search.trials if t.phase == "Failed"] == [
        "log tail: epoch 1 | loss=nan | FloatingPointError: nan loss"]
    assert client.calls == ["trials job-1", "log job-1 trial-t001"]


def test_unreadable_trials_are_a_note_not_a_failure() -> None:
    search = read_search(TrialsClient([], fail=True), "job-1", "accuracy")
    assert search.trials == [] and search.note is not None and search.note.startswith("trials unavailable: ")


# --- the JobsAwait's reading and the export -------------------------------------------------------------

class Watched:
    def __init__(self, key: str, job_id: str) -> None:
        self.key, self.job_id = key, job_id


def waited_result(key: str, job_id: str) -> Any:
    from modelarts_provider.awaiting.conditions import Verdict
    from modelarts_provider.client.models import TrainingJob

    job = TrainingJob.model_validate({"metadata": {"id": job_id}, "status": {"phase": "Completed", "duration": 1000}})
    outcome = type("Outcome", (), {"verdict": Verdict.REACHED})()
    return type("Result", (), {"watched": Watched(key, job_id), "job": job, "outcome": outcome,
                               "phase": "Completed"})()


def test_one_request_reads_a_32_trial_search() -> None:
    rows = [row(i, 0.001 * (i + 1), f"{0.5 + i / 100:.2f}") for i in range(32)]
    client = TrialsClient(rows)
    args = JobsAwaitArgs(jobs={"tune": AwaitedJob(job_id="job-1", wait_for="completed",
                                                  search={"name": "accuracy", "regex": "accuracy=([0-9.]+)"})})
    statuses = {"tune": AwaitedStatus(job_id="job-1", wait_for="completed", phase="Completed", reached=True)}
    enrich(client, args, statuses, [waited_result("tune", "job-1")])
    assert client.calls == ["trials job-1"]
    assert len(statuses["tune"].search.trials) == 32
    lines = report_tables(args, statuses)
    assert lines[0] == "tune (search): 32 trials; best t031 (accuracy 0.81, max)"
    assert len(lines) == 2 + 20 + 1  # head, columns, 20 rows, "... 12 more"
    recorded = JobsAwaitOutputs.of(statuses)["statuses"]["tune"]
    assert len(recorded["search"]["trials"]) == 32


def test_the_export_has_every_trial_and_the_best() -> None:
    from modelarts_provider.client.models import TrainingJob

    job = TrainingJob.model_validate({"metadata": {"id": "job-1", "name": "tune-abc"}, "algorithm": {"outputs": [
        {"name": "train_url", "remote": {"obs": {"obs_url": "/bkt/outputs/tune/tune-abc/"}}}]}})
    search = read_search(TrialsClient([row(0, 0.1, "0.7"), row(1, 0.01, "0.9"), row(2, 0.5, "", "ERROR")]),
                         "job-1", "accuracy", job)
    out = export(SweepObjective(name="accuracy", goal="max"), search, "job-1")
    assert out["best"]["trialId"] == "t001" and out["best"]["reward"] == 0.9
    assert [t["trialId"] for t in out["trials"]] == ["t001", "t000", "t002"] and out["failures"] == 1
    assert set(out["trials"][0]) == {"trialId", "parameters", "phase", "reward", "earlyStopped", "note", "durationSeconds", "outputPath"}
    # Issue 41: each trial's outputs in a folder of its own under the job's; the best one's exported
    assert out["best"]["outputPath"] == "obs://bkt/outputs/tune/tune-abc/t001/"
    assert [t["outputPath"] for t in out["trials"]] == [f"obs://bkt/outputs/tune/tune-abc/{t}/"
                                                        for t in ("t001", "t000", "t002")]
    back = as_sweep_results(out)
    assert back.best is not None and back.best.key == "t001" and back.best.parameters["lr"] == 0.01
    assert back.best.output_path == "obs://bkt/outputs/tune/tune-abc/t001/"  # what `results` prints


def test_build_searches_from_the_recorded_statuses() -> None:
    p = planned()
    status = SearchStatus.model_validate({"trials": [{"trial_id": "t1", "phase": "Completed",
                                                      "parameters": {"lr": "0.01"}, "reward": 0.8}]})
    out = build_searches([p], {"tune": {"search": status.model_dump()}}, {"tune": "job-1"})
    assert out["tune"]["best"]["trialId"] == "t1" and out["tune"]["algorithm"] == "tpe_search"
    assert build_searches([p], {}, {})["tune"]["trials"] == []


def test_a_changed_search_objective_reads_the_trials_again_and_an_unchanged_one_nothing() -> None:
    from modelarts_provider.awaiting.provider import JobsAwaitProvider

    job = {"job_id": "job-1", "wait_for": "completed", "search": {"name": "accuracy", "regex": "a=(1)", "goal": "max"}}
    olds = {"jobs": {"tune": job}, "statuses": {"tune": {"job_id": "job-1", "wait_for": "completed", "reached": True}}}
    assert JobsAwaitProvider._changed(olds, {"tune": job}) == []
    assert JobsAwaitProvider._changed(olds, {"tune": {**job, "search": {**job["search"], "goal": "min"}}}) == ["tune"]


def test_loguniform_points_are_log_spaced() -> None:
    p = planned({**SEARCH, "space": {"lr": {"loguniform": [1e-5, 1e-1]}}, "skip": []})
    values = p.args.model_dump(mode="json", exclude_none=True)["algorithm"]["policies"]["auto_search"][
        "search_params"][0]["discrete_values"]
    ratios = {round(math.log10(float(b) / float(a)), 3) for a, b in zip(values, values[1:])}
    assert len(values) == 10 and len(ratios) == 1


@pytest.mark.parametrize("trials", [1, 1000])
def test_trials_bounds_accepted(trials: int) -> None:
    assert planned({**SEARCH, "trials": trials, "parallel": 1})


# --- `results <key> [--chart]` of a search ---------------------------------------------------------------

class FakeCli:
    stack = "dev"

    def __init__(self, outputs: dict[str, Any]) -> None:
        self.outputs = outputs

    def json(self, *args: str) -> Any:
        if args[:2] == ("stack", "export"):
            return {}  # no state of a plugin stack either
        assert args[:2] == ("stack", "output")
        return self.outputs


def test_results_of_a_search_like_a_sweep_with_a_labelled_log_chart(tmp_path: Any) -> None:
    from modelarts_provider.results.chart import log_rewards, write_chart
    from modelarts_provider.cli.results import sweep_results
    from modelarts_provider.results.table import table_lines

    rows = [row(i, lr, reward) for i, (lr, reward) in enumerate([(0.1, "2.5"), (0.01, "0.02"), (0.001, "0.004")])]
    exported = export(SweepObjective(name="loss", goal="min"), read_search(TrialsClient(rows), "job-1", "loss"),
                      "job-1")
    results = sweep_results(FakeCli({"searches": {"tune": exported}}), "tune")  # type: ignore[arg-type]
    lines = table_lines("tune", results)
    assert lines[0] == "tune: 3 points; best t002 (loss 0.004, min)"
    assert log_rewards([p.objective for p in results.points if p.objective is not None])
    assert not log_rewards([0.5, 0.9])
    path = write_chart("tune", results, tmp_path / "tune.png")
    assert path.read_bytes()[:4] == b"\x89PNG"
    from modelarts_provider.cli.stack_reader import LogsError

    with pytest.raises(LogsError, match="no sweep or search 'other' .*its sweeps and searches: tune"):
        sweep_results(FakeCli({"searches": {"tune": exported}}), "other")  # type: ignore[arg-type]


def test_an_imported_search_job_declares_its_search() -> None:
    from modelarts_provider.client.models import TrainingJob
    from modelarts_provider.training_job.from_live import declaration_of

    alg = planned().args.model_dump(mode="json", exclude_none=True)["algorithm"]
    live = TrainingJob.model_validate({"metadata": {"name": "tune-a", "id": "j1"}, "algorithm": {
        "code_dir": "obs://bucket-a/code/", "boot_file": "obs://bucket-a/code/train.py", "policies": alg["policies"]}})
    assert declaration_of(live)["algorithm"]["policies"] == alg["policies"]


def test_taking_over_a_job_with_another_search_names_the_difference() -> None:
    from modelarts_provider.training_job.args import TrainingJobArgs
    from modelarts_provider.client.models import TrainingJob
    from modelarts_provider.training_job.compare import mismatches

    def differences(a: Any, live: dict[str, Any]) -> list[str]:
        return mismatches(a, TrainingJob.model_validate(live))

    alg = planned().args.model_dump(mode="json", exclude_none=True)["algorithm"]
    args = TrainingJobArgs.model_validate(job_inputs(algorithm={**CODE, "policies": alg["policies"]}))
    live = {"metadata": {"name": "job-a"}, "algorithm": {**CODE, "policies": alg["policies"]}}
    assert not [d for d in differences(args, live) if "policies" in d]
    other = planned({**SEARCH, "algorithm": {"name": "anneal_search"}}).args.model_dump(
        mode="json", exclude_none=True)["algorithm"]["policies"]
    found = [d for d in differences(args, {**live, "algorithm": {**CODE, "policies": other}}) if "policies" in d]
    assert found == ["algorithm.policies.auto_search: declared 'tpe_search over lr, momentum, epochs, batch_size "
                     "scored by accuracy (max)', live 'anneal_search over lr, momentum, epochs, batch_size scored "
                     "by accuracy (max)'"]


def test_a_secret_search_is_refused_without_its_values() -> None:
    cache = CatalogCache(CatalogClient(), "cn-north-4", print)
    news = planned({**SEARCH, "algorithm": {"name": "tpe_serch"}, "parallel": None}).args.model_dump(
        mode="json", exclude_none=True)
    news["flavor_id"] = None
    news["algorithm"].pop("engine")
    news["secret_paths"] = ["algorithm.policies"]
    reasons = [f.reason for f in catalog_failures(news, cache)]
    assert reasons == ["modelarts-jobs:jobs.tune.search.algorithm.name: the search is not one the service's catalog "
                       "in cn-north-4 takes (a secret value, not shown)"]
    assert "tpe" not in reasons[0]


def test_each_poll_of_a_running_search_reads_its_trials_once_and_says_what_changed() -> None:
    from modelarts_provider.awaiting.args import Objective
    from modelarts_provider.awaiting.searches import SearchProgress
    from modelarts_provider.awaiting.watcher import Watched

    client = TrialsClient([row(i, 0.01 * (i + 1), f"0.{50 + i}") for i in range(32)])
    lines: list[str] = []
    progress = SearchProgress(client, lines.append, {"tune": Objective(name="accuracy", regex="accuracy=([0-9.]+)")})
    tune = Watched("tune", "job-1", "tune-x", "completed", 60, 1)
    other = Watched("plain", "job-2", "plain-x", "completed", 60, 1)
    running = type("View", (), {"phase": "Running"})()
    pending = type("View", (), {"phase": "Pending"})()
    progress([(tune, pending), (other, running)])
    assert client.calls == []  # not running yet, and not a search
    progress([(tune, running), (other, running)])
    progress([(tune, running)])
    assert client.calls == ["trials job-1", "trials job-1"]  # one request per poll for all 32 trials
    assert lines == ["tune-x: 32 trials (32 done, 0 running), best accuracy 0.81 (t031)"]  # said once: unchanged

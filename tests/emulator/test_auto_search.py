"""The service's own hyperparameter search in the local ModelArts, read by the official SDK
(huaweicloudsdkmodelarts) over real HTTP: the algorithm catalog, an auto-search job's trials and rewards
(simulated: deterministic, moved on by the emulated clock), early stop, the parameter analysis, the YAML
templates, and the create rules of ``algorithm.policies.auto_search``."""

from __future__ import annotations

import ast
import copy
import re

import pytest
from huaweicloudsdkcore.exceptions.exceptions import ClientRequestException
from huaweicloudsdkmodelarts.v1 import ModelArtsClient
from huaweicloudsdkmodelarts.v1 import model as m

from tests.emulator.helpers import Api, minimal_job

SEARCH = {
    "reward_attrs": [{"name": "accuracy", "mode": "max", "regex": r"accuracy=([0-9.]+)"}],
    "search_params": [
        {"name": "lr", "param_type": "continuous", "lower_bound": "0.001", "upper_bound": "0.1"},
        {"name": "batch_size", "param_type": "discrete", "discrete_values": ["16", "32", "64"]},
    ],
    "algo_configs": [{"name": "tpe_search", "params": [{"key": "num_samples", "value": "6", "type": "Integer"},
                                                       {"key": "max_concurrent", "value": "2"}]}],
}


def search_job(name: str = "search-1", search: dict | None = None) -> dict:
    body = minimal_job(name)
    body["algorithm"]["policies"] = {"auto_search": copy.deepcopy(search or SEARCH)}
    return body


def _table(items) -> list[dict]:
    return [dict(zip(items.header, row)) for row in items.data]


def _config(cell) -> dict:
    """The config cell: an object in the service's table, which the SDK turns into its str() (numbers as
    Decimal('...'), its JSON parser's)."""
    return cell if isinstance(cell, dict) else ast.literal_eval(re.sub(r"Decimal\('([^']*)'\)", r"\1", cell))


def test_sdk_lists_the_services_search_algorithms(sdk: ModelArtsClient) -> None:
    got = sdk.show_search_algorithms(m.ShowSearchAlgorithmsRequest())
    assert got.search_algo_count == 3
    by_name = {a.name: {p.key: (p.value, p.type) for p in a.params} for a in got.search_algo_list}
    assert set(by_name) == {"bayes_opt_search", "tpe_search", "anneal_search"}
    assert by_name["bayes_opt_search"]["kind"] == ("ucb", "String")
    assert by_name["tpe_search"]["gamma"] == ("0.25", "Float")
    assert by_name["anneal_search"]["shrink_coef"] == ("0.1", "Float")
    assert all(p["num_samples"] == ("20", "Integer") for p in by_name.values())


def test_sdk_reads_trials_and_rewards_as_the_clock_moves(api: Api, sdk: ModelArtsClient) -> None:
    job = api.create(search_job()).json()
    jid = job["metadata"]["id"]
    assert job["algorithm"]["policies"]["auto_search"]["search_params"][0]["lower_bound"] == "0.001"
    req = m.ShowAutoSearchTrialsRequest(training_job_id=jid)
    assert sdk.show_auto_search_trials(req).total == 0  # Creating: no trial yet
    api.advance(60 + 5)  # Creating + Pending (30 s each), then 5 s into the first wave of 2
    running = sdk.show_auto_search_trials(req)
    assert running.total == 2 and running.limit == 50 and running.offset == 0
    rows = _table(running.items)
    assert [r["status"] for r in rows] == ["RUNNING", "RUNNING"]
    assert {"trial_id", "config", "reward_attr", "accuracy", "best_reward", "done"} <= set(running.items.header)
    api.advance(60)  # the job's 60 s of run time: 3 waves of 20 s
    done = sdk.show_auto_search_trials(req)
    rows = _table(done.items)
    assert done.total == 6 and [r["status"] for r in rows] == ["TERMINATED"] * 6
    assert all(r["done"] == "True" for r in rows)
    assert api.phase(jid) == "Completed"
    rewards = [float(r["reward_attr"]) for r in rows]
    assert len(set(rewards)) > 1 and all(0.5 <= x <= 1 for x in rewards)
    for r in rows:  # each trial's own parameters, within the declared space
        cfg = _config(r["config"])
        assert 0.001 <= cfg["lr"] <= 0.1 and cfg["batch_size"] in (16, 32, 64)
        assert cfg["param/lr"] == cfg["lr"]
    best = max(rows, key=lambda r: float(r["reward_attr"]))
    one = sdk.show_auto_search_per_trial(m.ShowAutoSearchPerTrialRequest(training_job_id=jid,
                                                                         trial_id=best["trial_id"]))
    reports = _table(one)
    assert [r["training_iteration"] for r in reports] == ["1", "2", "3"]
    assert reports[-1]["done"] == "True" and reports[-1]["reward_attr"] == best["reward_attr"]
    # pages: offset counts pages
    page = sdk.show_auto_search_trials(m.ShowAutoSearchTrialsRequest(training_job_id=jid, limit=4, offset=1))
    assert page.count == 2 and [r[4] for r in page.items.data] == [r["trial_id"] for r in rows[4:]]


def test_sdk_early_stops_a_running_trial(api: Api, sdk: ModelArtsClient) -> None:
    jid = api.create(search_job()).json()["metadata"]["id"]
    api.advance(60 + 14)  # two reports of the first wave's trials
    first = _table(sdk.show_auto_search_trials(m.ShowAutoSearchTrialsRequest(training_job_id=jid)).items)[0]
    stopped = sdk.show_auto_search_trial_early_stop(
        m.ShowAutoSearchTrialEarlyStopRequest(training_job_id=jid, trial_id=first["trial_id"]))
    assert stopped.earlystop_trial == first["trial_id"]
    api.advance(60)
    rows = _table(sdk.show_auto_search_trials(m.ShowAutoSearchTrialsRequest(training_job_id=jid)).items)
    me = next(r for r in rows if r["trial_id"] == first["trial_id"])
    assert (me["status"], me["done"], me["early_stopped"], me["training_iteration"]) == (
        "TERMINATED", "False", "True", "2")
    assert all(r["early_stopped"] == "False" for r in rows if r is not me)
    with pytest.raises(ClientRequestException) as err:  # it has ended: nothing to stop
        sdk.show_auto_search_trial_early_stop(
            m.ShowAutoSearchTrialEarlyStopRequest(training_job_id=jid, trial_id=first["trial_id"]))
    assert err.value.error_code == "ModelArts.2788" and "RUNNING" in err.value.error_msg


def test_a_terminated_search_stops_its_trials(api: Api, sdk: ModelArtsClient) -> None:
    jid = api.create(search_job()).json()["metadata"]["id"]
    api.advance(60 + 25)  # the second wave runs
    api.terminate(jid)
    api.advance(60)
    rows = _table(sdk.show_auto_search_trials(m.ShowAutoSearchTrialsRequest(training_job_id=jid)).items)
    assert len(rows) == 4 and [r["done"] for r in rows] == ["True", "True", "False", "False"]
    assert all(r["status"] == "TERMINATED" for r in rows)


def test_analysis_and_yaml_templates(api: Api, sdk: ModelArtsClient) -> None:
    jid = api.create(search_job()).json()["metadata"]["id"]
    api.advance(200)
    analysis = sdk.show_auto_search_params_analysis(m.ShowAutoSearchParamsAnalysisRequest(training_job_id=jid))
    assert analysis.header == ["parameters", "the mean/std of importance"]
    assert [row[0] for row in analysis.data] == ["lr", "batch_size"]
    assert abs(sum(float(row[1].split("/")[0]) for row in analysis.data) - 1) < 0.01
    path = sdk.show_auto_search_param_analysis_result_path(
        m.ShowAutoSearchParamAnalysisResultPathRequest(training_job_id=jid, parameter_name="lr"))
    assert path.file_path.endswith("/hyperparameter-analysis/fanova/lr.png")
    infos = sdk.show_auto_search_yaml_templates_info(m.ShowAutoSearchYamlTemplatesInfoRequest())
    assert "TPE" in next(t for t in infos.yaml_templates if t.algorithm_type_en == "hpo").algorithm_names
    content = sdk.show_auto_search_yaml_template_content(
        m.ShowAutoSearchYamlTemplateContentRequest(algorithm_type="hpo", algorithm_name="Bayes"))
    assert content.file_name == "Bayes.yaml" and "bayes_opt_search" in content.content


def test_a_plain_job_has_no_trials(api: Api, sdk: ModelArtsClient) -> None:
    jid = api.create(minimal_job("plain")).json()["metadata"]["id"]
    with pytest.raises(ClientRequestException) as err:
        sdk.show_auto_search_trials(m.ShowAutoSearchTrialsRequest(training_job_id=jid))
    assert err.value.error_code == "ModelArts.2788" and "not an auto search job" in err.value.error_msg


def _with(path: list, value) -> dict:
    search = copy.deepcopy(SEARCH)
    target = search
    for key in path[:-1]:
        target = target[key]
    if value is None:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return search


@pytest.mark.parametrize("search, field, words", [
    (_with(["reward_attrs", 0, "mode"], "up"), "reward_attrs[0].mode", "max or min"),
    (_with(["reward_attrs", 0, "regex"], "accuracy=[0-9.]+"), "reward_attrs[0].regex", "capture group"),
    (_with(["reward_attrs", 0, "regex"], "accuracy=(["), "reward_attrs[0].regex", "not a valid regular"),
    (_with(["search_params", 0, "upper_bound"], "0.0001"), "search_params[0].upper_bound", "greater than"),
    (_with(["search_params", 0, "lower_bound"], None), "search_params[0].lower_bound", "is required"),
    (_with(["search_params", 0, "discrete_points_num"], "1"), "search_params[0].discrete_points_num",
     "at least 2"),
    (_with(["search_params", 1, "discrete_values"], []), "search_params[1].discrete_values", "non-empty"),
    (_with(["search_params", 1, "param_type"], "categorical"), "search_params[1].param_type", "continuous or"),
    (_with(["algo_configs", 0, "name"], "tpe"), "algo_configs[0].name", "unknown search algorithm"),
    (_with(["algo_configs", 0, "params", 0, "key"], "samples"), "algo_configs[0].params[0].key",
     "not a parameter of tpe_search"),
    (_with(["algo_configs", 0, "params", 0, "value"], "many"), "algo_configs[0].params[0].value",
     "must be an integer"),
    (_with(["algo_configs", 0, "name"], "bayes_opt_search"), "search_params[1]", "continuous parameters only"),
    (_with(["skip_search_params"], "momentum"), "skip_search_params", "not one of search_params"),
    (_with(["search_params"], []), "search_params", "non-empty"),
])
def test_create_refuses_a_bad_search_naming_the_field(api: Api, search: dict, field: str, words: str) -> None:
    r = api.create(search_job(search=search))
    assert r.status_code == 400, r.text
    body = r.json()
    assert body["error_code"] == "ModelArts.2788"
    assert f"algorithm.policies.auto_search.{field}" in body["error_msg"] and words in body["error_msg"]
    assert api.search({}).json()["total"] == 0  # nothing half-done


def test_a_parameter_searched_and_fixed_is_refused(api: Api) -> None:
    body = search_job()
    body["algorithm"]["parameters"] = [{"name": "lr", "value": "0.01"}]
    r = api.create(body)
    assert r.status_code == 400 and "either searched or fixed" in r.json()["error_msg"]


def test_skipped_parameters_and_a_min_objective(api: Api, sdk: ModelArtsClient) -> None:
    search = copy.deepcopy(SEARCH)
    search["skip_search_params"] = "batch_size"
    search["reward_attrs"] = [{"name": "loss", "mode": "min", "regex": r"loss=([0-9.]+)"}]
    search["search_params"][0].update(discrete_points_num="5")
    job = api.create(search_job(search=search)).json()
    echoed = job["algorithm"]["policies"]["auto_search"]
    assert echoed["skip_search_params"] == "batch_size" and echoed["search_params"][0]["discrete_points_num"] == "5"
    api.advance(200)
    req = m.ShowAutoSearchTrialsRequest(training_job_id=job["metadata"]["id"])
    rows = _table(sdk.show_auto_search_trials(req).items)
    grid = [0.001 + k * (0.1 - 0.001) / 4 for k in range(5)]
    for r in rows:
        cfg = _config(r["config"])
        assert set(cfg) == {"lr", "param/lr", "trial_index"}  # batch_size left out of the search
        assert min(abs(cfg["lr"] - g) for g in grid) < 1e-12  # one of the 5 points
        assert float(r["best_reward"]) == float(r["reward_attr"])  # a loss falls as the trial goes on
    losses = [float(r["loss"]) for r in rows]
    assert all(loss > 0 for loss in losses) and len(set(losses)) > 1


def test_without_optuna_an_executed_search_is_refused_before_anything_is_stored() -> None:
    from modelarts_emulator.auto_search.api import search_of_draft
    from modelarts_emulator.catalog.model import Catalog
    from modelarts_emulator.config import EmulatorConfig
    from modelarts_emulator.errors import ApiError
    from modelarts_emulator.jobs.validation import validate_create

    catalog = Catalog.load(EmulatorConfig().catalog)
    draft = validate_create(search_job(), catalog)
    with pytest.raises(ApiError) as err:
        search_of_draft(draft, None)  # the runner is None when Optuna cannot be imported
    assert err.value.code == "ModelArts.2788" and "Optuna" in err.value.msg
    assert search_of_draft(validate_create(minimal_job("plain"), catalog), None) is False

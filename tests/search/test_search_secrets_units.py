"""A secret in a search space, without the engine (issue 43, finding 2): what the stack program marks secret
in the request, what the JobsAwait records as a secret of its own, what the table prints, what the plugin sends.
The same end to end: tests/e2e/test_search_secrets.py."""

from __future__ import annotations

import pytest

from modelarts_provider.awaiting.args import AwaitedStatus, JobsAwaitOutputs
from modelarts_provider.awaiting.searches import SearchStatus, TrialStatus, search_lines
from modelarts_provider.core import masking
from modelarts_provider.core.secret_leaves import SECRET_SIG, SIG_KEY, is_secret, secret
from modelarts_provider.plugin.values import lift_secrets, property_map
from modelarts_provider.stack.search_config import SearchConfig
from modelarts_provider.stack.secrets import SecretPaths, job_selectors, mark_secrets

SECRET = "s3cr3t-choice-value"
CONFIG = {"objective": {"name": "accuracy", "regex": "accuracy=([0-9.]+)"},
          "space": {"lr": {"uniform": [0.001, 0.1]}, "variant": {"choice": ["a-secret", "plain-b"]}},
          "algorithm": {"name": "tpe_search", "params": {"n_initial_points": 2}}, "trials": 4}


def _marked(*secret_path: object, value: str = "a-secret") -> tuple[dict, list[str]]:
    search = SearchConfig.model_validate(CONFIG)
    props = {"algorithm": {"policies": {"auto_search": search.auto_search()}}, "name": "tune"}
    secrets = SecretPaths(paths=(("jobs", "tune", *secret_path),), values=frozenset({value}))
    return mark_secrets(props, job_selectors(secrets, "jobs", "tune", None, "gpu", search), secrets)


def test_a_secret_choice_marks_its_own_value_only():
    _props, marked = _marked("search", "space", "variant", "choice", 0)
    assert marked == ["algorithm.policies.auto_search.search_params.1.discrete_values.0"]


def test_a_secret_range_marks_its_bounds_and_a_secret_algorithm_parameter_its_value():
    assert _marked("search", "space", "lr", value="0.1")[1] == [
        "algorithm.policies.auto_search.search_params.0.lower_bound",
        "algorithm.policies.auto_search.search_params.0.upper_bound"]
    assert _marked("search", "algorithm", "params", "n_initial_points", value="2")[1] == [
        "algorithm.policies.auto_search.algo_configs.0.params.0.value"]
    assert _marked("search", "trials", value="4")[1] == ["algorithm.policies.auto_search.algo_configs.0.params.1.value"]


def test_a_whole_secret_search_is_all_secret():
    marked = _marked("search")[1]
    assert "algorithm.policies.auto_search.algo_configs.0.name" in marked  # the user's choice: all of it


@pytest.fixture
def known_secret():
    # the search job's secret input, as its JobsAwait gets it (`secrets`: the job's values at its secret_paths)
    yield masking.Secrets.of([SECRET], explicit=True)


def _status() -> AwaitedStatus:
    trials = [TrialStatus(trial_id="t1", phase="Completed", parameters={"variant": SECRET, "lr": "0.01"}, reward=0.9),
              TrialStatus(trial_id="t2", phase="Completed", parameters={"variant": "plain-b", "lr": "0.02"},
                          reward=0.8)]
    return AwaitedStatus(job_id="j", job_name="tune-x", wait_for="completed", phase="Completed", reached=True,
                         search=SearchStatus(trials=trials))


def test_the_jobs_await_records_a_drawn_secret_as_a_secret_of_its_own(known_secret):
    out = JobsAwaitOutputs.of({"tune": _status()}, secrets={"tune": known_secret})
    first, second = out["statuses"]["tune"]["search"]["trials"]
    assert first["parameters"] == {"variant": secret(SECRET), "lr": "0.01"}
    assert second["parameters"] == {"variant": "plain-b", "lr": "0.02"}
    # The plugin: a secret property value there, plain values beside it.
    plain, paths = lift_secrets(out)
    assert paths == ["statuses.tune.search.trials.0.parameters.variant"]
    values = property_map(plain, paths)
    variant = values["statuses"].value["tune"].value["search"].value["trials"].value[0].value["parameters"]
    assert variant.value["variant"].is_secret and not variant.value["lr"].is_secret
    assert not is_secret({SIG_KEY: SECRET_SIG}) and is_secret({SIG_KEY: SECRET_SIG, "value": 1})


def test_the_table_masks_a_drawn_secret_before_laying_out_its_columns(known_secret):
    lines = search_lines("tune", SearchConfig.model_validate(CONFIG).objective, _status().search,
                         secrets=known_secret)
    text = "\n".join(lines)
    assert SECRET not in text and "plain-b" in text and "0.01" in text
    header = next(line for line in lines if "variant" in line)
    # the column is as wide as its widest shown value ("plain-b", "variant"), not as the secret
    assert header.index("phase") - header.index("variant") == len("plain-b") + 2

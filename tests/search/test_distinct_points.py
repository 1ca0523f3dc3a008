"""The local search never repeats a point of a discrete space before every point has had a trial (issue 56,
item 4): Optuna's samplers (--execute) and the simulated trials alike; once exhausted, it says so."""

from __future__ import annotations

import optuna
import pytest

from modelarts_emulator.auto_search.samplers import DistinctAsk, distribution, sampler_for
from modelarts_emulator.auto_search.simulate import configs, repeats
from modelarts_emulator.auto_search.space import Search, space_size, validate

CHOICE = [{"name": "opt", "param_type": "discrete", "discrete_values": ["sgd", "adam", "adamw", "rmsprop"]}]
GRID = [*CHOICE, {"name": "n", "param_type": "continuous", "lower_bound": "1", "upper_bound": "3",
                  "discrete_points_num": "3"}]
MIXED = [*CHOICE, {"name": "x", "param_type": "continuous", "lower_bound": "0", "upper_bound": "1"}]


def _search(algorithm: str, space: list, seed: str = "1", **params: str) -> Search:
    body = {"reward_attrs": [{"name": "r", "mode": "max", "regex": "r=([0-9.]+)"}], "search_params": space,
            "algo_configs": [{"name": algorithm, "params": [{"key": "seed", "value": seed},
                                                             *({"key": k, "value": v} for k, v in params.items())]}]}
    found = Search.of({"policies": {"auto_search": validate(body, set())}})
    assert found is not None
    return found


def _run(search: Search, trials: int) -> tuple[list[tuple], list[str]]:
    sampler, _ = sampler_for(search)
    study = optuna.create_study(direction="maximize", sampler=sampler)
    asker = DistinctAsk(search, {p.name: distribution(p) for p in search.params})
    points, said = [], []
    for _ in range(trials):
        t, line = asker.ask(study)
        if line:
            said.append(line)
        points.append(tuple(t.params[p.name] for p in search.params))
        study.tell(t, 1.0 if t.params["opt"] == "adam" else 0.5)  # one value wins: samplers crowd around it
    return points, said


@pytest.mark.parametrize("algorithm, extra", [("tpe_search", {"n_initial_points": "2"}), ("anneal_search", {}),
                                              ("tpe_search", {"n_initial_points": "20"})])
@pytest.mark.parametrize("seed", ["1", "2", "3"])
def test_four_trials_over_a_four_value_choice_run_four_points(algorithm: str, extra: dict, seed: str) -> None:
    points, said = _run(_search(algorithm, CHOICE, seed, **extra), 4)
    assert sorted(p[0] for p in points) == ["adam", "adamw", "rmsprop", "sgd"]
    assert said == []


def test_a_grid_is_covered_before_any_repeat_and_the_log_says_when_repeats_begin() -> None:
    search = _search("tpe_search", GRID, n_initial_points="3")
    assert space_size(search) == 12
    points, said = _run(search, 15)
    assert len(set(points[:12])) == 12
    assert said == ["every one of the 12 points of the search space has had a trial: the remaining trials "
                    "repeat points (num_samples is more than the space's points)"]


def test_the_failed_picks_teach_the_study_nothing_it_counts() -> None:
    search = _search("anneal_search", CHOICE)
    sampler, _ = sampler_for(search)
    study = optuna.create_study(direction="maximize", sampler=sampler)
    asker = DistinctAsk(search, {p.name: distribution(p) for p in search.params})
    for _ in range(4):
        t, _ = asker.ask(study)
        study.tell(t, 1.0)
    done = study.get_trials(states=(optuna.trial.TrialState.COMPLETE,))
    assert len(done) == 4 and len({t.params["opt"] for t in done}) == 4


def test_a_space_with_a_continuous_parameter_is_asked_as_it_is() -> None:
    search = _search("tpe_search", MIXED, n_initial_points="2")
    assert space_size(search) is None
    points, said = _run(search, 6)
    assert len(points) == 6 and said == []


@pytest.mark.parametrize("seed", ["1", "7", "42"])
def test_simulated_trials_cover_the_space_before_repeating(seed: str) -> None:
    search = _search("tpe_search", GRID, seed)
    drawn = [(c["opt"], c["n"]) for c in configs(search, 14)]
    assert len(set(drawn[:12])) == 12
    assert configs(search, 14) == configs(search, 14)  # the same trials after a restart
    assert repeats(search, 11) is None and repeats(search, 12) is not None and "12 points" in repeats(search, 12)

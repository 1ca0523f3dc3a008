"""The Optuna samplers behind each catalog algorithm (no server): every algorithm finds a good point of a
smooth function in few trials, stays inside the declared space, and follows the declared direction."""

from __future__ import annotations

import optuna
import pytest

from modelarts_emulator.auto_search.samplers import AnnealSampler, distribution, sampler_for
from modelarts_emulator.auto_search.space import Search, validate

SPACE = [{"name": "x", "param_type": "continuous", "lower_bound": "0", "upper_bound": "1"},
         {"name": "n", "param_type": "continuous", "lower_bound": "1", "upper_bound": "9",
          "discrete_points_num": "9"},
         {"name": "c", "param_type": "discrete", "discrete_values": ["a", "b", "c"]}]


def _search(algorithm: str, mode: str, space=SPACE, **params: str) -> Search:
    body = {"reward_attrs": [{"name": "r", "mode": mode, "regex": "r=([0-9.]+)"}], "search_params": space,
            "algo_configs": [{"name": algorithm, "params": [{"key": k, "value": v} for k, v in params.items()]}]}
    found = Search.of({"policies": {"auto_search": validate(body, set())}})
    assert found is not None
    return found


def _f(cfg: dict) -> float:
    return (cfg["x"] - 0.3) ** 2 + ((cfg.get("n", 4) - 4) / 8) ** 2 + (0.0 if cfg.get("c", "b") == "b" else 0.2)


@pytest.mark.parametrize("algorithm, extra", [("tpe_search", {"n_initial_points": "5"}), ("anneal_search", {}),
                                              ("bayes_opt_search", {})])
@pytest.mark.parametrize("mode", ["min", "max"])
def test_each_algorithm_searches_the_declared_space(algorithm: str, extra: dict, mode: str) -> None:
    space = SPACE[:1] if algorithm == "bayes_opt_search" else SPACE  # Bayes: continuous only
    search = _search(algorithm, mode, space, **extra)
    sampler, how = sampler_for(search)
    assert how
    study = optuna.create_study(direction="minimize" if mode == "min" else "maximize", sampler=sampler)
    dists = {p.name: distribution(p) for p in search.params}
    if "n" in dists:
        assert dists["n"].choices == tuple(range(1, 10))  # integer bounds cut evenly: integer values
    values = []
    for _ in range(25):
        t = study.ask(dists)
        assert 0 <= t.params["x"] <= 1 and t.params.get("n", 1) in range(1, 10)
        v = _f(t.params) if mode == "min" else 1 - _f(t.params)
        values.append(v)
        study.tell(t, v)
    best = min(values) if mode == "min" else 1 - max(values)
    assert best < 0.05  # a good point of the space, found by the sampler


def test_anneal_samples_near_the_best_trials_as_they_accumulate() -> None:
    sampler = AnnealSampler(avg_best_idx=1.0, shrink_coef=1.0, seed=3)
    study = optuna.create_study(direction="minimize", sampler=sampler)
    dist = {"x": optuna.distributions.FloatDistribution(0, 1)}
    study.add_trial(optuna.trial.create_trial(params={"x": 0.2}, distributions=dist, value=0.0))
    for i in range(20):
        study.add_trial(optuna.trial.create_trial(params={"x": 0.9}, distributions=dist, value=1.0 + i))
    picks = [study.ask(dist).params["x"] for _ in range(20)]
    assert all(abs(x - 0.2) < 0.05 for x in picks)  # width (1 - 0) / (1 + 21): around the best trial


def test_discrete_points_cut_a_range_into_values() -> None:
    search = _search("tpe_search", "max", [{"name": "lr", "param_type": "continuous", "lower_bound": "0.1",
                                            "upper_bound": "0.5", "discrete_points_num": "5"}])
    assert search.params[0].grid() == pytest.approx((0.1, 0.2, 0.3, 0.4, 0.5))

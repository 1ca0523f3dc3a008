"""Optuna samplers for the catalog's algorithms (``--execute``): the next trials of a search are picked by a
real search algorithm, not by the emulator.

- ``tpe_search``: Optuna's TPESampler; ``n_initial_points`` random trials first (n_startup_trials), then
  the best ``gamma`` share of the trials forms l(x) (HyperOpt's meaning of both keys).
- ``bayes_opt_search``: Optuna's GPSampler (a Gaussian process, as the service's BayesOpt) when PyTorch is
  installed (GPSampler needs it); else Optuna's multivariate TPE, saying so in the job's log. ``kind``,
  ``kappa`` and ``xi`` (BayesOpt's acquisition function) have no Optuna counterpart and are not used.
- ``anneal_search``: HyperOpt's annealing rule on Optuna's sampler interface (Optuna has none of its own):
  pick a finished trial by a geometric draw over the trials ranked best first (mean ``avg_best_idx``),
  sample each parameter near that trial's value in a neighbourhood that shrinks as 1 / (1 + n *
  ``shrink_coef``) with the n trials seen so far.

Whatever the sampler, a space of discrete values has no point run twice before every point has run once
(DistinctAsk); after that, the job's log says the remaining trials repeat points.
"""

from __future__ import annotations

import importlib.util
import itertools
import math
import random
import warnings
from typing import Any

import numpy as np
import optuna
from optuna.distributions import BaseDistribution, CategoricalDistribution, FloatDistribution, IntDistribution
from optuna.samplers import BaseSampler, GPSampler, RandomSampler, TPESampler
from optuna.study import Study, StudyDirection
from optuna.trial import FrozenTrial, TrialState

from .space import Param, Search, space_size

optuna.logging.set_verbosity(optuna.logging.WARNING)


def distribution(p: Param) -> BaseDistribution:
    grid = p.grid()
    if grid is not None:
        return CategoricalDistribution(grid)
    return FloatDistribution(p.low, p.high)  # continuous is continuous: integers are discrete values or points


def sampler_for(search: Search) -> tuple[BaseSampler, str]:
    """The sampler and a line for the job's log saying what picks the trials."""
    a, seed = search.algo_params, search.seed
    if search.algorithm == "tpe_search":
        gamma = float(a["gamma"])
        startup = int(a["n_initial_points"])
        with warnings.catch_warnings():  # `gamma` is deprecated from Optuna 4.9 (removed in 6); pinned 4.9.0 has it
            warnings.simplefilter("ignore", FutureWarning)
            tpe = TPESampler(n_startup_trials=startup, gamma=lambda n: max(1, math.ceil(gamma * n)), seed=seed)
        return tpe, f"Optuna TPESampler (n_startup_trials={startup}, gamma={gamma:g})"
    if search.algorithm == "bayes_opt_search":
        if importlib.util.find_spec("torch") is not None:
            return GPSampler(seed=seed), "Optuna GPSampler (Gaussian process)"
        with warnings.catch_warnings():  # multivariate TPE is "experimental" in Optuna 4: said once, in the docs
            warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
            fallback = TPESampler(multivariate=True, seed=seed)
        return (fallback,
                "Optuna multivariate TPESampler (GPSampler needs PyTorch, which is not installed)")
    avg, shrink = float(a["avg_best_idx"]), float(a["shrink_coef"])
    return AnnealSampler(avg, shrink, seed), f"annealing (avg_best_idx={avg:g}, shrink_coef={shrink:g})"


class AnnealSampler(BaseSampler):
    def __init__(self, avg_best_idx: float, shrink_coef: float, seed: int) -> None:
        self.avg_best_idx = max(avg_best_idx, 1.0)
        self.shrink_coef = shrink_coef
        self._rng = np.random.RandomState(seed)
        self._random = RandomSampler(seed=seed)

    def infer_relative_search_space(self, study: Study, trial: FrozenTrial) -> dict[str, BaseDistribution]:
        return {}

    def sample_relative(self, study: Study, trial: FrozenTrial,
                        search_space: dict[str, BaseDistribution]) -> dict[str, Any]:
        return {}

    def sample_independent(self, study: Study, trial: FrozenTrial, param_name: str,
                           param_distribution: BaseDistribution) -> Any:
        done = [t for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
                if param_name in t.params and t.value is not None]
        if not done:
            return self._random.sample_independent(study, trial, param_name, param_distribution)
        best_first = sorted(done, key=lambda t: t.value,  # type: ignore[arg-type, return-value]
                            reverse=study.direction == StudyDirection.MAXIMIZE)
        pick = min(int(self._rng.geometric(1.0 / self.avg_best_idx)) - 1, len(best_first) - 1)
        centre = best_first[pick].params[param_name]
        shrinking = 1.0 / (1.0 + len(done) * self.shrink_coef)
        d = param_distribution
        if isinstance(d, CategoricalDistribution):
            if self._rng.random_sample() < shrinking:
                return d.choices[self._rng.randint(len(d.choices))]
            return centre
        if isinstance(d, (FloatDistribution, IntDistribution)):
            width = (d.high - d.low) * shrinking
            value = float(np.clip(centre + self._rng.uniform(-width / 2, width / 2), d.low, d.high))
            return int(round(value)) if isinstance(d, IntDistribution) else value
        return self._random.sample_independent(study, trial, param_name, param_distribution)


# --- no repeated point before the space is exhausted ------------------------------------------------------

RETRIES = 8  # the sampler's own picks tried before an unused point is drawn for it


class DistinctAsk:
    """Trials of a discrete space that never repeat a point until every point has had one.

    Samplers repeat points of small discrete spaces (TPE's random start drew one value of four, four times):
    a repeat costs a run and teaches nothing. A pick already run is handed back as FAIL, a state every sampler
    here ignores (it never ran), and the sampler asked again, RETRIES times; then an unused point, drawn at
    random (seeded), is enqueued for it. Once every point has had a trial, later trials repeat points and
    `ask` says so (the job's log: num_samples is more than the space's points). A space with a continuous
    parameter is asked as it is: a float drawn twice is not a concern."""

    def __init__(self, search: Search, space: dict[str, BaseDistribution]) -> None:
        self.space = space
        self.names = [p.name for p in search.params]
        self.grids = {p.name: p.grid() or () for p in search.params}
        self.size = space_size(search)
        self.used: set[tuple[Any, ...]] = set()
        self._rng = random.Random(search.seed)
        self._said = False

    def _key(self, params: dict[str, Any]) -> tuple[Any, ...]:
        return tuple(params.get(n) for n in self.names)

    def _unused(self) -> dict[str, Any]:
        for _ in range(64):
            point = {n: self._rng.choice(self.grids[n]) for n in self.names}
            if self._key(point) not in self.used:
                return point
        for values in itertools.product(*(self.grids[n] for n in self.names)):  # a nearly exhausted space
            if tuple(values) not in self.used:
                return dict(zip(self.names, values))
        raise AssertionError("no unused point in a space that is not exhausted")

    def ask(self, study: Study) -> tuple[optuna.trial.Trial, str | None]:
        """The next trial, and a line for the job's log when it repeats a point (the space is exhausted)."""
        if self.size is None:
            return study.ask(self.space), None
        if len(self.used) >= self.size:
            trial = study.ask(self.space)
            said = None if self._said else (
                f"every one of the {self.size} points of the search space has had a trial: the remaining trials "
                "repeat points (num_samples is more than the space's points)")
            self._said = True
            return trial, said
        for _ in range(RETRIES):
            trial = study.ask(self.space)
            key = self._key(trial.params)
            if key not in self.used:
                self.used.add(key)
                return trial, None
            study.tell(trial, state=TrialState.FAIL)  # never run: no sampler here learns from a failed trial
        point = self._unused()
        study.enqueue_trial(point)
        trial = study.ask(self.space)
        self.used.add(self._key(trial.params))
        return trial, None

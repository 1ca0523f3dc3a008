"""A job's `search` entry: the service's own hyperparameter search (`algorithm.policies.auto_search`).

    jobs:
      tune:
        ...                                    # any job with its own code or algorithm
        waitFor: completed
        search:
          objective: {name: accuracy, regex: 'accuracy=([0-9.]+)', goal: max}   # -> reward_attrs
          space:                                 # -> search_params, one per parameter
            lr: {loguniform: [0.0001, 0.1]}     #   points (default 10) log-spaced values -> discrete_values
            momentum: {uniform: [0.5, 0.99]}    #   continuous bounds (+ points -> discrete_points_num)
            epochs: {int: [1, 4]}               #   every integer in the bounds -> discrete_values
            batch_size: {choice: [32, 64, 128]} #   -> discrete_values
          algorithm: {name: tpe_search, params: {gamma: 0.25}}              # -> algo_configs
          trials: 8                              # -> the algorithm's num_samples
          parallel: 2                            # -> the algorithm's max_concurrent (trials at once)
          skip: [momentum]                       # searched parameters this job leaves out -> skip_search_params
          budget: {max: 50, currency: CNY}       # the search's own budget (not sent: docs/cost.md)

Every rule here is static (no API call); the algorithm's name and parameters are checked against the
service's algorithm catalog by the provider (training_job/search_check.py).
"""

from __future__ import annotations

import math
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic.alias_generators import to_camel

from ..core.linear_regex import check_objective
from ..core.messages import PARAM_NAME_RE, shown
from ..core.rules import MAX_TRIALS, rule
from ..cost.config import ItemBudget
from .sweep import as_param

Scalar = Union[str, int, float, bool]
ParamName = Annotated[str, Field(pattern=PARAM_NAME_RE)]

# The catalog keys the entry's own fields become (the service lists num_samples for its algorithms).
TRIALS_KEY = "num_samples"
PARALLEL_KEY = "max_concurrent"
# The service's Bayes template searches continuous parameters only (its YAML template says so).
CONTINUOUS_ONLY = frozenset({"bayes_opt_search"})
LOG_POINTS = 10      # values a loguniform range becomes when `points` is not given
MAX_INT_VALUES = 1000  # an int range becomes every integer in it: keep the request small


class _Cfg(BaseModel):
    model_config = ConfigDict(extra="forbid", alias_generator=to_camel, populate_by_name=False)


def _regex_one_group(v: str) -> str:
    """RE2 (linear time, as the JobsAwait matches objectives: core/linear_regex.py), exactly one group; the
    refusal names the pattern as written."""
    return check_objective(v)


class SearchObjective(_Cfg):
    """What a trial scored: the last match of `regex` (one group: the number) in its log."""

    name: Annotated[str, Field(min_length=1, max_length=64)]
    regex: Annotated[str, Field(min_length=1, max_length=500)]
    goal: Literal["max", "min"] = "max"

    _regex = field_validator("regex")(classmethod(lambda cls, v: _regex_one_group(v)))


class SpaceEntry(_Cfg):
    """One searched parameter: exactly one of uniform, loguniform, int (bounds) or choice (values)."""

    uniform: list[float] | None = None
    loguniform: list[float] | None = None
    # Whole numbers, checked below: a list[int] error would be located without its key.
    int_: list[float] | None = Field(default=None, alias="int")
    choice: list[Scalar] | None = None
    points: Annotated[int, Field(ge=2, le=1000)] | None = None  # how many values a range is cut into

    @model_validator(mode="after")
    def _one_form(self) -> SpaceEntry:
        forms = [k for k, v in (("uniform", self.uniform), ("loguniform", self.loguniform), ("int", self.int_),
                                ("choice", self.choice)) if v is not None]
        if len(forms) != 1:
            raise rule("", "set exactly one of uniform: [low, high], loguniform: [low, high], int: [low, high] "
                           f"or choice: [values]; found: {', '.join(forms) or 'none'}")
        form = forms[0]
        if form == "choice":
            values = self.choice or []
            if not values:
                raise rule("choice", "is empty: list at least one value")
            if len({as_param(v) for v in values}) != len(values):
                raise rule("choice", "values must be distinct (as the parameter strings they become: "
                                     f"{', '.join(as_param(v) for v in values)})")
            if self.points is not None:
                raise rule("points", "applies to uniform and loguniform ranges, not to choice")
            return self
        bounds = getattr(self, "int_" if form == "int" else form) or []
        if len(bounds) != 2:
            raise rule(form, f"needs two bounds [low, high], got {len(bounds)}")
        low, high = bounds
        if not all(math.isfinite(b) for b in bounds):
            raise rule(form, "bounds must be finite numbers")
        if low >= high:
            raise rule(form, f"bounds are out of order: low {low:g} must be less than high {high:g}")
        if form == "loguniform" and low <= 0:
            raise rule(form, f"bounds must be greater than 0 for a log scale, got low {low:g}")
        if form == "int":
            if not all(float(b).is_integer() for b in bounds):
                raise rule("int", f"bounds must be whole numbers, got {', '.join(f'{b:g}' for b in bounds)}")
            self.int_ = [int(b) for b in bounds]
            low, high = self.int_
            if self.points is not None:
                raise rule("points", "applies to uniform and loguniform ranges; an int range is every integer in it")
            if high - low + 1 > MAX_INT_VALUES:
                raise rule("int", f"spans {high - low + 1} integers, more than {MAX_INT_VALUES}: use uniform "
                                  "with points, or a narrower range")
        return self

    def search_param(self, name: str) -> dict[str, Any]:
        """The wire's search_params entry (strings, as the API takes them)."""
        if self.choice is not None:
            return {"name": name, "param_type": "discrete", "discrete_values": [as_param(v) for v in self.choice]}
        if self.int_ is not None:
            low, high = (int(b) for b in self.int_)
            return {"name": name, "param_type": "discrete", "discrete_values": [str(i) for i in range(low, high + 1)]}
        if self.loguniform is not None:
            # The API has no log scale: the range becomes log-spaced values the service picks among.
            low, high = self.loguniform
            n = self.points or LOG_POINTS
            values = [low * (high / low) ** (i / (n - 1)) for i in range(n)]
            return {"name": name, "param_type": "discrete", "discrete_values": [f"{v:.6g}" for v in values]}
        assert self.uniform is not None
        low, high = self.uniform
        out = {"name": name, "param_type": "continuous", "lower_bound": f"{low:g}", "upper_bound": f"{high:g}"}
        if self.points is not None:
            out["discrete_points_num"] = str(self.points)
        return out


AlgoValue = Union[str, int, float, bool, list[Scalar]]


class SearchAlgorithm(_Cfg):
    name: Annotated[str, Field(min_length=1, max_length=64)]
    params: dict[Annotated[str, Field(pattern=PARAM_NAME_RE)], AlgoValue] = Field(default_factory=dict)


def _algo_param(key: str, value: AlgoValue) -> dict[str, str]:
    """An algo_configs parameter: the value as a string and its catalog type (Integer, Float, String, List)."""
    if isinstance(value, bool):
        return {"key": key, "value": as_param(value), "type": "String"}
    if isinstance(value, int):
        return {"key": key, "value": str(value), "type": "Integer"}
    if isinstance(value, float):
        return {"key": key, "value": f"{value:g}", "type": "Float"}
    if isinstance(value, list):
        return {"key": key, "value": ",".join(as_param(v) for v in value), "type": "List"}
    return {"key": key, "value": value, "type": "String"}


class SearchConfig(_Cfg):
    objective: SearchObjective
    space: dict[ParamName, SpaceEntry]
    algorithm: SearchAlgorithm
    trials: Annotated[int, Field(ge=1, le=MAX_TRIALS)] | None = None
    parallel: Annotated[int, Field(ge=1, le=MAX_TRIALS)] | None = None
    skip: list[ParamName] = Field(default_factory=list)
    budget: ItemBudget | None = None  # the search's own budget (cost/budget.py); not part of the request

    @model_validator(mode="after")
    def _rules(self) -> SearchConfig:
        if not self.space:
            raise rule("space", "needs at least one parameter, e.g. lr: {loguniform: [0.0001, 0.1]}")
        for field, key in (("trials", TRIALS_KEY), ("parallel", PARALLEL_KEY)):
            if getattr(self, field) is not None and key in self.algorithm.params:
                raise rule(field, f"is the algorithm's {key}: set {field} or algorithm.params.{key}, not both")
        for key in (TRIALS_KEY, PARALLEL_KEY):
            given = self.algorithm.params.get(key)
            if given is not None and (isinstance(given, bool) or not isinstance(given, int)
                                      or not 1 <= given <= MAX_TRIALS):
                raise rule(f"algorithm.params.{key}", f"must be a whole number from 1 to {MAX_TRIALS} (the trials a "
                                                      f"search may run), got {shown(given)}")
        if self.trials is not None and self.parallel is not None and self.parallel > self.trials:
            raise rule("parallel", f"{self.parallel} trials at once is more than trials ({self.trials})")
        outside = [k for k in self.skip if k not in self.space]
        if outside:
            raise rule("skip", f"{outside[0]} is not in space ({', '.join(self.space)}): skip names searched "
                               "parameters this job leaves out (the script's default applies)")
        if len(set(self.skip)) != len(self.skip):
            raise rule("skip", "names a parameter twice")
        if set(self.skip) >= set(self.space):
            raise rule("skip", "leaves no parameter to search")
        if self.algorithm.name in CONTINUOUS_ONLY:
            discrete = [k for k, e in self.space.items() if e.uniform is None or e.points is not None]
            if discrete:
                raise rule(f"space.{discrete[0]}", f"{self.algorithm.name} searches continuous ranges only (uniform "
                                                   "without points); use tpe_search or anneal_search for int, "
                                                   "loguniform, choice or points")
        return self

    def auto_search(self) -> dict[str, Any]:
        """algorithm.policies.auto_search of the create request."""
        params = [_algo_param(k, v) for k, v in self.algorithm.params.items()]
        if self.trials is not None:
            params.append(_algo_param(TRIALS_KEY, self.trials))
        if self.parallel is not None:
            params.append(_algo_param(PARALLEL_KEY, self.parallel))
        out: dict[str, Any] = {
            "reward_attrs": [{"name": self.objective.name, "mode": self.objective.goal, "regex": self.objective.regex}],
            "search_params": [entry.search_param(name) for name, entry in self.space.items()],
            "algo_configs": [{"name": self.algorithm.name, "params": params}],
        }
        if self.skip:
            out["skip_search_params"] = ",".join(self.skip)
        return out


    def secret_targets(self, rel: tuple[Any, ...]) -> list[tuple[Any, ...]] | None:
        """The inputs under `algorithm.policies.auto_search` that a secret at `search.<rel>` becomes: the values
        only (a choice's value, a range's bounds, an algorithm parameter's value, the regex), never the names,
        which are the keys of every trial's parameters and of the exports. None: all of it (a secret `search`,
        `objective` or the names themselves). List entries are selected by their `name` or `key`."""
        if not rel:
            return None
        head, rest = rel[0], rel[1:]
        if head == "space" and (not rest or rest[0] in self.space):
            out: list[tuple[Any, ...]] = []
            for name in ([rest[0]] if rest else list(self.space)):
                if len(rest) >= 3 and rest[1] == "choice" and isinstance(rest[2], int):
                    out.append(("search_params", name, "discrete_values", rest[2]))
                else:
                    out += [("search_params", name, k) for k in SPACE_VALUE_KEYS]
            return out
        algo = ("algo_configs", self.algorithm.name, "params")
        if head == "algorithm" and len(rest) >= 2 and rest[0] == "params":
            return [algo + (str(rest[1]), "value")]
        if head == "algorithm" and rest == ("params",):
            return [algo + (str(k), "value") for k in self.algorithm.params]
        if head in ("trials", "parallel"):
            return [algo + (TRIALS_KEY if head == "trials" else PARALLEL_KEY, "value")]
        if head == "objective" and rest[:1] == ("regex",):
            return [("reward_attrs", self.objective.name, "regex")]
        if head == "budget":
            return []  # never sent
        return None


# What a searched parameter's values become in its search_params entry (its name and type stay plain).
SPACE_VALUE_KEYS = ("discrete_values", "lower_bound", "upper_bound", "discrete_points_num")


SEARCH_MODEL_NAMES = frozenset({"SearchConfig", "SearchObjective", "SpaceEntry", "SearchAlgorithm"})

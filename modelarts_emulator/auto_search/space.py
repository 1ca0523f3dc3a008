"""``algorithm.policies.auto_search`` of a create request: its rules, and the search it declares.

``validate`` checks a request's auto_search and returns it as the job echoes it (every value a string,
as the SDK's JobAlgorithmResponsePoliciesAutoSearch types it); ``Search.of`` reads a stored job's back.
Every violation is the service's parameter error (ModelArts.2788) naming the field and what is allowed,
raised before anything is stored.
"""

from __future__ import annotations

import math
import re
import random
from dataclasses import dataclass
from typing import Any

from .. import errors
from .catalog import ALGORITHMS, KIND_VALUES, MAX_CONCURRENT, AlgoParam

WHERE = "algorithm.policies.auto_search"
PARAM_TYPES = ("continuous", "discrete")
MODES = ("max", "min")
INT_RE = re.compile(r"^[+-]?\d+\Z")


def _bad(field: str, reason: str) -> errors.ApiError:
    return errors.invalid_param(f"{WHERE}.{field}", reason)


def _text(value: Any, field: str, required: bool = True) -> str | None:
    if value is None or value == "":
        if required:
            raise _bad(field, "is required")
        return None
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise _bad(field, "must be a string")
    return str(value)


def _number(value: Any, field: str) -> float:
    text = _text(value, field)
    assert text is not None
    try:
        out = float(text)
    except ValueError:
        raise _bad(field, f"must be a number, got {text!r}") from None
    if not math.isfinite(out):
        raise _bad(field, f"must be a finite number, got {text!r}")
    return out


@dataclass(frozen=True)
class Reward:
    name: str
    mode: str   # max | min
    regex: str  # its first group is the value

    def better(self, a: float, b: float) -> bool:
        return a > b if self.mode == "max" else a < b

    def read(self, text: str) -> float | None:
        """The last value the regex finds in ``text`` (a log), or None."""
        last = None
        for m in re.finditer(self.regex, text):
            try:
                last = float(m.group(1))
            except (TypeError, ValueError, IndexError):
                continue
        return last


@dataclass(frozen=True)
class Param:
    name: str
    kind: str                      # continuous | discrete
    low: float = 0.0
    high: float = 0.0
    points: int | None = None      # discrete_points_num: a continuous range cut into this many values
    values: tuple[str, ...] = ()   # discrete_values
    integer: bool = False          # both bounds written as integers: an evenly cut range gives integers

    def grid(self) -> tuple[Any, ...] | None:
        """The finite set of values, or None for a truly continuous range."""
        if self.kind == "discrete":
            return self.values
        if self.points is None:
            return None
        step = (self.high - self.low) / (self.points - 1)
        if self.integer and step == int(step):  # 16..128 in 8 points: 16, 32, ... 128, integers
            return tuple(int(self.low) + k * int(step) for k in range(self.points))
        return tuple(self.low + k * step for k in range(self.points))

    def unit(self, value: Any) -> float:
        """The value's place in the range, 0..1 (discrete: its index)."""
        grid = self.grid()
        if self.kind == "discrete" and grid:
            return grid.index(str(value)) / max(1, len(grid) - 1) if str(value) in grid else 0.5
        return (float(value) - self.low) / (self.high - self.low)

    def sample(self, rnd: random.Random) -> Any:
        grid = self.grid()
        if grid is not None:
            return grid[rnd.randrange(len(grid))]
        return self.low + rnd.random() * (self.high - self.low)

    @staticmethod
    def text(value: Any) -> str:
        return repr(value) if isinstance(value, float) else str(value)


@dataclass(frozen=True)
class Search:
    reward: Reward
    metrics: tuple[Reward, ...]            # every reward_attrs entry; the first is the objective
    params: tuple[Param, ...]              # searched (skip_search_params left out)
    algorithm: str
    algo_params: dict[str, str]            # the catalog's defaults with the request's values

    @property
    def num_samples(self) -> int:
        return int(self.algo_params["num_samples"])

    @property
    def max_concurrent(self) -> int:
        return int(self.algo_params.get("max_concurrent", MAX_CONCURRENT.value))

    @property
    def seed(self) -> int:
        return int(self.algo_params.get("seed", "1"))

    @classmethod
    def of(cls, algorithm: dict[str, Any] | None) -> "Search | None":
        """The search a stored job declares (its echoed auto_search), or None for a plain job."""
        found = ((algorithm or {}).get("policies") or {}).get("auto_search")
        if not found:
            return None
        return _parse(found, set())


def validate(value: Any, fixed: set[str]) -> dict[str, Any] | None:
    """The echoed auto_search of a request, or None when it has none; ``fixed``: the names the request's
    ``algorithm.parameters`` sets (a parameter cannot be both searched and fixed)."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise errors.invalid_param(WHERE, "must be an object")
    if not value:
        return None
    _parse(value, fixed)
    return _echo(value)


def _echo(value: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if value.get("skip_search_params"):
        out["skip_search_params"] = str(value["skip_search_params"])
    out["reward_attrs"] = [{k: str(r[k]) for k in ("name", "mode", "regex")} for r in value["reward_attrs"]]
    params = []
    for p in value["search_params"]:
        item = {"name": str(p["name"]), "param_type": str(p["param_type"])}
        for k in ("lower_bound", "upper_bound", "discrete_points_num"):
            if p.get(k) not in (None, ""):
                item[k] = str(p[k])
        if p.get("discrete_values"):
            item["discrete_values"] = [str(v) for v in p["discrete_values"]]
        params.append(item)
    out["search_params"] = params
    out["algo_configs"] = [{"name": str(c["name"]),
                            "params": [{"key": str(q["key"]), "value": str(q["value"]),
                                        **({"type": str(q["type"])} if q.get("type") else {})}
                                       for q in c.get("params") or []]}
                           for c in value["algo_configs"]]
    return out


def _list(value: Any, field: str) -> list[Any]:
    if not isinstance(value, list) or not value:
        raise _bad(field, "must be a non-empty array")
    return value


def _item(value: Any, field: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _bad(field, "must be an object")
    return value


def _parse(value: dict[str, Any], fixed: set[str]) -> Search:
    known = {"skip_search_params", "reward_attrs", "search_params", "algo_configs"}
    unknown = sorted(set(value) - known)
    if unknown:
        raise _bad(unknown[0], f"is not a field of auto_search (allowed: {', '.join(sorted(known))})")
    rewards = tuple(_reward(_item(r, f"reward_attrs[{i}]"), i)
                    for i, r in enumerate(_list(value.get("reward_attrs"), "reward_attrs")))
    names = [r.name for r in rewards]
    if len(set(names)) != len(names):
        raise _bad("reward_attrs", f"metric names must be unique, got {names}")
    params = [_param(_item(p, f"search_params[{i}]"), i)
              for i, p in enumerate(_list(value.get("search_params"), "search_params"))]
    seen: set[str] = set()
    for i, p in enumerate(params):
        if p.name in seen:
            raise _bad(f"search_params[{i}].name", f"{p.name!r} is declared twice")
        seen.add(p.name)
        if p.name in fixed:
            raise _bad(f"search_params[{i}].name",
                       f"{p.name!r} is also set in algorithm.parameters; a parameter is either searched or fixed")
    skip = _text(value.get("skip_search_params"), "skip_search_params", required=False) or ""
    skipped = [s.strip() for s in skip.split(",") if s.strip()]
    for s in skipped:
        if s not in seen:
            raise _bad("skip_search_params", f"{s!r} is not one of search_params ({', '.join(sorted(seen))}); "
                                             "write the searched names to leave out, separated by commas")
    searched = tuple(p for p in params if p.name not in skipped)
    if not searched:
        raise _bad("skip_search_params", "leaves no parameter to search")
    configs = _list(value.get("algo_configs"), "algo_configs")
    if len(configs) != 1:
        raise _bad("algo_configs", f"must hold exactly one search algorithm, got {len(configs)}")
    name, algo_params = _algo(_item(configs[0], "algo_configs[0]"))
    if ALGORITHMS[name].continuous_only:
        for i, p in enumerate(params):
            if p.grid() is not None:
                raise _bad(f"search_params[{i}]", f"{name} searches continuous parameters only; {p.name!r} is "
                                                  "discrete (use tpe_search or anneal_search, or drop "
                                                  "discrete_values/discrete_points_num)")
    return Search(rewards[0], rewards, searched, name, algo_params)


def _reward(r: dict[str, Any], i: int) -> Reward:
    at = f"reward_attrs[{i}]"
    name = _text(r.get("name"), f"{at}.name")
    mode = _text(r.get("mode"), f"{at}.mode")
    if mode not in MODES:
        raise _bad(f"{at}.mode", f"must be max or min, got {mode!r}")
    regex = _text(r.get("regex"), f"{at}.regex")
    assert name and regex
    try:
        compiled = re.compile(regex)
    except re.error as exc:
        raise _bad(f"{at}.regex", f"is not a valid regular expression: {exc}") from None
    if compiled.groups < 1:
        raise _bad(f"{at}.regex", "must have a capture group around the metric's value, e.g. "
                                  f"{re.escape(name)}=([0-9.eE+-]+)")
    return Reward(name, mode, regex)


def _param(p: dict[str, Any], i: int) -> Param:
    at = f"search_params[{i}]"
    name = _text(p.get("name"), f"{at}.name")
    assert name
    kind = _text(p.get("param_type"), f"{at}.param_type")
    if kind not in PARAM_TYPES:
        raise _bad(f"{at}.param_type", f"must be continuous or discrete, got {kind!r}")
    if kind == "discrete":
        for k in ("lower_bound", "upper_bound", "discrete_points_num"):
            if p.get(k) not in (None, ""):
                raise _bad(f"{at}.{k}", "is for continuous parameters; a discrete one lists discrete_values")
        values = p.get("discrete_values")
        if not isinstance(values, list) or not values:
            raise _bad(f"{at}.discrete_values", "must be a non-empty array of values")
        texts = tuple(_text(v, f"{at}.discrete_values[{j}]") or "" for j, v in enumerate(values))
        if len(set(texts)) != len(texts):
            raise _bad(f"{at}.discrete_values", f"values must be unique, got {list(texts)}")
        return Param(name, kind, values=texts)
    if p.get("discrete_values"):
        raise _bad(f"{at}.discrete_values", "is for discrete parameters; a continuous one has "
                                            "lower_bound and upper_bound")
    low, high = _number(p.get("lower_bound"), f"{at}.lower_bound"), _number(p.get("upper_bound"), f"{at}.upper_bound")
    if not low < high:
        raise _bad(f"{at}.upper_bound", f"must be greater than lower_bound ({low:g}), got {high:g}")
    integer = all(INT_RE.match(str(p.get(k)).strip()) for k in ("lower_bound", "upper_bound"))
    points = None
    if p.get("discrete_points_num") not in (None, ""):
        raw = str(p["discrete_points_num"]).strip()
        if not INT_RE.match(raw) or int(raw) < 2:
            raise _bad(f"{at}.discrete_points_num", f"must be an integer of at least 2, got {raw!r}")
        points = int(raw)
    return Param(name, kind, low, high, points, integer=integer)


def _algo(c: dict[str, Any]) -> tuple[str, dict[str, str]]:
    name = _text(c.get("name"), "algo_configs[0].name")
    algo = ALGORITHMS.get(name or "")
    if algo is None:
        raise _bad("algo_configs[0].name", f"unknown search algorithm {name!r} "
                                           f"(allowed: {', '.join(ALGORITHMS)})")
    out = {p.key: p.value for p in algo.params}
    raw = c.get("params")
    if raw is not None and not isinstance(raw, list):
        raise _bad("algo_configs[0].params", "must be an array of {key, value, type}")
    for j, q in enumerate(raw or []):
        at = f"algo_configs[0].params[{j}]"
        q = _item(q, at)
        key = _text(q.get("key"), f"{at}.key")
        spec = algo.param(key or "") or (MAX_CONCURRENT if key == MAX_CONCURRENT.key else None)
        if spec is None:
            allowed = [p.key for p in algo.params] + [MAX_CONCURRENT.key]
            raise _bad(f"{at}.key", f"{key!r} is not a parameter of {algo.name} (allowed: {', '.join(allowed)})")
        out[spec.key] = _algo_value(spec, q.get("value"), f"{at}.value")
    return algo.name, out


def _algo_value(spec: AlgoParam, value: Any, at: str) -> str:
    text = _text(value, at)
    assert text is not None
    if spec.type == "Integer":
        if not INT_RE.match(text.strip()):
            raise _bad(at, f"{spec.key} must be an integer, got {text!r}")
        low = 0 if spec.key in ("n_initial_points", "seed") else 1
        if int(text) < low:
            raise _bad(at, f"{spec.key} must be at least {low}, got {text}")
        return str(int(text))
    if spec.type == "Float":
        try:
            number = float(text)
        except ValueError:
            raise _bad(at, f"{spec.key} must be a number, got {text!r}") from None
        if spec.key == "gamma" and not 0 < number < 1:
            raise _bad(at, f"gamma must be between 0 and 1 (exclusive), got {text}")
        if spec.key in ("kappa", "xi", "avg_best_idx", "shrink_coef") and number < 0:
            raise _bad(at, f"{spec.key} must not be negative, got {text}")
        return text
    if spec.key == "kind" and text not in KIND_VALUES:
        raise _bad(at, f"kind must be one of {', '.join(KIND_VALUES)}, got {text!r}")
    return text


def space_size(search: Search) -> int | None:
    """How many points a space of discrete values has (None: a continuous parameter makes it infinite)."""
    size = 1
    for p in search.params:
        grid = p.grid()
        if grid is None:
            return None
        size *= len(grid)
    return size

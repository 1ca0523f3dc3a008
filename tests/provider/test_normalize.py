"""Equivalent declarations are one declaration: same canonical inputs, same spec_hash, no diff.

Property test: a declaration is drawn, then two spellings of it (defaults written or omitted,
parameters as a map or a list of {name, value}, numbers/booleans or their strings as parameter values,
environments as a map or a list of maps).
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from modelarts_provider.training_job.check import check_inputs
from modelarts_provider.training_job.diff import decide
from modelarts_provider.training_job.normalize import canonical, spec_hash, spec_of

ENGINE = {"engine_name": "PyTorch", "engine_version": "1.8"}
PARAM_NAMES = ["lr", "batch_size", "epochs", "seed", "opt.name", "drop-out", "x1"]
ENV_NAMES = ["A", "B_1", "DATA_DIR", "mode.x", "_HIDDEN"]
# Fields a declaration may write out with their default value, or leave out.
DEFAULTS = {"description": "", "node_count": 1, "wait_for": "created", "wait_timeout_seconds": 3600,
            "poll_interval_seconds": 5.0, "delete_timeout_seconds": 900,
            "replace_failed": False, "kind": "job", "annotations": {}, "volumes": [], "derived_name": False}
ALGORITHM_DEFAULTS = {"inputs": [], "parameters": [], "environments": {}}

safe_text = st.text(alphabet=st.characters(codec="ascii", categories=["L", "N"], include_characters="_-./ "),
                    max_size=12)
param_value = st.one_of(st.integers(-10**6, 10**6), st.floats(allow_nan=False, allow_infinity=False, width=32),
                        st.booleans(), safe_text)


def as_text(v: Any) -> str:
    """The documented string form of a parameter value."""
    if isinstance(v, bool):
        return str(v).lower()
    return str(v)


@st.composite
def declaration(draw: st.DrawFn) -> dict[str, Any]:
    params = draw(st.dictionaries(st.sampled_from(PARAM_NAMES), param_value, max_size=5))
    envs = draw(st.dictionaries(st.sampled_from(ENV_NAMES), safe_text, max_size=4))
    return {
        "name": "job-a",
        "flavor_id": draw(st.sampled_from(["modelarts.vm.cpu.2u", "modelarts.p3.large.public"])),
        "node_count": draw(st.sampled_from([1, 1, 2])),
        "description": draw(st.sampled_from(["", "a run"])),
        "params": params,
        "envs": envs,
        "outputs": draw(st.sampled_from([[], [{"name": "train_url", "obs_url": "obs://bkt/out/"}]])),
    }


@st.composite
def spelling(draw: st.DrawFn, d: dict[str, Any]) -> dict[str, Any]:
    """One way of writing declaration d."""
    params: Any
    items = [(k, v if draw(st.booleans()) else as_text(v)) for k, v in d["params"].items()]
    if draw(st.booleans()):
        params = dict(items)
    else:
        params = [{"name": k, "value": v} for k, v in items]
    env_items = list(d["envs"].items())
    env_form = draw(st.sampled_from(["map", "one map in a list", "a map per variable"]))
    envs: Any = (dict(env_items) if env_form == "map" else [dict(env_items)] if env_form == "one map in a list"
                 else [{k: v} for k, v in env_items])
    algorithm: dict[str, Any] = {"code_dir": "obs://bkt/code/", "boot_file": "obs://bkt/code/train.py",
                                 "engine": dict(ENGINE)}
    if params or draw(st.booleans()):
        algorithm["parameters"] = params
    if env_items or draw(st.booleans()):
        algorithm["environments"] = envs
    if d["outputs"] or draw(st.booleans()):
        algorithm["outputs"] = d["outputs"]
    if draw(st.booleans()):
        algorithm["inputs"] = []
    out: dict[str, Any] = {"name": d["name"], "flavor_id": d["flavor_id"], "algorithm": algorithm}
    for key, default in DEFAULTS.items():
        value = d.get(key, default)
        if value != default or draw(st.booleans()):
            out[key] = value
    return out


@st.composite
def two_spellings(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any]]:
    d = draw(declaration())
    return draw(spelling(d)), draw(spelling(d))


def checked(raw: dict[str, Any], olds: dict[str, Any] | None = None) -> dict[str, Any]:
    inputs, failures = check_inputs(raw, olds)
    assert failures == [], (raw, failures)
    return inputs


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(two_spellings())
def test_equivalent_declarations_have_one_canonical_form_one_hash_and_no_diff(pair):
    a, b = pair
    ca, cb = checked(a), checked(b)
    assert ca == cb
    assert spec_hash(a) == spec_hash(b) == spec_hash(ca)
    for old, new in ((ca, b), (cb, a)):
        st_ = {**old, "job_id": "j1", "job_name": old["name"], "phase": "Running"}
        d = decide("j1", st_, checked(new, st_))
        assert not d.changes, (d, a, b)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(two_spellings(), st.sampled_from(["flavor_id", "node_count", "parameter"]))
def test_a_real_change_changes_the_hash_and_replaces(pair, what):
    a, _ = pair
    changed = {**a, "algorithm": dict(a["algorithm"])}
    if what == "flavor_id":
        changed["flavor_id"] = "modelarts.vm.cpu.8u"
    elif what == "node_count":
        changed["node_count"] = 3
    else:
        params = changed["algorithm"].get("parameters") or []
        if isinstance(params, dict):
            params = [{"name": k, "value": v} for k, v in params.items()]
        changed["algorithm"]["parameters"] = [p for p in params if p["name"] != "zz"] + [{"name": "zz", "value": "1"}]
    assert spec_hash(changed) != spec_hash(a)
    ca = checked(a)
    d = decide("j1", {**ca, "job_id": "j1", "job_name": "job-a"}, checked(changed))
    assert d.replaces and d.replaces != ["name"]


def test_the_hash_ignores_what_never_replaces():
    base = {"name": "job-a", "flavor_id": "f", "algorithm": {"id": "alg"}}
    h = spec_hash(base)
    for over in ({"name": "job-b"}, {"description": "x"}, {"wait_for": "completed"}, {"replace_failed": True},
                 {"delete_before_replace": False}, {"derived_name": True}, {"poll_interval_seconds": 1}):
        assert spec_hash({**base, **over}) == h, over
    assert spec_hash({**base, "flavor_id": "g"}) != h
    assert spec_hash({**base, "name": None}) == h  # a derived name is not known when the keepers are


def test_canonical_form_spells_the_shapes_once():
    c = canonical({"name": "job-a", "flavor_id": "f",
                   "algorithm": {"code_dir": "obs://bkt/code/", "boot_file": "obs://bkt/code/t.py", "engine": ENGINE,
                                 "parameters": {"lr": 0.5, "on": True, "n": 3},
                                 "environments": [{"A": "1"}, {"B": "2"}]}})
    assert c["algorithm"]["parameters"] == [{"name": "lr", "value": "0.5"}, {"name": "on", "value": "true"},
                                            {"name": "n", "value": "3"}]
    assert c["algorithm"]["environments"] == {"A": "1", "B": "2"}
    assert c["node_count"] == 1 and c["wait_for"] == "created" and "pool_id" not in c
    assert "name" not in spec_of(c) and "description" not in spec_of(c) and "wait_for" not in spec_of(c)

from __future__ import annotations

import pytest

from modelarts_provider.stack.program import plan
from modelarts_provider.stack.config import StackConfigError, parse
from modelarts_provider.stack.sweep import point_names

BASE = {
    "obs": {"main": {"bucket": "my-bucket"}},
    "pools": {"cpu": {"flavor": "modelarts.vm.cpu.2u", "maxNodes": 2}},
    "jobs": {"mnist": {"pool": "cpu", "codeDir": "mnist/", "bootFile": "train.py",
                       "engine": {"name": "PyTorch", "version": "1.8"}, "inputs": {"data_url": "mnist/"},
                       "parameters": {"lr": 0.1}}},
}


def test_plan_resolves_obs_and_pools():
    (p,) = plan(parse(BASE))
    a = p.args
    assert p.key == "mnist" and a.name is None  # derived at deploy time
    assert a.algorithm.code_dir == "obs://my-bucket/code/mnist/"
    assert a.algorithm.boot_file == "obs://my-bucket/code/mnist/train.py"
    assert a.algorithm.inputs[0].obs_url == "obs://my-bucket/data/mnist/"
    assert a.algorithm.outputs[0].obs_url == "obs://my-bucket/outputs/mnist/"
    assert a.log_export_path.obs_url == "obs://my-bucket/logs/mnist/"
    assert a.flavor_id == "modelarts.vm.cpu.2u"


def test_sweep_3x3_gives_9_distinct_deterministic_keys_and_derived_names():
    cfg = {**BASE, "sweeps": {"lr-sweep": {**BASE["jobs"]["mnist"], "parameters": {},
                                           "grid": {"lr": [0.1, 0.01, 0.001], "bs": [32, 64, 128]}}}}
    plans = [p for p in plan(parse(cfg)) if p.key != "mnist"]
    keys = [p.key for p in plans]
    assert len(keys) == 9 == len(set(keys))
    assert keys == [p.key for p in plan(parse(cfg)) if p.key != "mnist"]
    assert all(len(k) <= 64 for k in keys)
    # No fixed job name: each point's job gets its key and a random suffix, unique per stack.
    assert [p.args.name for p in plans] == [None] * 9
    params = {(q.name, q.value) for p in plans for q in p.args.algorithm.parameters}
    assert ("lr", "0.001") in params and ("bs", "128") in params


def test_adding_a_grid_value_keeps_existing_names():
    a = dict(point_names("s", {"lr": [0.1, 0.2]}))
    b = dict(point_names("s", {"lr": [0.1, 0.2, 0.3]}))
    assert set(a) <= set(b)


@pytest.mark.parametrize("mutate,fragment", [
    (lambda c: c["jobs"]["mnist"].update(pool="gpu"), "modelarts-jobs:jobs.mnist.pool: unknown pool 'gpu'"),
    (lambda c: c["jobs"]["mnist"].update(nodes=3), "modelarts-jobs:jobs.mnist.nodes"),
    (lambda c: c["jobs"]["mnist"].update(colour="red"), "modelarts-jobs:jobs.mnist.colour: unknown key"),
    (lambda c: c["jobs"]["mnist"].update(waitFor="ever"), "modelarts-jobs:jobs.mnist.waitFor"),
    (lambda c: c["obs"]["main"].update(bucket="Bad_Bucket"), "modelarts-jobs:obs.main.bucket"),
    (lambda c: c["jobs"]["mnist"].update(name="bad name"), "modelarts-jobs:jobs.mnist.name"),
    (lambda c: c["jobs"]["mnist"].update(algorithmId="x"), "modelarts-jobs:jobs.mnist: set exactly one algorithm form"),
    (lambda c: c["jobs"]["mnist"].pop("bootFile"), "modelarts-jobs:jobs.mnist.bootFile"),
    (lambda c: c.update(sweeps={"s": {"pool": "cpu", "algorithmId": "a", "grid": {"lr": []}}}),
     "modelarts-jobs:sweeps.s.grid.lr"),
    (lambda c: c.update(sweeps={"s": {"pool": "cpu", "algorithmId": "a", "grid": {"lr": [1, 1]}}}),
     "values must be distinct"),
])
def test_bad_config_names_the_key(mutate, fragment):
    import copy

    cfg = copy.deepcopy(BASE)
    mutate(cfg)
    with pytest.raises(StackConfigError) as e:
        plan(parse(cfg))
    assert fragment in str(e.value)
    assert "\n" not in str(e.value)


def test_unknown_top_level_key():
    with pytest.raises(StackConfigError, match="modelarts-jobs:job "):
        parse(BASE, ["modelarts-jobs:job", "modelarts-jobs:jobs"])

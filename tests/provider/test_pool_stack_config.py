"""Stack config of networks and created pools (issue 24): both forms parse, jobs name pools by key, a
job's nodes are checked against the created pool's size, bad entries name their key. No API call."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from modelarts_provider.stack.config import PROJECT, StackConfigError, parse
from modelarts_provider.stack.program import PENDING_POOL, plan

ROOT = Path(__file__).resolve().parents[2]
BASE = {
    "networks": {"main": {}},
    "pools": {"own": {"create": {"flavor": "modelarts.vm.gpu.tnt004", "nodes": 2, "network": "main"}},
              "cpu": {"flavor": "modelarts.vm.cpu.2u"}},
    "jobs": {"a": {"pool": "own", "nodes": 2, "algorithmId": "alg", "logs": False, "outputs": {}},
             "b": {"pool": "cpu", "algorithmId": "alg", "logs": False, "outputs": {}}},
}


def _stack(name: str) -> dict:
    cfg = yaml.safe_load((ROOT / "stacks" / f"Pulumi.{name}.yaml").read_text())["config"]
    return {k.split(":", 1)[1]: v for k, v in cfg.items() if k.startswith(f"{PROJECT}:")}


def test_a_created_pool_gives_its_jobs_its_name_and_size():
    cfg = parse(BASE)
    assert cfg.networks["main"].cidr == "192.168.128.0/17"
    assert cfg.pools["own"].max_nodes == 2
    plans = {p.key: p for p in plan(cfg)}
    assert (plans["a"].created_pool, plans["a"].args.pool_id, plans["a"].args.flavor_id) == ("own", PENDING_POOL, None)
    assert (plans["b"].created_pool, plans["b"].args.pool_id) == (None, None)


@pytest.mark.parametrize("stack", ["dev", "prod"])
def test_dev_and_prod_show_both_forms(stack):
    cfg = parse(_stack(stack))
    assert any(p.create is not None for p in cfg.pools.values())
    assert any(p.create is None for p in cfg.pools.values())
    assert any(p.created_pool for p in plan(cfg))


@pytest.mark.parametrize("mutate,fragment", [
    (lambda c: c["jobs"]["a"].update(nodes=3), "jobs.a.nodes: 3 exceeds pool 'own' create.nodes 2"),
    (lambda c: c["pools"]["own"]["create"].update(network="other"), "pools.own.create.network: unknown network 'other'"),
    (lambda c: c["pools"]["own"]["create"].update(nodes=0), "pools.own.create.nodes"),
    (lambda c: c["pools"]["own"].update(flavor="x"), "pools.own.create: a pool the stack creates takes no flavor"),
    (lambda c: c["pools"]["own"].update(maxNodes=4), "pools.own.maxNodes"),
    (lambda c: c["pools"]["own"]["create"].update(name="Bad_Name"), "pools.own.create.name"),
    (lambda c: c["networks"]["main"].update(cidr="10.0.0.0"), "networks.main.cidr"),
    (lambda c: c["pools"]["own"]["create"].update(nodez=2), "pools.own.create.nodez"),
])
def test_bad_entries_name_their_key(mutate, fragment):
    cfg = copy.deepcopy(BASE)
    mutate(cfg)
    with pytest.raises(StackConfigError) as err:
        parse(cfg)
    assert fragment in str(err.value)

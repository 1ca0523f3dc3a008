"""Issue 43 under the real engine: a copied stack (`stack export`, the URNs renamed, `stack import`: the same seed,
hence the same owner tokens) never deletes or takes over the original's pool and network. Its `destroy` stops at
the pool naming the original's resource; with its state forgotten, its `up` does not take the network over. The
pool, the network and their orders are the original's still, and the original destroys them.

Both doors: the stack program (`networks:` and `pools.<key>.create`) and a YAML program (Network and ResourcePool).
(The jobs' own copied-stack tests: tests/e2e/test_ownership.py.)
"""

from __future__ import annotations

from collections.abc import Iterator
import re
from pathlib import Path
from typing import Any

import pytest

from testkit.faults import PROJECT, copied_stack, job_stack, output_of, own_pool, pools_of, update_config
from testkit.harness import Stack
from testkit.plugin_program import yaml_stack


@pytest.fixture(params=[False, True], ids=["annotations-answered", "annotations-dropped"])
def emu(request: pytest.FixtureRequest, tmp_path: Path, pulumi_engine: Path) -> Iterator[Any]:
    """The service may leave annotations out of its answers (issue 54): the labels carry the mark then."""
    from modelarts_emulator.testing import running_emulator

    with running_emulator(tmp_path / "emulator", phase_seconds=0.2, run_seconds=600, network_seconds=0.3,
                          pool_seconds=1.0, drop_annotations=request.param) as e:
        yield e


def _python(tmp_path: Path, emu: Any) -> tuple[Stack, str]:
    st = job_stack(tmp_path, emu, jobs={}, pools=own_pool(1, timeout_seconds=60))
    update_config(st, {f"{PROJECT}:networks": {"main": {}}})
    return st, PROJECT


def _yaml(tmp_path: Path, emu: Any) -> tuple[Stack, str]:
    return yaml_stack(tmp_path, emu, {
        "main": {"type": "modelarts:index:Network", "properties": {"name": "yaml-net", "cidr": "192.168.128.0/17",
                                                                   "pollIntervalSeconds": 0.2}},
        "own": {"type": "modelarts:index:ResourcePool", "properties": {
            "name": "yaml-pool", "network": "${main.networkName}",
            "resources": [{"flavor": "modelarts.vm.gpu.tnt004", "count": 1}], "pollIntervalSeconds": 0.2}}}), \
        "yaml-jobs"


DOORS = {"python": _python, "yaml": _yaml}


def _events(emu: Any) -> list[tuple[str, str]]:
    return [(e["kind"], e["action"]) for e in emu.pools()["events"]]


@pytest.mark.parametrize("door", sorted(DOORS))
def test_a_copied_stack_never_deletes_or_takes_over_the_originals_pool_and_network(tmp_path: Path, emu: Any,
                                                                                   door: str) -> None:
    st, project = DOORS[door](tmp_path, emu)
    st.up()
    (pool,) = pools_of(emu, live=True)
    copy = copied_stack(st, tmp_path)

    refused = copy.destroy(check=False)
    text = output_of(refused)
    assert refused.returncode != 0, text
    # Who it belongs to: the owner text where the service answers annotations; where it drops them, the labels
    # carry the token only.
    owner = rf"it belongs to (organization/{re.escape(project)}/{st.name}::|another resource \(owner token )"
    assert re.search(rf"pool {pool['metadata']['name']}: not deleted, {owner}", text), text
    # Its state forgotten, the copy declares them again: the original's network is not taken over.
    for resource in copy.resources():
        if resource["type"].endswith((":ResourcePool", ":Network")):
            copy.run("state", "delete", resource["urn"], "--yes", "--target-dependents", check=False)
    again = copy.up(check=False)
    text = output_of(again)
    assert again.returncode != 0 and "taken over" not in text, text
    assert "a network of that name exists" in text and re.search(owner, text), text
    assert _events(emu) == [("network", "create"), ("pool", "create")]  # nothing deleted, changed or added
    assert [p["metadata"]["name"] for p in pools_of(emu, live=True)] == [pool["metadata"]["name"]]

    st.destroy()  # the original's own
    assert _events(emu)[2:] == [("pool", "delete"), ("network", "delete")]

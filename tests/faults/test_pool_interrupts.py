"""A killed `up` during a pool's node wait, under the real engine: the pool the killed run created is in no
state. The next `up` with another node count takes it over and scales it (one pool, no refusal); a `destroy`
right after a killed `up` removes that pool before the network (the pool carries the network's token), so no
pool is left billing and the network's delete does not stop on "in use". A network left by a killed `up` is
compared before a takeover: another CIDR replaces it."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Any

import pytest

from testkit.faults import (PROJECT, Background, job_stack, output_of, own_pool, pool_emulator, pools_of, reap,
                            update_config, wait_until)

@pytest.fixture(params=[False, True], ids=["annotations", "annotations-dropped"])
def emu(tmp_path: Path, pulumi_engine: Path, request: pytest.FixtureRequest) -> Any:
    # nodes take 600 s of the emulator's clock: the up waits on them until the test moves the clock;
    # annotations-dropped: the service answers without them (issue 42), the owner mark is read from labels
    with pool_emulator(tmp_path / "emulator", pool_seconds=600, drop_annotations=request.param) as e:
        yield e


def _killed_during_node_wait(st: Any, emu: Any, log: Path) -> None:
    """`pulumi up` SIGKILLed (its whole tree) once the pool is created and its nodes are awaited; the
    stack's lock is then released with `pulumi cancel`, as a user would."""
    bg = Background(st, "up", "--yes", "--skip-preview", log=log)
    tree: dict[int, bytes] = {}
    try:
        wait_until(lambda: pools_of(emu, live=True) or bg.proc.poll() is not None, 300, what="the pool's create")
        wait_until(lambda: "waiting for" in bg.output or bg.proc.poll() is not None, 60, what="the node wait")
        assert bg.proc.poll() is None, bg.output
        tree = bg.tree()
        bg.signal_group(signal.SIGKILL)
        bg.wait(30)
    finally:
        reap(tree)  # the provider process too: nothing of the killed run goes on
    st.run("cancel", "--yes")


def test_killed_up_then_another_node_count_then_destroy(tmp_path: Path, emu: Any) -> None:
    st = job_stack(tmp_path / "stack", emu, jobs={}, pools=own_pool(2, timeout_seconds=3600))
    update_config(st, {f"{PROJECT}:networks": {"main": {}}})

    _killed_during_node_wait(st, emu, tmp_path / "up1.log")
    (orphan,) = pools_of(emu, live=True)  # billing, in no state
    emu.advance(700)  # its two nodes are up by now

    update_config(st, {f"{PROJECT}:pools": own_pool(3, timeout_seconds=3600)})
    bg = Background(st, "up", "--yes", "--skip-preview", log=tmp_path / "up2.log")
    wait_until(lambda: "taken over and scaled" in bg.output or bg.proc.poll() is not None, 300,
               what="the takeover")
    # the scale PATCH applied before the clock moves on (the line may come first): else its node would start
    # after the advance and the wait would sit on it until its deadline
    wait_until(lambda: bg.proc.poll() is not None or any(
        p["spec"]["resources"][0]["count"] == 3 for p in pools_of(emu, live=True)), 60, what="the scale-up")
    emu.advance(700)  # the third node
    code = bg.wait(300)
    assert code == 0, bg.output
    assert "2 -> 3" in bg.output, bg.output
    (pool,) = pools_of(emu, live=True)
    assert pool["metadata"]["name"] == orphan["metadata"]["name"] and pool["spec"]["resources"][0]["count"] == 3

    st.destroy()
    assert all(item["gone"] or item["metadata"].get("deletionTimestamp") for item in emu.pools()["items"])

    # killed again, then destroy at once: the pool no state holds goes before the network, none is left
    update_config(st, {f"{PROJECT}:pools": own_pool(1, timeout_seconds=3600)})
    _killed_during_node_wait(st, emu, tmp_path / "up3.log")
    assert len(pools_of(emu, live=True)) == 1
    out = output_of(st.destroy())
    assert pools_of(emu, live=True) == [], out
    deletes = [e["kind"] for e in emu.pools()["events"] if e["action"] == "delete"]
    assert deletes[-2:] == ["pool", "network"], deletes
    assert all(item["gone"] or item["metadata"].get("deletionTimestamp") for item in emu.pools()["items"])


def test_killed_during_the_network_wait_then_another_cidr_replaces_it(tmp_path: Path, pulumi_engine: Path) -> None:
    from modelarts_emulator.testing import running_emulator

    # the network takes 600 s of the emulator's clock to become Active: the up waits on it until killed
    with running_emulator(tmp_path / "emulator", phase_seconds=0.2, network_seconds=600, pool_seconds=1.0) as emu:
        st = job_stack(tmp_path / "stack", emu, jobs={}, pools={})
        update_config(st, {f"{PROJECT}:networks": {"main": {"cidr": "192.168.128.0/17"}}})
        bg = Background(st, "up", "--yes", "--skip-preview", log=tmp_path / "up1.log")
        tree: dict[int, bytes] = {}
        try:
            wait_until(lambda: "waiting until Active" in bg.output or bg.proc.poll() is not None, 300,
                       what="the network's wait")
            assert bg.proc.poll() is None, bg.output
            tree = bg.tree()
            bg.signal_group(signal.SIGKILL)
            bg.wait(30)
        finally:
            reap(tree)
        st.run("cancel", "--yes")
        (orphan,) = [n for n in emu.pools()["items"] if n["kind"] == "Network" and not n["gone"]]
        emu.advance(700)

        # the next up declares another CIDR: our earlier network is compared, replaced, never adopted as it is
        update_config(st, {f"{PROJECT}:networks": {"main": {"cidr": "10.10.0.0/16"}}})
        bg = Background(st, "up", "--yes", "--skip-preview", log=tmp_path / "up2.log")
        wait_until(lambda: "waiting until Active" in bg.output or bg.proc.poll() is not None, 300,
                   what="the new network's wait")
        emu.advance(700)
        assert bg.wait(300) == 0, bg.output
        assert "cidr 192.168.128.0/17 -> 10.10.0.0/16" in bg.output, bg.output
        live = [n for n in emu.pools()["items"] if n["kind"] == "Network" and not n["gone"]]
        assert [n["spec"]["cidr"] for n in live] == ["10.10.0.0/16"], live
        assert live[0]["metadata"]["name"] != orphan["metadata"]["name"]
        st.destroy()
        assert all(n["gone"] or n["metadata"].get("deletionTimestamp") for n in emu.pools()["items"])

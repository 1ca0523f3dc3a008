"""The plugin door: a YAML program's TrainingJob about to be submitted gets its cost line at preview, through the
engine's diagnostics (under the resource), priced by the local billing service; no job is created at preview,
and an unchanged job costs no price lookup again."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import pytest

from testkit.plugin_program import yaml_stack

ALGORITHM_ID = "8d1b2f4c-5a6e-4f70-9b81-c2d3e4f5a6b7"  # in the emulator catalog
CPU = "modelarts.vm.cpu.2u"  # 0.45 CNY per hour in billing_emulator/prices.json
pytestmark = [pytest.mark.engine, pytest.mark.timeout(300)]


@pytest.fixture
def emu(tmp_path: Path) -> Iterator[Any]:
    from modelarts_emulator.testing import running_emulator

    with running_emulator(tmp_path / "emulator", run_seconds=600, phase_seconds=0.2) as e:
        yield e


def _job(**extra: Any) -> dict[str, Any]:
    return {"type": "modelarts:index:TrainingJob",
            "properties": {"algorithm": {"id": ALGORITHM_ID}, "flavorId": CPU, "pollIntervalSeconds": 0.2, **extra}}


def test_a_yaml_programs_jobs_show_their_cost_at_preview(tmp_path: Path, emu: Any, billing: Any) -> None:
    st = yaml_stack(tmp_path, emu, {"bounded": _job(nodeCount=2, autoStop={"duration": 3}),
                                    "open": _job()},
                    config={"modelarts:region": "cn-north-4", "modelarts:projectId": emu.project_id,
                            "modelarts:endpoint": emu.url, "modelarts:accessKey": emu.access_key,
                            "modelarts:billingEndpoint": billing.url})
    billing.reset()
    out = st.preview().stdout
    assert ("cost: bounded: 1 job x 2 nodes x 3 h max "
            "(enforced by the service: autoStop 3 h) x 0.45 CNY/node-hour = up to 2.70 CNY") in out, out
    assert ("cost: open: 1 job x 1 node x 0.45 CNY/node-hour = 0.45 CNY per hour, no upper bound (set open's "
            "autoStop: {duration: N} (hours), or waitFor: completed with open's waitTimeoutSeconds)") in out
    # the total of every resource checked, said under the last one (the engine checks them one at a time)
    assert ("cost: total: up to 2.70 CNY, plus 0.45 CNY per hour without an upper bound (2 resources of this "
            "provider checked so far)") in out
    # one flavor: one rating request for the whole process, not one per job; nothing created
    assert billing.counters()["rate_on_demand"] == 1 and emu.jobs() == [] and emu.counters()["create"] == 0
    st.up()
    assert len(emu.jobs()) == 2
    before = billing.counters()["rate_on_demand"]
    again = st.preview().stdout
    assert "cost:" not in again and billing.counters()["rate_on_demand"] == before  # unchanged: nothing to price


def test_a_yaml_programs_budget_fails_the_preview_naming_the_total_and_largest(tmp_path: Path, emu: Any,
                                                                               billing: Any) -> None:
    """`modelarts:budget` (the provider's config): the check of the resource that takes the total above it fails
    in one line naming the total and the three largest items; nothing is created, at preview or at an up (which
    previews first; `up --skip-preview` checks as it creates: docs/cost.md)."""
    st = yaml_stack(tmp_path, emu, {"big": _job(nodeCount=4, autoStop={"duration": 2}),
                                    "small": _job(nodeCount=1, autoStop={"duration": 1})},
                    config={"modelarts:region": "cn-north-4", "modelarts:projectId": emu.project_id,
                            "modelarts:endpoint": emu.url, "modelarts:accessKey": emu.access_key,
                            "modelarts:billingEndpoint": billing.url})
    # each fits alone, not both: the second checked (the engine's order, not the program's) fails, naming both
    st.write_config({"modelarts:budget": {"max": 4, "currency": "CNY"}})
    line = ("modelarts:budget: the resources checked so far can bill up to 4.05 CNY, more than its budget of "
            "4.00 CNY; largest: big 3.60, small 0.45")
    for proc in (st.preview(check=False), st.run("up", "--yes", check=False)):
        out = proc.stdout + proc.stderr
        assert proc.returncode != 0 and line in out, out
        assert ("cost: big: 1 job x 4 nodes x 2 h max "
                "(enforced by the service: autoStop 2 h) x 0.45 CNY/node-hour = up to 3.60 CNY") in out
        assert "Traceback" not in out
    assert emu.jobs() == [] and emu.counters()["create"] == 0

    # within the budget: the total of every resource checked, and the up goes on
    st.write_config({"modelarts:budget": {"max": 5}})
    out = st.preview().stdout
    assert "cost: total: up to 4.05 CNY (2 resources of this provider checked so far)" in out, out


def test_a_yaml_programs_prices_table_prices_and_budgets_without_a_billing_service(tmp_path: Path, emu: Any,
                                                                                    billing: Any) -> None:
    """`modelarts:prices` (the stack's `prices:` table on this door): contract prices in another currency, no
    billing service configured (as on Open Telekom Cloud, whose price API has no ModelArts); the budget holds to
    them, and no rating request is made."""
    st = yaml_stack(tmp_path, emu, {"big": _job(nodeCount=2, autoStop={"duration": 3})})
    st.write_config({"modelarts:prices": {CPU: {"perNodeHour": 1.5, "currency": "EUR"}},
                     "modelarts:budget": {"max": 5, "currency": "EUR"}})
    billing.reset()
    refused = st.preview(check=False)
    out = refused.stdout + refused.stderr
    assert refused.returncode != 0 and ("cost: big: 1 job x 2 nodes x 3 h max "
                                        "(enforced by the service: autoStop 3 h) x 1.50 EUR/node-hour = up to 9.00 EUR") \
        in out, out
    assert ("modelarts:budget: the resources checked so far can bill up to 9.00 EUR, more than its budget of "
            "5.00 EUR; largest: big 9.00") in out, out
    st.write_config({"modelarts:budget": {"max": 10, "currency": "EUR"}})
    assert "cost: total: up to 9.00 EUR (1 resource of this provider checked so far)" in st.preview().stdout
    assert billing.counters().get("rate_on_demand", 0) == 0 and emu.counters()["create"] == 0
    # a bad table is one line naming the field, before anything is asked of the service
    st.write_config({"modelarts:prices": {CPU: {"perNodeHour": -1}}})
    bad = st.preview(check=False)
    assert bad.returncode != 0 and f"modelarts:prices.{CPU}.perNodeHour: must be at least 0, not -1" in \
        bad.stdout + bad.stderr, bad.stdout + bad.stderr
    assert emu.jobs() == []

"""Cost through the stack program under the real engine, against the local ModelArts and the local billing
service: preview prints each bound and the total with no call that starts billing; a budget below the bound
fails preview and up in one line naming the biggest items, and nothing is created; after an up, the `cost`
export and `results` show each run's node-hours and cost = the service's duration x nodes x price."""

from __future__ import annotations

import subprocess
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

import pytest

from testkit.faults import job, job_stack, provider_config, sweep, up_advancing, update_config
from testkit.harness import REPO_ROOT

PRICE = Decimal("12.5")  # modelarts.p3.large.public: billing code modelarts.vm.gpu.v100 in billing_emulator/prices.json

pytestmark = [pytest.mark.timeout(400), pytest.mark.usefixtures("pulumi_engine")]


def _stack(tmp_path: Path, emu: Any, billing: Any) -> Any:
    plain, secrets = provider_config(emu)
    plain["modelarts:billingEndpoint"] = billing.url
    # the emulator runs a for 1,800 s and the sweep's points for 900 s of its clock (moved on by the test)
    return job_stack(tmp_path, emu, plain=plain, secrets=secrets,
                     jobs={"a": job(nodes=2, waitFor="completed", waitTimeoutSeconds=7200,
                                    annotations={"emulator/run-seconds": "1800"})},
                     sweeps={"lr": sweep({"lr": [0.1, 0.01]}, waitFor="completed", waitTimeoutSeconds=3600,
                                         annotations={"emulator/run-seconds": "900"})})


def _cents(v: float) -> str:
    """Half up, as printed (0.225 CNY is 0.23)."""
    return f"{Decimal(str(v)).quantize(Decimal('0.01'), ROUND_HALF_UP):,}"


def _output(proc: subprocess.CompletedProcess[str]) -> str:
    return proc.stdout + proc.stderr


def test_preview_prints_the_bounds_and_a_budget_below_them_creates_nothing(tmp_path: Path, emu: Any,
                                                                           billing: Any) -> None:
    st = _stack(tmp_path, emu, billing)
    billing.reset()
    out = _output(st.preview())
    assert ("cost: a: 1 job x 2 nodes x 2 h max "
            "(enforced by the service: autoStop 2 h) x 12.50 CNY/node-hour = up to 50.00 CNY") in out
    assert ("cost: lr: 2 jobs x 1 node x 1 h max "
            "(enforced by the service: autoStop 1 h) x 12.50 CNY/node-hour = up to 25.00 CNY") in out
    assert "cost: total: up to 75.00 CNY" in out
    # the prices: one rating request for the whole stack, one flavor list read by the program (the other is the
    # provider's catalog check, training_job/catalog_check.py); nothing that bills
    assert emu.counters()["flavors"] == 2 and billing.counters()["rate_on_demand"] == 1
    assert emu.counters()["create"] == 0

    update_config(st, {"modelarts-jobs:budget": {"max": 60}})
    line = ("modelarts-jobs:budget: the stack can bill up to 75.00 CNY, more than its budget of 60.00 CNY; "
            "largest: a 50.00, lr 25.00")
    for proc in (st.preview(check=False), st.up(check=False)):
        assert proc.returncode != 0 and line in _output(proc), _output(proc)
        assert "Traceback" not in _output(proc)
    assert emu.jobs() == [] and emu.counters()["create"] == 0

    # a price that cannot be had: one line, and the preview goes on without it (no budget)
    # (the rules of unbounded items, sweep budgets and currencies: tests/cost/test_bounds.py)
    update_config(st, {"modelarts-jobs:budget": None, "modelarts:billingEndpoint": "http://127.0.0.1:9"})
    out = _output(st.preview())
    assert ("cost: no price for modelarts.p3.large.public: the billing service at http://127.0.0.1:9 did not "
            "answer") in out
    assert ("cost: a: 1 job x 2 nodes x 2 h max (enforced by the service: autoStop 2 h), no price for "
            "modelarts.p3.large.public (see above)") in out


def test_after_up_each_run_costs_its_duration_x_nodes_x_price(tmp_path: Path, emu: Any, billing: Any) -> None:
    st = _stack(tmp_path, emu, billing)
    up_advancing(st, emu, 3600, log=tmp_path / "up.log")
    cost = st.outputs()["cost"]
    live = {j["metadata"]["name"]: j for j in emu.jobs()}
    assert len(live) == 3
    total = Decimal(0)
    for key, entry in cost["jobs"].items():
        (view,) = [j for j in live.values() if j["metadata"]["id"] == entry["jobId"]]
        seconds = Decimal(view["status"]["duration"]) / 1000
        nodes = view["spec"]["resource"]["node_count"]
        expected = seconds / 3600 * nodes * PRICE
        assert seconds == (1800 if key == "a" else 900) and entry["nodes"] == nodes and entry["currency"] == "CNY", entry
        assert abs(Decimal(str(entry["cost"])) - expected) < Decimal("0.01"), (key, entry, expected)
        assert abs(Decimal(str(entry["nodeHours"])) - seconds / 3600 * nodes) < Decimal("0.0001")
        total += expected
    assert abs(Decimal(str(cost["total"])) - total) < Decimal("0.01") and cost["sweeps"]["lr"]["jobs"] == 2

    env = {**st.env, "PYTHONPATH": str(REPO_ROOT)}
    res = subprocess.run([str(REPO_ROOT / ".venv/bin/python"), "-m", "modelarts_provider", "results", "lr",
                          "--stack", st.name, "--cwd", str(st.workdir)], env=env, text=True, capture_output=True,
                         timeout=120)
    assert res.returncode == 0, res.stderr
    for key, entry in cost["jobs"].items():
        if entry["sweep"] == "lr":
            assert f"{key}: {entry['nodeHours']:.4f} node-hours x 12.50 CNY = {_cents(entry['cost'])} CNY" in res.stdout
    assert f"lr: {_cents(cost['sweeps']['lr']['cost'])} CNY in all" in res.stdout
    status = subprocess.run([str(REPO_ROOT / ".venv/bin/python"), "-m", "modelarts_provider", "status",
                             "--stack", st.name, "--cwd", str(st.workdir)], env=env, text=True, capture_output=True,
                            timeout=120)
    assert status.returncode == 0, status.stderr
    assert f"spent: {_cents(cost['total'])} CNY" in status.stdout

    # an edit replaces a (now on 1 node): the run history keeps both runs, each with its own nodes and cost
    update_config(st, {"modelarts-jobs:jobs": {"a": job(nodes=1, waitFor="completed", waitTimeoutSeconds=7200,
                                                        parameters={"lr": 0.5},
                                                        annotations={"emulator/run-seconds": "1800"})}})
    up_advancing(st, emu, 3600, log=tmp_path / "up2.log")
    runs = st.outputs()["cost"]["jobs"]["a"]["runs"]
    assert [(r["jobId"], r["nodes"], r["cost"]) for r in runs] == [
        (cost["jobs"]["a"]["jobId"], 2, cost["jobs"]["a"]["cost"]), (runs[1]["jobId"], 1, 6.25)]  # 0.5 h x 1 x 12.5
    history = subprocess.run([str(REPO_ROOT / ".venv/bin/python"), "-m", "modelarts_provider", "results", "a",
                              "--history", "--stack", st.name, "--cwd", str(st.workdir)], env=env, text=True,
                             capture_output=True, timeout=120)
    assert history.returncode == 0, history.stderr
    assert f"#1 {runs[0]['jobId']}: 1.0000 node-hours = 12.50 CNY" in history.stdout
    assert f"#2 {runs[1]['jobId']}: 0.5000 node-hours = 6.25 CNY" in history.stdout

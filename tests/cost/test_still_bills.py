"""The bound counts what can still bill (issue 55, item 4): a run that finished and will not run again is spent,
not bound. Under the real engine against the local ModelArts: a 2 CNY budget on a completed sweep does not refuse
the preview of the unchanged stack; a new point counts; a changed sweep counts again. And unit tests of the rule."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any, Iterator

import pytest

from modelarts_provider.cost.stack_cost import items
from modelarts_provider.cost.budget import refusal
from modelarts_provider.cost.config import ItemBudget
from modelarts_provider.cost.prices import Price, PriceBook
from modelarts_provider.cost.recorded import Recorded
from modelarts_provider.cost.still_bills import spent_keys
from modelarts_provider.stack.config import parse
from modelarts_provider.stack.program import plan
from modelarts_provider.training_job.normalize import stored_form
from modelarts_provider.training_job.service_limit import with_service_limit
from testkit.faults import FAST_EMULATOR, FLAVOR, job_stack, sweep, up_advancing, update_config

CPU = "modelarts.vm.cpu.2u"
BOOK = PriceBook(prices={CPU: Price(Decimal(2), "CNY", "prices table")})
ENGINE = {"name": "PyTorch", "version": "pytorch_1.8.0-cuda_10.2-py_3.7-ubuntu_18.04-x86_64"}


def _cfg(**sweep_kw: Any) -> Any:
    entry = {"pool": "cpu", "codeDir": "mnist/", "bootFile": "train.py", "engine": ENGINE, "waitFor": "completed",
             "waitTimeoutSeconds": 600, "grid": {"lr": [0.1, 0.2]}, **sweep_kw}
    return parse({"obs": {"main": {"bucket": "bkt"}}, "pools": {"cpu": {"flavor": CPU, "maxNodes": 4}},
                  "sweeps": {"lr": entry}})


def _recorded(plans: list[Any], phase: str) -> Recorded:
    """A state as an up leaves it: each job's checked inputs (a derived name, an owner, the limit its wait gives
    it) and the wait's phase."""
    checked = {p.key: with_service_limit({}, p.args.model_dump(exclude_none=True, exclude_defaults=True)) for p in plans}
    inputs = {p.key: {**stored_form(checked[p.key]),
                      "name": f"{p.key}-abc123", "derived_name": True, "owner": {"token": "t"}} for p in plans}
    assert all(i["auto_stop"]["duration"] == 1 for i in inputs.values())
    return Recorded(inputs=inputs, phases=dict.fromkeys(inputs, phase))


def test_a_finished_unchanged_run_is_spent_not_bound() -> None:
    cfg = _cfg()
    plans = plan(cfg)
    done = _recorded(plans, "Completed")
    assert spent_keys(plans, done) == {p.key for p in plans}
    (it,) = items(cfg, plans, BOOK, spent_keys(plans, done))
    assert it.bound == 0 and it.line() == "lr: 2 finished runs, nothing left to run: spent, not bound"
    assert refusal(ItemBudget(max=1), [it]) is None
    # still running: it can bill up to its limit
    assert spent_keys(plans, _recorded(plans, "Running")) == set()
    # failed, with replaceFailed: runs again
    failing = plan(_cfg(replaceFailed=True))
    assert spent_keys(failing, _recorded(failing, "Failed")) == set()


def test_a_changed_or_new_point_counts_and_the_rest_stay_spent() -> None:
    before = plan(_cfg())
    done = _recorded(before, "Completed")
    grown_cfg = _cfg(grid={"lr": [0.1, 0.2, 0.3]})
    grown = plan(grown_cfg)
    assert len(spent_keys(grown, done)) == 2
    (it,) = items(grown_cfg, grown, BOOK, spent_keys(grown, done))
    assert it.bound == Decimal(2)
    assert it.line() == ("lr: 1 job x 1 node (2 more finished: spent, not bound) x 1 h max (enforced by the service: "
                         "autoStop 1 h; the wait terminates it at 10 min) x 2.00 CNY/node-hour = up to 2.00 CNY")
    assert spent_keys(plan(_cfg(nodes=2)), done) == set()  # a changed spec re-runs every point
    assert spent_keys(plan(_cfg(description="x")), done) == {p.key for p in before}  # updated in place: no re-run
    secret = {k: {**v, "algorithm": {"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270"}}
              for k, v in done.inputs.items()}  # encrypted in the state: not comparable, so it counts
    assert spent_keys(before, Recorded(inputs=secret, phases=done.phases)) == set()


@pytest.fixture
def emu(tmp_path: Path) -> Iterator[Any]:
    from modelarts_emulator.testing import running_emulator

    with running_emulator(tmp_path / "emulator", **FAST_EMULATOR) as e:
        yield e


@pytest.mark.engine
@pytest.mark.timeout(400)
@pytest.mark.usefixtures("pulumi_engine")
def test_a_budget_on_a_completed_sweep_does_not_refuse_the_unchanged_stack(tmp_path: Path, emu: Any) -> None:
    st = job_stack(tmp_path, emu, sweeps={"lr": sweep({"lr": [0.1, 0.2]}, waitFor="completed",
                                                      waitTimeoutSeconds=900)})
    update_config(st, {"modelarts-jobs:prices": {FLAVOR: {"perNodeHour": 1.5}}})
    up_advancing(st, emu, 700, log=tmp_path / "up1.log")  # both points run to Completed (600 s of their clock)
    assert {j["status"]["phase"] for j in emu.jobs()} == {"Completed"}

    update_config(st, {"modelarts-jobs:budget": {"max": 2}})  # the sweep's whole bound is 3.00 CNY
    proc = st.preview()
    out = proc.stdout + proc.stderr
    assert "cost: lr: 2 finished runs, nothing left to run: spent, not bound" in out, out
    assert "cost: total: up to 0.00 CNY" in out, out

    # a third point: only it can bill (1.50 CNY fits); the two finished stay spent
    update_config(st, {"modelarts-jobs:sweeps": {"lr": sweep({"lr": [0.1, 0.2, 0.3]}, waitFor="completed",
                                                             waitTimeoutSeconds=900)}})
    out = st.preview().stdout
    assert ("cost: lr: 1 job x 1 node (2 more finished: spent, not bound) x 1 h max (enforced by the service: "
            "autoStop 1 h; the wait terminates it at 15 min) x 1.50 CNY/node-hour = up to 1.50 CNY") in out, out

    # a changed spec re-runs every point: all three count, above the budget
    update_config(st, {"modelarts-jobs:sweeps": {"lr": sweep({"lr": [0.1, 0.2, 0.3]}, nodes=2, waitFor="completed",
                                                             waitTimeoutSeconds=900)}})
    refused = st.preview(check=False)
    assert refused.returncode != 0
    assert ("modelarts-jobs:budget: the stack can bill up to 9.00 CNY, more than its budget of 2.00 CNY; largest: "
            "lr 9.00") in refused.stdout + refused.stderr


def test_a_local_code_directory_is_compared_by_its_content_hash(tmp_path: Path) -> None:
    from modelarts_provider.code_upload.inputs import provider_inputs

    code = tmp_path / "code"
    code.mkdir()
    (code / "train.py").write_text("print('accuracy=0.9')\n")
    cfg = _cfg(codeDir=None, bootFile=None, code={"localDir": str(code), "bootFile": "train.py"},
               obs="main")
    plans = plan(cfg)
    done = _recorded(plans, "Completed")
    upload = {"content_hash": provider_inputs("c", {"local_dir": str(code), "boot_file": "train.py"})["content_hash"],
              "boot_file_path": "train.py"}
    same = Recorded(inputs=done.inputs, phases=done.phases, uploads={"lr-code": upload})
    assert spent_keys(plans, same) == {p.key for p in plans}
    assert spent_keys(plans, done) == set()  # no upload on record: not comparable, it counts
    (code / "train.py").write_text("print('accuracy=0.95')\n")  # edited: the next up re-runs every point
    from modelarts_provider.cost import still_bills

    still_bills._content_hash.cache_clear()
    assert spent_keys(plan(cfg), same) == set()

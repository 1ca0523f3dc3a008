"""Issue 55's "done when", through both front doors under the real engine (the stack program and a YAML program
using the provider plugin), one `preview` each, against the local ModelArts and the local billing service:

- a negative price from the billing service is refused at preview in one line naming the flavor; under a budget
  the preview fails closed and nothing is created (the local ModelArts holds no job afterwards);
- a billing service that drips its answer (testkit/drip_proxy.py: each read finishes in time, the answer never
  does) ends the preview at the call's deadline with one line, and the budget refuses the unpriced job. No timed
  assertion: the test's own timeout is the failure of a preview that hangs.

The interrupted wait, and the limit of a recorded job and of a job an edit re-runs, are
tests/e2e/test_enforced_bound.py; a foreign backend refused by `./dev`,
tests/dev/test_dev_backend.py (the stack program's door only: a YAML program is not run by `./dev`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from testkit.drip_proxy import drip_proxy
from testkit.faults import FAST_EMULATOR, FLAVOR, job, job_stack, update_config
from testkit.plugin_program import yaml_stack

pytestmark = [pytest.mark.engine, pytest.mark.timeout(300), pytest.mark.usefixtures("pulumi_engine")]

ALGORITHM_ID = "8d1b2f4c-5a6e-4f70-9b81-c2d3e4f5a6b7"  # in the emulator catalog
CPU, CPU_CODE = "modelarts.vm.cpu.2u", "modelarts.vm.cpu.2u"  # billing_emulator/prices.json: 0.45 CNY per hour
GPU_CODE = "modelarts.vm.gpu.v100"  # FLAVOR's billing code: 12.50 CNY per hour
NEGATIVE = {"official_website_amount": -100, "amount": -100}
# The call's deadline with a retry budget of 1 s: 1 s + one connect (5 s) and one read timeout (30 s).
RETRY_S, DEADLINE_S = 1, 36
DRIP_EVERY_S = 2.0  # each read finishes well within the read timeout; the whole answer takes minutes


@pytest.fixture
def emu(tmp_path: Path) -> Iterator[Any]:
    from modelarts_emulator.testing import running_emulator

    with running_emulator(tmp_path / "emulator", **FAST_EMULATOR) as e:
        yield e


@pytest.fixture
def fresh_billing(billing: Any) -> Iterator[Any]:
    billing.clear_faults()
    yield billing
    billing.clear_faults()


def _out(proc: Any) -> str:
    return proc.stdout + proc.stderr


def _nothing_created(emu: Any) -> None:
    assert emu.jobs() == [] and emu.counters()["create"] == 0


def _python_stack(tmp_path: Path, emu: Any, endpoint: str, budget: float, **jobs: Any) -> Any:
    st = job_stack(tmp_path, emu, jobs=jobs or {"big": job(waitFor="completed", waitTimeoutSeconds=3600)},
                   pools={"gpu": {"flavor": FLAVOR, "maxNodes": 4}, "cpu": {"flavor": CPU}})
    update_config(st, {"modelarts:billingEndpoint": endpoint, "modelarts:retryTimeoutSeconds": str(RETRY_S),
                       "modelarts-jobs:budget": {"max": budget}})
    return st


def _yaml_job(flavor: str, wait_s: float) -> dict[str, Any]:
    return {"type": "modelarts:index:TrainingJob", "properties": {
        "algorithm": {"id": ALGORITHM_ID}, "flavorId": flavor, "waitFor": "completed", "waitTimeoutSeconds": wait_s}}


def _yaml_stack(tmp_path: Path, emu: Any, endpoint: str, budget: float, **jobs: Any) -> Any:
    st = yaml_stack(tmp_path, emu, jobs or {"big": _yaml_job(CPU, 3600)})
    st.write_config({"modelarts:billingEndpoint": endpoint, "modelarts:retryTimeoutSeconds": str(RETRY_S),
                     "modelarts:budget": {"max": budget}})
    return st


def _said_once(out: str, text: str) -> str:
    """The one line that says `text` (the engine shows a diagnostic live and again in its summary)."""
    found = {line[line.index("cost: "):] if "cost: " in line else line.strip()
             for line in out.splitlines() if text in line}
    assert len(found) == 1, out
    return found.pop()


def _refused_preview(st: Any, emu: Any) -> str:
    """A preview the budget fails (closed: a job without a price), in lines, with nothing created."""
    proc = st.preview(check=False)  # returns: a preview that hangs fails the test at its timeout
    out = _out(proc)
    assert proc.returncode != 0, out
    assert "Traceback" not in out, out
    _nothing_created(emu)
    return out


def _dripped_preview(make_stack: Callable[[str], Any], emu: Any, billing: Any) -> tuple[str, str]:
    """(the preview's output, the billing endpoint it used): the stack `make_stack(endpoint)` makes, previewed
    with the local billing service's answers dripped."""
    with drip_proxy(billing.url, lambda method, path: True, drip_every_s=DRIP_EVERY_S) as proxy:
        out = _refused_preview(make_stack(proxy.url), emu)
        assert proxy.dripping >= 1  # the rating answer was dripped, not refused
    return out, proxy.url


def _cut(endpoint: str) -> str:
    return f"the billing service at {endpoint} did not finish its answer within {DEADLINE_S} s (the call's deadline)"


# The case: -100 CNY for one flavor beside a 100 CNY job made the total "up to 0.00 CNY", and a budget
# below 100 passed. The GPU job: 8 h x 12.50 CNY = 100 CNY; the CPU job's price is the bad one.


def test_a_negative_price_is_refused_at_the_programs_preview_and_nothing_is_created(
        tmp_path: Path, emu: Any, fresh_billing: Any) -> None:
    fresh_billing.set_faults([{"spec": CPU_CODE, "result": NEGATIVE}])
    out = _refused_preview(_python_stack(tmp_path, emu, fresh_billing.url, budget=50,
                                         big=job(pool="gpu", waitFor="completed", waitTimeoutSeconds=8 * 3600),
                                         cheap=job(pool="cpu", waitFor="completed", waitTimeoutSeconds=3600)), emu)
    assert _said_once(out, "negative price") == (
        f"cost: no price for {CPU}: the billing service answered a negative price (official_website_amount -100) "
        "for it; set modelarts-jobs:prices.<flavor>.perNodeHour to give one")
    assert f"cost: total: up to 100.00 CNY (without {CPU}: no price)" in out, out  # -100 bought no headroom
    assert (f"error: modelarts-jobs:budget: modelarts-jobs:jobs.cheap has no price for {CPU} (see above): set "
            f"modelarts-jobs:prices.{CPU}.perNodeHour, or make the billing service reachable") in out, out


def test_a_negative_price_is_refused_at_a_yaml_programs_preview_and_nothing_is_created(
        tmp_path: Path, emu: Any, fresh_billing: Any) -> None:
    fresh_billing.set_faults([{"spec": CPU_CODE, "result": NEGATIVE}])
    # The plugin checks each resource as the engine sends it, in no set order: a budget above the priced job's
    # 100 CNY makes the bad price the refusal whichever comes first (with 50, `big` alone could refuse first).
    out = _refused_preview(_yaml_stack(tmp_path, emu, fresh_billing.url, budget=150,
                                       big=_yaml_job(FLAVOR, 8 * 3600), cheap=_yaml_job(CPU, 3600)), emu)
    assert _said_once(out, "negative price") == (
        f"cost: no price for {CPU}: the billing service answered a negative price (official_website_amount -100) "
        "for it; set modelarts:prices.<flavor>.perNodeHour to give one, or modelarts:billingEndpoint to a billing "
        "service that prices it")
    assert (f"modelarts:budget: cheap has no price for {CPU} (see above): set modelarts:prices.<flavor>.perNodeHour "
            "to give one, or modelarts:billingEndpoint to a billing service that prices it") in out, out
    assert "up to 0.00 CNY (2 resources" not in out, out  # -100 bought no headroom


def test_a_dripping_billing_service_ends_the_programs_preview_at_its_deadline(
        tmp_path: Path, emu: Any, fresh_billing: Any) -> None:
    out, endpoint = _dripped_preview(lambda url: _python_stack(tmp_path, emu, url, budget=1000), emu, fresh_billing)
    assert _said_once(out, "did not finish its answer") == (
        f"cost: no price for {FLAVOR}: {_cut(endpoint)}; set modelarts-jobs:prices.<flavor>.perNodeHour to give one")
    assert f"error: modelarts-jobs:budget: modelarts-jobs:jobs.big has no price for {FLAVOR} (see above)" in out, out


def test_a_dripping_billing_service_ends_a_yaml_programs_preview_at_its_deadline(
        tmp_path: Path, emu: Any, fresh_billing: Any) -> None:
    out, endpoint = _dripped_preview(lambda url: _yaml_stack(tmp_path, emu, url, budget=1000), emu, fresh_billing)
    assert _said_once(out, "did not finish its answer") == (
        f"cost: no price for {CPU}: {_cut(endpoint)}; set modelarts:prices.<flavor>.perNodeHour to give one, or "
        "modelarts:billingEndpoint to a billing service that prices it")
    assert f"modelarts:budget: big has no price for {CPU} (see above)" in out, out

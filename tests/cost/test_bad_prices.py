"""Issue 55, item 2: a rating answer is checked before it is believed. A negative, missing, non-numeric price, one
in another unit, or a result that does not match the request (an id it did not carry, two results for one id) is
refused in one line naming the flavor; under a budget the preview then fails closed (refused before anything is
declared). The local billing service answers badly on purpose through its fault rules (billing_emulator)."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pytest
from pydantic import SecretStr

from modelarts_provider.core.provider_config import ProviderSettings
from modelarts_provider.cost import prices

GPU, CPU = "modelarts.p3.large.public", "modelarts.vm.cpu.2u"  # billing codes modelarts.vm.gpu.v100, ...cpu.2u
GPU_CODE, CPU_CODE = "modelarts.vm.gpu.v100", "modelarts.vm.cpu.2u"
ENGINE = {"name": "PyTorch", "version": "pytorch_1.8.0-cuda_10.2-py_3.7-ubuntu_18.04-x86_64"}
FIX = "set modelarts-jobs:prices.<flavor>.perNodeHour to give one"


@pytest.fixture(autouse=True)
def _fresh(billing: Any) -> Iterator[None]:
    prices._cache.clear()
    yield
    billing.clear_faults()
    prices._cache.clear()  # no bad answer of this module is a price for the next module on this worker


def _settings(emu: Any, billing: Any) -> ProviderSettings:
    return ProviderSettings(region="cn-north-4", project_id=emu.project_id, cloud="huaweicloud", endpoint=emu.url,
                            billing_endpoint=billing.url, access_key=emu.access_key,
                            secret_key=SecretStr(emu.secret_key))


@pytest.mark.parametrize("result, why", [
    ({"official_website_amount": -100}, "a negative price (official_website_amount -100)"),
    ({"amount": "-0.01"}, "a negative price (amount -0.01)"),
    ({"official_website_amount": None}, "no official_website_amount"),
    ({"amount": None}, "no amount"),
    ({"official_website_amount": "abc"}, 'official_website_amount is not a number ("abc")'),
    ({"official_website_amount": "NaN"}, 'official_website_amount is not a number ("NaN")'),
    ({"official_website_amount": [1]}, "official_website_amount is not a number ([1])"),
    ({"measure_id": 3}, "a price in another unit than the yuan (measure_id 3)"),
])
def test_a_bad_price_is_refused_naming_its_flavor_only(emu: Any, billing: Any, result: dict[str, Any],
                                                       why: str) -> None:
    billing.set_faults([{"spec": CPU_CODE, "result": result}])
    book = prices.price_book(_settings(emu, billing), {}, {GPU, CPU}, set())
    assert book.missing == {CPU: f"the billing service answered {why} for it"}
    assert book.notes() == [f"cost: no price for {CPU}: the billing service answered {why} for it; {FIX}"]
    assert book.prices[GPU].per_node_hour == Decimal("12.5")  # the other product of the answer is believed


@pytest.mark.parametrize("result, mismatch", [
    ({"id": "7"}, 'a result for id "7", which the request did not ask for'),
    ({"id": 0}, "a result for id 0, which the request did not ask for"),
    ({"id": None}, "a result for id null, which the request did not ask for"),
])
def test_a_result_that_does_not_match_the_request_refuses_every_product_of_it(emu: Any, billing: Any,
                                                                              result: dict[str, Any],
                                                                              mismatch: str) -> None:
    """Which result is whose cannot be told: no price of that answer is believed (was an IndexError)."""
    billing.set_faults([{"spec": CPU_CODE, "result": result}])
    book = prices.price_book(_settings(emu, billing), {}, {GPU, CPU}, set())
    why = f"the billing service's answer does not match its request ({mismatch})"
    assert book.prices == {} and book.missing == {GPU: why, CPU: why}
    assert book.notes() == [f"cost: no price for {GPU}, {CPU}: {why}; {FIX}"]


def test_two_results_for_one_id_refuse_the_answer(emu: Any, billing: Any) -> None:
    # The request's ids are its products' places, in the flavors' order: the GPU's "0", the CPU's "1".
    billing.set_faults([{"spec": CPU_CODE, "result": {"id": "0"}}])
    book = prices.price_book(_settings(emu, billing), {}, {GPU, CPU}, set())
    assert book.prices == {} and set(book.missing) == {GPU, CPU}
    assert "does not match its request (two results for id 0)" in book.missing[GPU]


def test_a_discounted_amount_above_the_list_price_is_bounded_by_the_higher(emu: Any, billing: Any) -> None:
    billing.set_faults([{"spec": CPU_CODE, "result": {"amount": 0.6}}])
    book = prices.price_book(_settings(emu, billing), {}, {CPU}, set())
    assert book.prices[CPU].per_node_hour == Decimal("0.6") and not book.missing


def _stack(budget: float | None) -> Any:
    from modelarts_provider.stack.config import parse

    base = {"codeDir": "c/", "bootFile": "t.py", "engine": ENGINE, "waitFor": "completed"}
    raw: dict[str, Any] = {
        "obs": {"m": {"bucket": "bkt"}}, "pools": {"gpu": {"flavor": GPU}, "cpu": {"flavor": CPU}},
        "jobs": {"big": {**base, "pool": "gpu", "waitTimeoutSeconds": 8 * 3600},   # 12.5 x 8 h = 100 CNY
                 "cheap": {**base, "pool": "cpu", "waitTimeoutSeconds": 3600}}}
    if budget is not None:
        raw["budget"] = {"max": budget}
    return parse(raw)


def test_a_negative_price_buys_no_headroom_under_a_budget(emu: Any, billing: Any) -> None:
    """The issue's case: -100 for one flavor beside a 100 CNY job made the total 0.00 and passed the budget.
    Now the flavor has no price: the preview says why, and the budget refuses it (nothing is declared)."""
    from modelarts_provider.cost.preview import cost_preview
    from modelarts_provider.stack.program import plan

    billing.set_faults([{"spec": CPU_CODE, "result": {"official_website_amount": -100, "amount": -100}}])
    cfg = _stack(budget=150)
    prev = cost_preview(cfg, plan(cfg), _settings(emu, billing))
    assert prev.lines[0] == (f"cost: no price for {CPU}: the billing service answered a negative price "
                             f"(official_website_amount -100) for it; {FIX}")
    assert prev.refusal == (f"modelarts-jobs:budget: modelarts-jobs:jobs.cheap has no price for {CPU} (see above): "
                            f"set modelarts-jobs:prices.{CPU}.perNodeHour, or make the billing service reachable")
    assert ("cost: big: 1 job x 1 node x 8 h max "
            "(enforced by the service: autoStop 8 h) x 12.50 CNY/node-hour = up to 100.00 CNY") in prev.lines


def test_without_a_budget_the_preview_goes_on_saying_why(emu: Any, billing: Any) -> None:
    from modelarts_provider.cost.preview import cost_preview
    from modelarts_provider.stack.program import plan

    billing.set_faults([{"spec": CPU_CODE, "result": {"id": "9"}}])
    cfg = _stack(budget=None)
    prev = cost_preview(cfg, plan(cfg), _settings(emu, billing))
    assert prev.refusal is None and prev.lines[0].startswith(f"cost: no price for {GPU}, {CPU}: the billing "
                                                             "service's answer does not match its request")

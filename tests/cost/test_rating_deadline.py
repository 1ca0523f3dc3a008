"""Issue 55, item 3: the rating call is under the same overall deadline and Cancel as every other API call
(client/call_limits.py). A billing service that drips its answer a byte every half second (each read finishes
in time: a per-read timeout never fires) is cut at the call's deadline, and the preview goes on with one line
saying so; under a budget it is refused (fails closed).

The drip is testkit/drip_proxy.py in front of the local billing service: it passes the signed request on and
drips the service's whole, valid rating answer back (its 300-odd bytes: minutes). Each call runs on a thread;
the test waits for it with a bound far below what the drip takes, so a call that is not cut fails the test
instead of hanging it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from pydantic import SecretStr

from modelarts_provider.client import call_limits
from modelarts_provider.core.provider_config import ProviderSettings
from modelarts_provider.cost import prices
from modelarts_provider.cost.rating import Product, RatingError, rate_hourly
from testkit.drip_proxy import DripProxy, drip_proxy, ended

HANG_BOUND_S = 20.0  # a cut call ends long before; the dripped answer takes minutes


@pytest.fixture
def dripping(billing: Any) -> Iterator[DripProxy]:
    """The local billing service behind a proxy that drips every answer, one byte every 0.5 s."""
    billing.clear_faults()
    with drip_proxy(billing.url, lambda method, path: True) as proxy:
        yield proxy


def _ended(call: Callable[[], Any]) -> tuple[Any, BaseException | None, float]:
    return ended(call, HANG_BOUND_S, "the rating call")


def _rate(billing: Any, proxy: DripProxy, **kw: Any) -> Any:
    return rate_hourly(proxy.url, billing.access_key, SecretStr(billing.secret_key), None, region="cn-north-4",
                       project_id="p", products=[Product("modelarts.vm.cpu.2u", 1)], **kw)


def test_a_dripped_rating_answer_ends_at_the_calls_deadline_in_one_line(billing: Any, dripping: DripProxy) -> None:
    # The deadline of one call: its retry budget plus one connect and read timeout (1 + 1 + 2 s).
    _, err, took = _ended(lambda: _rate(billing, dripping, retry_total_s=1.0, connect_timeout=1.0, read_timeout=2.0))
    print(f"dripped rating answer cut after {took:.2f} s (deadline 4 s)")
    assert dripping.dripping == 1  # the service's answer, dripped
    assert isinstance(err, RatingError), err
    assert str(err) == (f"the billing service at {dripping.url} did not finish its answer within 4 s (the call's "
                        "deadline)")
    assert 3.5 <= took < 4 + 2, took  # not before its deadline, and not much after (the watchdog's tick)


def test_an_answer_cut_inside_its_headers_is_cut_not_an_empty_answer(billing: Any) -> None:
    """Six bytes every 0.5 s (each read in time): at the deadline (4 s) the status line and part of the headers
    have come (about 48 bytes: inside Server or Date, before Content-Length). The shut socket ends the headers
    and the body where they are, which reads as a whole 200 with an empty body unless the call is known to be cut
    by then (client/call_limits.py marks it before the shutdown)."""
    billing.clear_faults()
    with drip_proxy(billing.url, lambda method, path: True, drip_bytes=6) as proxy:
        _, err, _took = _ended(lambda: _rate(billing, proxy, retry_total_s=1.0, connect_timeout=1.0,
                                             read_timeout=2.0))
    assert isinstance(err, RatingError), err
    assert str(err) == (f"the billing service at {proxy.url} did not finish its answer within 4 s (the call's "
                        "deadline)")


def test_a_cancel_ends_the_rating_call_at_once(billing: Any, dripping: DripProxy) -> None:
    """The engine's Cancel reaches a call as its scope's abort test (a wait's Ctrl-C, the plugin's check)."""
    asked = time.monotonic() + 1.0
    with_abort = lambda: _rate(billing, dripping)  # noqa: E731 - the default deadline (95 s): only the abort can end it

    def scoped() -> Any:
        with call_limits.limits(abort=lambda: time.monotonic() >= asked):
            return with_abort()

    _, err, took = _ended(scoped)
    assert isinstance(err, RatingError) and str(err) == (f"the billing service at {dripping.url} was not waited for "
                                                         "(cancelled)"), err
    assert took < 1.0 + 2, took


def test_a_dripping_billing_service_ends_the_preview_and_a_budget_refuses_it(dripping: DripProxy, emu: Any) -> None:
    """Through the preview: the price lookup ends by the deadline of the scope it runs in, the preview says why
    in one line, and the budget fails closed."""
    from modelarts_provider.cost.preview import cost_preview
    from modelarts_provider.stack.config import parse
    from modelarts_provider.stack.program import plan

    prices._cache.clear()
    settings = ProviderSettings(region="cn-north-4", project_id=emu.project_id, cloud="huaweicloud",
                                endpoint=emu.url, billing_endpoint=dripping.url, access_key=emu.access_key,
                                secret_key=SecretStr(emu.secret_key), retry_timeout_seconds=1)
    engine = {"name": "PyTorch", "version": "pytorch_1.8.0-cuda_10.2-py_3.7-ubuntu_18.04-x86_64"}
    cfg = parse({"obs": {"m": {"bucket": "bkt"}}, "pools": {"cpu": {"flavor": "modelarts.vm.cpu.2u"}},
                 "budget": {"max": 10},
                 "jobs": {"a": {"pool": "cpu", "codeDir": "c/", "bootFile": "t.py", "engine": engine,
                                "waitFor": "completed", "waitTimeoutSeconds": 3600}}})

    def preview() -> Any:
        with call_limits.limits(deadline=time.monotonic() + 3.0):
            return cost_preview(cfg, plan(cfg), settings)

    prev, err, took = _ended(preview)
    assert err is None, err
    print(f"preview with a dripping billing service ended after {took:.2f} s")
    assert prev.lines[0].startswith(f"cost: no price for modelarts.vm.cpu.2u: the billing service at {dripping.url} "
                                    "did not finish its answer within ")
    assert "\n" not in prev.lines[0] and prev.refusal is not None and "has no price" in prev.refusal
    prices._cache.clear()

"""Where a price comes from: the stack's table first, else the billing service with the flavor's billing code
(one flavor list read and one rating request per run, whatever the number of jobs); a price that cannot be had
is one line naming the flavors and why. Against the local ModelArts and the local billing service."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from pydantic import SecretStr

from modelarts_provider.core.provider_config import ProviderSettings
from modelarts_provider.cost import prices
from modelarts_provider.cost.config import FlavorPrice
from modelarts_provider.cost.rating import Product, RatingError, rate_hourly

GPU, CPU, POOL = "modelarts.p3.large.public", "modelarts.vm.cpu.2u", "modelarts.vm.cpu.8u32g"


@pytest.fixture(autouse=True)
def _fresh_cache() -> None:
    prices._cache.clear()


def _settings(emu: Any, billing: Any, **kw: Any) -> ProviderSettings:
    base = dict(region="cn-north-4", project_id=emu.project_id, cloud="huaweicloud", endpoint=emu.url,
                billing_endpoint=billing.url if billing is not None else None, access_key=emu.access_key,
                secret_key=SecretStr(emu.secret_key))
    return ProviderSettings(**{**base, **kw})


def test_the_billing_service_prices_each_flavor_by_its_billing_code_in_one_request(emu: Any, billing: Any) -> None:
    billing.reset()
    book = prices.price_book(_settings(emu, billing), {}, {GPU, CPU}, {POOL})
    assert {f: (p.per_node_hour, p.currency, p.source) for f, p in book.prices.items()} == {
        GPU: (Decimal("12.5"), "CNY", "billing service"), CPU: (Decimal("0.45"), "CNY", "billing service"),
        POOL: (Decimal("2.4"), "CNY", "billing service")}
    assert billing.counters()["rate_on_demand"] == 1 and emu.counters()["flavors"] == 1
    again = prices.price_book(_settings(emu, billing), {}, {GPU, CPU}, {POOL})
    assert again is book and billing.counters()["rate_on_demand"] == 1  # cached for the process


def test_the_prices_table_wins_and_needs_no_call(emu: Any, billing: Any) -> None:
    billing.reset()
    table = {GPU: FlavorPrice.model_validate({"perNodeHour": 3.2, "currency": "EUR"})}
    book = prices.price_book(_settings(emu, billing), table, {GPU}, set())
    assert book.prices[GPU] == prices.Price(Decimal("3.2"), "EUR", "prices table") and not book.missing
    assert billing.counters()["rate_on_demand"] == 0 and emu.counters()["total"] == 0


def test_a_price_that_cannot_be_had_is_one_line(emu: Any) -> None:
    book = prices.price_book(_settings(emu, None, billing_endpoint="http://127.0.0.1:9"), {}, {GPU, CPU}, set())
    assert book.prices == {} and len(book.notes()) == 1
    (note,) = book.notes()
    assert note.startswith(f"cost: no price for {GPU}, {CPU}: the billing service at http://127.0.0.1:9 did not "
                           "answer") and note.endswith("set modelarts-jobs:prices.<flavor>.perNodeHour to give one")


def test_otc_has_no_price_api_here_the_table_is_the_way(emu: Any) -> None:
    book = prices.price_book(_settings(emu, None, cloud="otc", region="eu-de"), {}, {GPU}, set())
    assert book.missing == {GPU: "Open Telekom Cloud's price API lists no ModelArts training flavor"}
    assert emu.counters()["total"] == 0


def test_on_otc_the_preview_goes_on_without_a_price_unless_a_budget_is_set(emu: Any) -> None:
    """The rule for a price that cannot be had, on OTC: one line, the items say they have no price, no refusal;
    with a budget the preview is refused, naming the item and what to set; a prices table gives the price."""
    from modelarts_provider.cost.preview import cost_preview
    from modelarts_provider.stack.config import parse
    from modelarts_provider.stack.program import plan

    otc = _settings(emu, None, cloud="otc", region="eu-de")
    engine = {"name": "PyTorch", "version": "pytorch_1.8.0-cuda_10.2-py_3.7-ubuntu_18.04-x86_64"}
    raw = {"obs": {"main": {"bucket": "bkt"}}, "pools": {"gpu": {"flavor": GPU, "maxNodes": 2}},
           "jobs": {"a": {"pool": "gpu", "codeDir": "mnist/", "bootFile": "train.py", "engine": engine,
                          "waitFor": "completed", "waitTimeoutSeconds": 3600}}}
    cfg = parse({**raw, "prices": {CPU: {"perNodeHour": 1}}})  # a table without this flavor: prices are asked for
    prev = cost_preview(cfg, plan(cfg), otc)
    assert prev.refusal is None and prev.lines[0] == (
        f"cost: no price for {GPU}: Open Telekom Cloud's price API lists no ModelArts training flavor; set "
        "modelarts-jobs:prices.<flavor>.perNodeHour to give one")
    assert f"cost: a: 1 job x 1 node x 1 h max (enforced by the service: autoStop 1 h), no price for {GPU} (see above)" \
        in prev.lines
    cfg = parse({**raw, "budget": {"max": 10, "currency": "EUR"}})
    assert cost_preview(cfg, plan(cfg), otc).refusal == (
        f"modelarts-jobs:budget: modelarts-jobs:jobs.a has no price for {GPU} (see above): set "
        f"modelarts-jobs:prices.{GPU}.perNodeHour, or make the billing service reachable")
    cfg = parse({**raw, "budget": {"max": 10, "currency": "EUR"}, "prices": {GPU: {"perNodeHour": 3, "currency": "EUR"}}})
    prev = cost_preview(cfg, plan(cfg), otc)
    assert prev.refusal is None and "cost: total: up to 3.00 EUR" in prev.lines
    assert emu.counters()["total"] == 0  # nothing asked of any service


def test_an_unknown_flavor_has_no_billing_code(emu: Any, billing: Any) -> None:
    book = prices.price_book(_settings(emu, billing), {}, {"modelarts.no.such"}, set())
    assert book.missing == {"modelarts.no.such": "the service's flavor list gives it no billing code"}


def test_the_rating_client_names_the_services_refusal(billing: Any) -> None:
    with pytest.raises(RatingError, match=r"answered 401 \(APIGW.0301"):
        rate_hourly(billing.url, billing.access_key, SecretStr("wrong-secret"), None, region="cn-north-4",
                    project_id="p", products=[Product("modelarts.vm.cpu.2u", 1)])
    rating = rate_hourly(billing.url, billing.access_key, SecretStr(billing.secret_key), None, region="cn-north-4",
                         project_id="p", products=[Product("modelarts.vm.cpu.2u", 2)])
    rate = rating.rates[Product("modelarts.vm.cpu.2u", 2)]
    # 2 billing units per node, at the list price: the bound's (the local account's 20 % discount is beside it)
    assert (rate.amount, rate.discounted, rating.refused) == (Decimal("0.9"), Decimal("0.72"), {})


def test_the_bound_reads_the_list_price_not_the_discounted_amount(emu: Any, billing: Any) -> None:
    """The local service answers both amounts differently (a 20 % discount): the price is the list price, the
    upper bound of what the account pays; the discounted amount is kept beside it."""
    book = prices.price_book(_settings(emu, billing), {}, {CPU}, set())
    assert book.prices[CPU].per_node_hour == Decimal("0.45") and book.prices[CPU].discounted == Decimal("0.36")


def test_two_flavors_of_one_billing_code_with_other_unit_counts_each_get_their_own_price(billing: Any) -> None:
    one, four = Product("modelarts.vm.cpu.2u", 1), Product("modelarts.vm.cpu.2u", 4)
    rating = rate_hourly(billing.url, billing.access_key, SecretStr(billing.secret_key), None, region="cn-north-4",
                         project_id="p", products=[one, four])
    assert rating.rates[one].amount == Decimal("0.45") and rating.rates[four].amount == Decimal("1.8")


def test_a_big_stack_is_priced_in_two_reads_not_one_per_job(emu: Any, billing: Any) -> None:
    from modelarts_provider.cost.preview import cost_preview
    from modelarts_provider.stack.config import parse
    from modelarts_provider.stack.program import plan

    billing.reset()
    engine = {"name": "PyTorch", "version": "pytorch_1.8.0-cuda_10.2-py_3.7-ubuntu_18.04-x86_64"}
    base = {"codeDir": "c/", "bootFile": "t.py", "engine": engine}
    cfg = parse({"obs": {"m": {"bucket": "bkt"}}, "pools": {"gpu": {"flavor": GPU, "maxNodes": 2}, "cpu": {"flavor": CPU}},
                 "sweeps": {"big": {**base, "pool": "gpu", "nodes": 2, "grid": {"lr": list(range(200))},
                                    "waitFor": "completed", "waitTimeoutSeconds": 6 * 3600}},
                 "jobs": {f"j{i}": {**base, "pool": "cpu", "autoStopHours": 2} for i in range(20)}})
    result = cost_preview(cfg, plan(cfg), _settings(emu, billing))
    assert emu.counters()["flavors"] == 1 and billing.counters()["rate_on_demand"] == 1
    assert ("cost: big: 200 jobs x 2 nodes x 6 h max "
            "(enforced by the service: autoStop 6 h) x 12.50 CNY/node-hour = up to 30,000.00 CNY") in result.lines
    assert result.lines[-1] == "cost: total: up to 30,018.00 CNY" and result.refusal is None


def test_another_modelarts_endpoint_never_falls_back_to_the_public_billing_service(emu: Any) -> None:
    book = prices.price_book(_settings(emu, None), {}, {GPU}, set())  # a budget's lookup without billingEndpoint
    assert book.missing == {GPU: "modelarts:endpoint is set but modelarts:billingEndpoint is not"}
    assert emu.counters()["total"] == 0
    assert prices.billing_endpoint(_settings(emu, None, endpoint=None)) == prices.HUAWEICLOUD_BSS

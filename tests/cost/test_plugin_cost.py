"""The plugin door's cost, unit by unit (no engine): a TrainingJob's and a ResourcePool's items from their
inputs, the running total a provider process keeps, its budget's refusal and `modelarts:budget`'s bad input."""

from __future__ import annotations

from decimal import Decimal

import pytest

from modelarts_provider.cost.plugin_cost import BudgetError, Tally, job_items, parse_budget, parse_prices, pool_items
from modelarts_provider.cost.prices import Price, PriceBook

CPU, POOL = "modelarts.vm.cpu.2u", "modelarts.vm.gpu.tnt004"
BOOK = PriceBook(prices={CPU: Price(Decimal("0.45"), "CNY", "billing service"),
                         POOL: Price(Decimal("9.6"), "CNY", "billing service")})


def _search_job(**kw: object) -> dict[str, object]:
    params = [{"key": "num_samples", "value": "8", "type": "Integer"}, {"key": "max_concurrent", "value": "2"}]
    return {"flavor_id": CPU, "node_count": 2, "auto_stop": {"duration": 1},
            "algorithm": {"policies": {"auto_search": {"algo_configs": [{"name": "tpe_search", "params": params}]}}},
            **kw}


def test_a_search_job_is_one_job_bounded_by_its_auto_stop() -> None:
    (it,) = job_items("tune", _search_job(), BOOK)
    assert it.kind == "search" and it.bound == Decimal("0.9")
    assert it.line() == ("tune: 1 job x 2 nodes (a search: every trial in this job, 8 trials, 2 at once) x 1 h max "
                         "(enforced by the service: autoStop 1 h) x 0.45 CNY/node-hour = up to 0.90 CNY")
    assert job_items("later", {"flavor_id": {"unknown": True}}, BOOK) == []  # another resource's output: not yet
    (on_pool,) = job_items("p", {"flavor_id": CPU, "pool_id": "pool-1"}, BOOK)
    assert on_pool.line() == "p: 1 job on dedicated pool pool-1: billed by the pool"
    from modelarts_provider.core.unknowns import UNKNOWN

    (later,) = job_items("q", {"flavor_id": CPU, "pool_id": UNKNOWN}, BOOK)  # a ResourcePool's id at preview
    assert later.line() == "q: 1 job on a pool not known yet: billed by the pool"


def test_a_pool_bills_each_flavor_per_hour_bounded_only_by_the_budgets_pool_hours() -> None:
    inputs = {"resources": [{"flavor": POOL, "count": 2}, {"flavor": CPU, "count": 1}]}
    gpu, cpu = pool_items("own", inputs, BOOK, None)
    assert gpu.name == f"own ({POOL})" and gpu.hourly == Decimal("19.2") and gpu.bound is None
    assert "19.20 CNY per hour, while it exists (set modelarts:budget.poolHours to bound it)" in gpu.line()
    gpu, _ = pool_items("own", inputs, BOOK, 10)
    assert gpu.bound == Decimal("192")


def test_the_tally_adds_every_resource_and_refuses_above_the_budget() -> None:
    tally = Tally(budget=parse_budget({"max": 2.0}))
    lines, refused = tally.say("a", job_items("a", {"flavor_id": CPU, "node_count": 2, "auto_stop": {"duration": 2}},
                                              BOOK), BOOK)
    assert refused is None and lines[-1] == "cost: total: up to 1.80 CNY (1 resource of this provider checked so far)"
    pool = pool_items("own", {"resources": [{"flavor": POOL, "count": 1}]}, BOOK, None)
    _, refused = tally.say("own", pool, BOOK)
    assert refused == "modelarts:budget: own has no upper bound: set modelarts:budget.poolHours to bound it"
    tally.budget = parse_budget({"max": 2, "poolHours": 1})
    _, refused = tally.say("own", pool_items("own", {"resources": [{"flavor": POOL, "count": 1}]}, BOOK, 1), BOOK)
    assert refused == ("modelarts:budget: the resources checked so far can bill up to 11.40 CNY, more than its "
                       "budget of 2.00 CNY; largest: own 9.60, a 1.80")
    # a resource checked again replaces its items; a missing price under a budget names what to set
    _, refused = tally.say("own", [], BOOK)
    assert refused is None
    _, refused = tally.say("b", job_items("b", {"flavor_id": "modelarts.no.price", "auto_stop": {"duration": 1}},
                                          BOOK), BOOK)
    assert refused == ("modelarts:budget: b has no price for modelarts.no.price (see above): set "
                       "modelarts:prices.<flavor>.perNodeHour to give one, or modelarts:billingEndpoint to a "
                       "billing service that prices it")


@pytest.mark.parametrize("raw,line", [
    ("ten", "modelarts:budget: must be a map {max, currency, poolHours}, not 'ten'"),
    ({"max": 0}, "modelarts:budget.max: must be greater than 0, not 0"),
    ({"max": 5, "currency": "cny"}, "modelarts:budget.currency: must be a currency code of three capital letters, "
                                    "e.g. CNY or EUR, not 'cny'"),
    ({"max": 5, "hours": 3}, "modelarts:budget.hours: is not a known field"),
])
def test_a_bad_budget_is_one_line_naming_the_field(raw: object, line: str) -> None:
    with pytest.raises(BudgetError) as err:
        parse_budget(raw)
    assert str(err.value) == line


def test_under_a_budget_a_job_whose_flavor_is_not_known_at_preview_is_refused() -> None:
    """A flavor from another resource's output cannot be priced at preview: under a budget the check says so (never
    a silent pass); without one, nothing is said and no price is asked for."""
    from pydantic import SecretStr

    from modelarts_provider.core.provider_config import ProviderSettings
    from modelarts_provider.core.unknowns import UNKNOWN
    from modelarts_provider.plugin.provider import _say_cost

    class Provider:
        _settings = ProviderSettings(region="cn-north-4", project_id="p", cloud="huaweicloud",
                                     endpoint="http://127.0.0.1:9", billing_endpoint="http://127.0.0.1:9",
                                     access_key="AK", secret_key=SecretStr("SK"))

    urn = "urn:pulumi:test::yaml-jobs::modelarts:index:TrainingJob::x"
    assert _say_cost(Tally(budget=parse_budget({"max": 5})), Provider(), "TrainingJob", urn,
                     {"flavor_id": UNKNOWN, "node_count": 1}) == (
        "modelarts:budget: x's flavorId and nodeCount must be known at preview to be held to the budget: give them as "
        "values, not another resource's outputs")
    assert _say_cost(Tally(), Provider(), "TrainingJob", urn, {"flavor_id": UNKNOWN}) is None


@pytest.mark.parametrize("raw,line", [
    ("[1", "modelarts:prices: must be a map {<flavor>: {perNodeHour, currency}}, not '[1'"),
    ({"f": {"perNodeHour": -1}}, "modelarts:prices.f.perNodeHour: must be at least 0, not -1"),
    ({"f": {"per_node_hour": 1}}, "modelarts:prices.f.perNodeHour: is required"),
])
def test_a_bad_prices_table_is_one_line_naming_the_field(raw: object, line: str) -> None:
    with pytest.raises(BudgetError) as err:
        parse_prices(raw)
    assert str(err.value) == line


def test_the_prices_table_prices_a_job_with_no_billing_service() -> None:
    """The plugin's `modelarts:prices` is the stack's `prices:` table: it prices a flavor, in its currency, without
    asking any billing service (an OTC provider has none with ModelArts prices)."""
    from modelarts_provider.core.provider_config import ProviderSettings
    from modelarts_provider.cost.plugin_cost import price_for

    settings = ProviderSettings(cloud="otc", region="eu-de", project_id="p", access_key="ak", secret_key="sk",
                                endpoint="http://127.0.0.1:1")
    tally = Tally(prices=parse_prices({"modelarts.vm.cpu.2u": {"perNodeHour": 1.5, "currency": "EUR"}}))
    book = price_for(settings, {"modelarts.vm.cpu.2u"}, set(), tally)
    assert book is not None and not book.missing
    items = job_items("j", {"flavor_id": "modelarts.vm.cpu.2u", "node_count": 2, "auto_stop": {"duration": 3}}, book)
    assert [it.line() for it in items] == ["j: 1 job x 2 nodes x 3 h max (enforced by the service: autoStop 3 h) x 1.50 EUR/node-hour = up to 9.00 EUR"]
    assert price_for(settings, {"x"}, set(), Tally()) is None  # nothing asks for prices: none read

"""The plugin's front door to the service's own search (YAML/TypeScript programs), without the engine: the
same algorithm catalog check at check, and a JobsAwait entry with `search` reading the trials (one request per poll)."""

from __future__ import annotations

from typing import Any

from modelarts_provider.plugin.values import plain_map, property_map
from pulumi.provider.experimental import provider as p
from tests.plugin.conftest import _the_threads_event_loop_put_back  # noqa: F401 - autouse: the loop put back
from tests.plugin.test_plugin_provider import URN, _configured, _create, _job_inputs, _run

AUTO_SEARCH = {
    "reward_attrs": [{"name": "accuracy", "mode": "max", "regex": "accuracy=([0-9.]+)"}],
    "search_params": [{"name": "momentum", "param_type": "continuous", "lower_bound": "0.5", "upper_bound": "0.9"}],
    "algo_configs": [{"name": "tpe_search", "params": [{"key": "num_samples", "value": "4", "type": "Integer"},
                                                       {"key": "max_concurrent", "value": "2", "type": "Integer"}]}],
}


def _search_job(**auto: Any) -> dict[str, Any]:
    inputs = _job_inputs(name="plugin-search")
    inputs["algorithm"] = {**inputs["algorithm"], "policies": {"auto_search": {**AUTO_SEARCH, **auto}}}
    return inputs


def test_the_plugin_refuses_an_unknown_search_algorithm_at_check(emulator: Any) -> None:
    plugin = _configured(emulator)
    bad = _search_job(algo_configs=[{"name": "anneal_serch"}])
    checked = _run(plugin.check(p.CheckRequest(URN.format("TrainingJob", "s"), {}, property_map(bad), b"seed")))
    # the schema's camelCase names; a nested path leads the reason (the engine looks up top-level inputs only)
    assert [(f.property, f.reason) for f in checked.failures] == [
        ("", "algorithm.policies.autoSearch.algoConfigs[0].name: unknown search algorithm 'anneal_serch' in "
             "cn-north-4; did you mean anneal_search?")]
    assert emulator.counters()["create"] == 0


def test_the_plugin_waits_for_a_search_and_reads_its_trials(emulator: Any) -> None:
    plugin = _configured(emulator)
    job = _create(plugin, "TrainingJob", "s", _search_job())
    jobs = {"s": {"job_id": job.resource_id, "job_name": "plugin-search", "wait_for": "completed",
                  "poll_seconds": 0.1, "search": {"name": "accuracy", "regex": "accuracy=([0-9.]+)"}}}
    waited = plain_map(_create(plugin, "JobsAwait", "waited", {"jobs": jobs}, timeout=120).properties)
    trials = waited["statuses"]["s"]["search"]["trials"]
    assert len(trials) == 4 and all(t["phase"] == "Completed" and t["reward"] for t in trials), trials
    c = emulator.counters()  # at most one trials request per poll of the job (and one at the end), never per trial
    assert 1 <= c.get("autosearch_trials", 0) <= c["get"] + 1, c

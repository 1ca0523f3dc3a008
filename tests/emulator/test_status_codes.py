"""Issue 57: every route of the local ModelArts answers success with the status its API page documents.

The table is docs/assumptions.md's "Success status codes, route by route" (route, status, page): this test reads
it, calls every route once over real HTTP, signed as the official SDK signs, and compares what came back with
the table, all routes at once. A route the emulator serves and the table lacks (or the reverse) fails too.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Callable

import pytest
import requests

from modelarts_emulator.responses import OPERATIONS
from tests.emulator.helpers import Api, minimal_job
from tests.emulator.test_auto_search import search_job

DOC = Path(__file__).resolve().parents[2] / "docs" / "assumptions.md"
POOL_FLAVOR = "modelarts.vm.cpu.8u32g"


def documented() -> dict[str, tuple[str, int]]:
    """operation -> (route as written, documented status), from the table in docs/assumptions.md."""
    text = DOC.read_text()
    section = text.split("## Success status codes, route by route", 1)[1].split("\n## ", 1)[0]
    rows: dict[str, tuple[str, int]] = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 3 and re.fullmatch(r"[a-z_]+", cells[0]) and cells[2].isdigit():
            assert cells[0] not in rows, f"{cells[0]} twice in the table"
            rows[cells[0]] = (cells[1], int(cells[2]))
    return rows


def test_the_table_names_every_route_the_emulator_serves() -> None:
    assert set(documented()) == set(OPERATIONS)


class World:
    """A running job, an auto-search job with a running trial, an Active network and a Running pool."""

    def __init__(self, api: Api) -> None:
        self.api, p, v1 = api, api.base, f"/v1/{api.emu.project_id}"
        self.v1 = v1
        self.job = self._ok(api.create(minimal_job("status-codes")))["metadata"]["id"]
        self.other = self._ok(api.create(minimal_job("status-codes-2")))["metadata"]["id"]
        self.search = self._ok(api.create(search_job("status-codes-search")))["metadata"]["id"]
        net = self._ok(api.call("POST", f"{v1}/networks", {
            "apiVersion": "v1", "kind": "Network", "metadata": {"labels": {"os.modelarts/name": "net-codes"}},
            "spec": {"cidr": "192.168.128.0/17"}}))
        self.network = net["metadata"]["name"]
        api.advance(2)  # the network is Active
        pool = self._ok(api.call("POST", f"{p}/pools", {
            "apiVersion": "v2", "kind": "Pool", "metadata": {"labels": {"os.modelarts/name": "pool-codes"}},
            "spec": {"type": "Dedicate", "scope": ["Train"],
                     "resources": [{"flavor": POOL_FLAVOR, "count": 1, "maxCount": 1}],
                     "network": {"name": self.network}}}))
        self.pool = pool["metadata"]["name"]
        self.order = pool["metadata"]["labels"]["os.modelarts/order.name"]
        api.advance(72)  # jobs Running (30 s Creating, 30 s Pending), the first trials running, the pool Running
        trials = self._ok(api.call("GET", f"{p}/training-jobs/{self.search}/autosearch-trials"))
        self.trial = dict(zip(trials["items"]["header"], trials["items"]["data"][0]))["trial_id"]

    @staticmethod
    def _ok(response: requests.Response) -> dict:
        assert response.status_code < 300, response.text
        return response.json()


def drivers(w: World) -> dict[str, Callable[[], requests.Response]]:
    """One call per operation, in an order where each finds what it needs (deletes last)."""
    api, p, v1, j = w.api, w.api.base, w.v1, f"{w.api.base}/training-jobs/{w.job}"
    tags = f"{p}/modelarts-training-job"
    s = f"{p}/training-jobs/{w.search}"

    def iam() -> requests.Response:
        e = api.emu
        return requests.post(f"{e.url}/v3/auth/tokens", timeout=30, json={"auth": {"identity": {
            "methods": ["password"], "password": {"user": {"name": "emulator-user", "password": "emulator-password",
                                                           "domain": {"name": "emulator-domain"}}}},
            "scope": {"project": {"id": e.project_id}}}})

    return {
        "iam_token": iam,
        "create": lambda: api.create(minimal_job("status-codes-3")),
        "get": lambda: api.call("GET", j),
        "update": lambda: api.call("PUT", j, {"description": "new"}),
        "search": lambda: api.call("POST", f"{p}/training-job-searches", {"limit": 5}),
        "logs": lambda: api.call("GET", f"{j}/tasks/worker-0/logs/preview"),
        "log_url": lambda: api.call("GET", f"{j}/tasks/worker-0/logs/url"),
        "log_lines": lambda: api.call("GET", f"{j}/logs/worker-0", query=[("lines", 5)]),
        "tasks": lambda: api.call("GET", f"{j}/tasks"),
        "metrics": lambda: api.call("GET", f"{j}/metrics/worker-0"),
        "events": lambda: api.call("GET", f"{j}/events"),
        "name_taken": lambda: api.call("GET", f"{p}/training-job-names", query=[("job_name", "x")]),
        "quotas": lambda: api.call("GET", f"{p}/training-quotas"),
        "flavors": lambda: api.call("GET", f"{p}/training-job-flavors"),
        "engines": lambda: api.call("GET", f"{p}/training-job-engines"),
        "algorithms": lambda: api.call("GET", f"{p}/algorithms"),
        "algorithm": lambda: api.call("GET", f"{p}/algorithms/{_first_algorithm(api)}"),
        "tags_create": lambda: api.call("POST", f"{tags}/{w.job}/tags/create", {"tags": [{"key": "k", "value": "v"}]}),
        "tags_get": lambda: api.call("GET", f"{tags}/{w.job}/tags"),
        "tags_project": lambda: api.call("GET", f"{tags}/tags"),
        "tags_filter": lambda: api.call("POST", f"{tags}/resource-instances/filter", {"tags": [{"key": "k"}]}),
        "tags_count": lambda: api.call("POST", f"{tags}/resource-instances/count", {"tags": [{"key": "k"}]}),
        "tags_delete": lambda: api.call("DELETE", f"{tags}/{w.job}/tags/delete", {"tags": [{"key": "k"}]}),
        "search_algorithms": lambda: api.call("GET", f"{p}/search-algorithms"),
        "autosearch_yaml_templates": lambda: api.call("GET", f"{p}/training-jobs/autosearch/yaml-templates"),
        "autosearch_yaml_template": lambda: api.call(
            "GET", f"{p}/training-jobs/autosearch/yaml-templates/hpo/Bayes"),
        "autosearch_trials": lambda: api.call("GET", f"{s}/autosearch-trials"),
        "autosearch_trial": lambda: api.call("GET", f"{s}/autosearch-trials/{w.trial}"),
        "autosearch_analysis": lambda: api.call("GET", f"{s}/autosearch-parameter-analysis"),
        "autosearch_analysis_path": lambda: api.call("GET", f"{s}/autosearch-parameter-analysis/lr"),
        "autosearch_earlystop": lambda: api.call("POST", f"{s}/autosearch-trial-earlystop/{w.trial}"),
        "network_list": lambda: api.call("GET", f"{v1}/networks"),
        "network_get": lambda: api.call("GET", f"{v1}/networks/{w.network}"),
        "network_update": lambda: api.call("PATCH", f"{v1}/networks/{w.network}", {"spec": {}}),
        "resource_flavors": lambda: api.call("GET", f"{v1}/resourceflavors"),
        "order_list": lambda: api.call("GET", f"{v1}/orders"),
        "order_get": lambda: api.call("GET", f"{v1}/orders/{w.order}"),
        "pool_list": lambda: api.call("GET", f"{p}/pools"),
        "pool_get": lambda: api.call("GET", f"{p}/pools/{w.pool}"),
        "pool_nodes": lambda: api.call("GET", f"{p}/pools/{w.pool}/nodes"),
        "pool_update": lambda: api.call("PATCH", f"{p}/pools/{w.pool}",
                                        {"spec": {"resources": [{"flavor": POOL_FLAVOR, "count": 2}]}}),
        "terminate": lambda: api.terminate(w.job),
        "delete": lambda: api.delete(w.job),
        "batch_delete": lambda: api.call("POST", f"{p}/training-jobs/batch-delete",
                                         {"jobs": [{"kind": "job", "metadata": {"id": w.other}}]}),
        "pool_delete": lambda: api.call("DELETE", f"{p}/pools/{w.pool}"),
        "network_delete": lambda: _after_pool_gone(api, f"{v1}/networks/{w.network}"),
        "pool_create": lambda: _pool_create(api, w),
        "network_create": lambda: api.call("POST", f"{v1}/networks", {
            "apiVersion": "v1", "kind": "Network", "metadata": {"labels": {"os.modelarts/name": "net-codes-2"}},
            "spec": {"cidr": "192.168.0.0/17"}}),
    }


def _first_algorithm(api: Api) -> str:
    return api.call("GET", f"{api.base}/algorithms").json()["items"][0]["metadata"]["id"]


def _after_pool_gone(api: Api, network: str) -> requests.Response:
    api.advance(60)  # the deleted pool is gone: its network is no longer in use
    return api.call("DELETE", network)


def _pool_create(api: Api, w: World) -> requests.Response:
    net = api.call("POST", f"{w.v1}/networks", {
        "apiVersion": "v1", "kind": "Network", "metadata": {"labels": {"os.modelarts/name": "net-codes-3"}},
        "spec": {"cidr": "10.0.0.0/16"}}).json()["metadata"]["name"]
    api.advance(2)
    return api.call("POST", f"{api.base}/pools", {
        "apiVersion": "v2", "kind": "Pool", "metadata": {"labels": {"os.modelarts/name": "pool-codes-2"}},
        "spec": {"type": "Dedicate", "scope": ["Train"], "resources": [{"flavor": POOL_FLAVOR, "count": 1,
                                                                         "maxCount": 1}],
                 "network": {"name": net}}})


def test_every_route_answers_its_documented_success_status(emu, api: Api) -> None:
    table = documented()
    calls = drivers(World(api))
    assert set(calls) == set(table), "a driver for every documented route"
    got, bodies = {}, {}
    for op, call in calls.items():
        response = call()
        got[op], bodies[op] = response.status_code, response.text[:200]
    expected = {op: status for op, (_, status) in table.items()}
    wrong = {op: (got[op], expected[op], bodies[op]) for op in table if got[op] != expected[op]}
    assert not wrong, wrong
    for op in ("tags_create", "tags_delete", "delete", "batch_delete"):  # documented with no body
        assert bodies[op] == "", (op, bodies[op])


@pytest.mark.parametrize("method, tail", [
    ("POST", "training-jobs/batch-delete/extra"),
    ("GET", "training-jobs/autosearch"),
    ("DELETE", "training-jobs/autosearch"),
    ("GET", "training-jobs/batch-delete/tasks"),
    ("POST", "training-jobs/batch-delete/actions"),
    ("GET", "training-jobs/{job}/tasks/worker-0/logs/nowhere"),
    ("GET", "training-job-quotas"),
])
def test_a_path_the_emulator_lacks_answers_as_the_gateway_never_as_a_job_id(emu, api: Api, method: str,
                                                                             tail: str) -> None:
    job = api.create(minimal_job("gateway-404")).json()["metadata"]["id"]
    response = api.call(method, f"{api.base}/{tail.format(job=job)}", {} if method == "POST" else None)
    assert response.status_code == 404, response.text
    assert response.json()["error_code"] == "APIGW.0101"
    assert response.json()["error_msg"] == "The API does not exist or has not been published in the environment"

"""Delete, update, search, routing, and 50 parallel creates."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from modelarts_emulator.testing import running_emulator
from tests.emulator.helpers import HELD, Api, minimal_job


@pytest.fixture(scope="module")
def emulator_times() -> dict[str, float]:
    return {**HELD, "delete_seconds": 30}  # a deleted job stays until the test moves the clock


def test_delete_is_asynchronous(api):
    """As the service's (Terraform's provider polls GET until ModelArts.2775 after its DELETE): the job is
    answered for a while (--delete-seconds, here the phase time), and holds its name, then it is gone."""
    job_id = api.create(minimal_job("to-delete")).json()["metadata"]["id"]
    r = api.delete(job_id)
    assert r.status_code == 202 and r.content == b""
    assert api.get(job_id).status_code == 200
    assert api.delete(job_id).status_code == 202  # again while it is being deleted: accepted
    r = api.create(minimal_job("to-delete"))
    assert r.status_code == 400 and r.json()["error_code"] == "ModelArts.2751"  # its name is still held
    api.advance(30)
    r = api.get(job_id)
    assert r.status_code == 400 and r.json()["error_code"] == "ModelArts.2775"
    assert job_id not in [j["metadata"]["id"] for j in api.search({}).json()["items"]]
    r = api.delete(job_id)
    assert r.status_code == 400 and r.json()["error_code"] == "ModelArts.2775"
    # the name is free again
    assert api.create(minimal_job("to-delete")).status_code == 201


def test_delete_at_once_with_delete_seconds_zero(tmp_path):
    with running_emulator(tmp_path, **{**HELD, "delete_seconds": 0}) as emu:
        api = Api(emu)
        job_id = api.create(minimal_job("gone-at-once")).json()["metadata"]["id"]
        assert api.delete(job_id).status_code == 202
        assert api.get(job_id).json()["error_code"] == "ModelArts.2775"


def test_update_description(api):
    job_id = api.create(minimal_job("to-update")).json()["metadata"]["id"]
    r = api.update(job_id, {"description": "new words"})
    assert r.status_code == 200 and r.json()["metadata"]["description"] == "new words"
    assert api.get(job_id).json()["metadata"]["description"] == "new words"
    r = api.update(job_id, {"description": "x" * 257})
    assert r.status_code == 400 and r.json()["error_code"] == "ModelArts.2788"
    assert "description" in r.json()["error_msg"]
    r = api.update(job_id, {})
    assert r.status_code == 400 and r.json()["error_code"] == "ModelArts.2788"
    r = api.update("00000000-0000-0000-0000-000000000000", {"description": "x"})
    assert r.status_code == 400 and r.json()["error_code"] == "ModelArts.2775"


def test_search_filters_sort_and_paging(api):
    ids = {}
    for name in ("sweep-a", "sweep-b", "sweep-c", "other"):
        ids[name] = api.create(minimal_job(name)).json()["metadata"]["id"]
    api.terminate(ids["other"])
    r = api.search({"offset": 0, "limit": 10, "sort_by": "create_time", "order": "asc",
                    "filters": [{"key": "name", "operator": "like", "value": ["sweep"]}]})
    assert r.status_code == 200, r.text
    page = r.json()
    assert page["total"] == 3 and page["count"] == 3 and page["limit"] == 10
    assert [j["metadata"]["name"] for j in page["items"]] == ["sweep-a", "sweep-b", "sweep-c"]
    r = api.search({"filters": [{"key": "name", "operator": "in", "value": ["sweep-b", "x"]}]})
    assert [j["metadata"]["id"] for j in r.json()["items"]] == [ids["sweep-b"]]
    r = api.search({"filters": [{"key": "phase", "operator": "in", "value": ["Terminating"]}]})
    assert [j["metadata"]["name"] for j in r.json()["items"]] == ["other"]
    r = api.search({"limit": 2, "offset": 1, "sort_by": "name", "order": "desc"})
    page = r.json()
    assert page["total"] == 4 and page["count"] == 2 and page["offset"] == 1
    # offset counts pages (of `limit` jobs): the second page
    assert [j["metadata"]["name"] for j in page["items"]] == ["sweep-a", "other"]


@pytest.mark.parametrize("body,param", [
    ({"limit": 0}, "limit"),
    ({"limit": 51}, "limit"),
    ({"offset": -1}, "offset"),
    ({"order": "sideways"}, "order"),
    ({"filters": [{"key": "color", "operator": "in", "value": ["x"]}]}, "filters[0].key"),
    ({"filters": [{"key": "name", "operator": "regex", "value": ["x"]}]}, "filters[0].operator"),
])
def test_search_validation(api, body, param):
    r = api.search(body)
    assert r.status_code == 400 and r.json()["error_code"] == "ModelArts.2788"
    assert param in r.json()["error_msg"]


def test_unknown_route_and_method(api):
    r = api.call("GET", f"{api.base}/notebooks")
    # the API gateway's own 404 body (not a ModelArts error): same request id in body and header
    assert r.status_code == 404 and r.json() == {
        "error_code": "APIGW.0101",
        "error_msg": "The API does not exist or has not been published in the environment",
        "request_id": r.headers["X-Request-Id"]}
    assert r.raw.headers.getlist("X-Request-Id") == [r.json()["request_id"]]  # one header, not two
    # a wrong endpoint prefix reaches no API either, whatever follows it
    assert api.call("GET", f"/modelarts{api.base}/training-jobs/x").json()["error_code"] == "APIGW.0101"
    r = api.call("PATCH", f"{api.base}/training-jobs/x", {})
    assert r.status_code == 405


def test_fifty_parallel_creates(emu):
    api = Api(emu)

    def create(i: int) -> int:
        return Api(emu).create(minimal_job(f"parallel-{i:02d}")).status_code

    with ThreadPoolExecutor(max_workers=50) as pool:
        codes = list(pool.map(create, range(50)))
    assert codes == [201] * 50
    jobs = emu.jobs()
    assert len(jobs) == 50 and len({j["metadata"]["id"] for j in jobs}) == 50
    assert emu.counters()["create"] == 50
    # the same name raced 10 times: exactly one wins
    with ThreadPoolExecutor(max_workers=10) as pool:
        codes = list(pool.map(lambda _: Api(emu).create(minimal_job("race")).status_code,
                              range(10)))
    assert sorted(codes) == [201] + [400] * 9
    assert api.search({"filters": [{"key": "name", "operator": "in",
                                    "value": ["race"]}]}).json()["total"] == 1

"""Issue 21 item 5: a wrong endpoint (the gateway's "no such API" 404, or nothing listening) fails at once,
without retries, names the URL tried and the setting to fix, and is reported in full once per process;
the documented ModelArts.2775 keeps meaning "gone"."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from testkit.sleeps import record_sleeps
from modelarts_provider.client import AkSkCredentials, ClientSettings, ModelArtsClient, ModelArtsError


@pytest.fixture(scope="module")
def emu(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from modelarts_emulator.testing import running_emulator

    with running_emulator(tmp_path_factory.mktemp("emulator")) as e:
        yield e


def _client(emu: Any, endpoint: str, **kw: Any) -> ModelArtsClient:
    return ModelArtsClient(ClientSettings(region="cn-north-4", project_id=emu.project_id, endpoint=endpoint,
                                          credentials=AkSkCredentials(access_key=emu.access_key,
                                                                      secret_key=emu.secret_key), **kw))


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_wrong_prefix_names_the_url_and_the_setting_once(emu: Any) -> None:
    wrong = emu.url + "/wrong-prefix"
    before = emu.counters()["total"]
    with _client(emu, wrong) as client:
        with pytest.raises(ModelArtsError) as first:
            client.list_jobs()
        text = str(first.value)
        assert f"POST {wrong}/v2/{emu.project_id}/training-job-searches: no ModelArts API at this URL" in text
        assert f"fix modelarts:endpoint (now {wrong}: the URL before /v2/<project id>)" in text
        assert first.value.error_code == "APIGW.0101" and not first.value.retryable
        # later calls of the same run: not sent, one short line pointing at the same fix
        for call in (lambda: client.get_job("j1"), lambda: client.delete_job("j1")):
            with pytest.raises(ModelArtsError) as later:
                call()
            assert str(later.value) == (f"APIGW.0101 no ModelArts API at {wrong} (HTTP 404): not sent (an earlier "
                                        "call of this run found it); fix modelarts:endpoint")
            assert not later.value.is_not_found and later.value.status == 404
    assert emu.counters()["total"] == before  # the gateway's 404 is not an API call


def test_a_refused_connection_is_not_retried_and_names_the_setting(emu: Any) -> None:
    url = f"http://127.0.0.1:{_closed_port()}"
    # A retry would back off first: backoffs are recorded instead of slept, and there must be none.
    with _client(emu, url, max_retries=4, backoff_factor=5, backoff_max=20) as client:
        with pytest.MonkeyPatch.context() as mp:
            slept = record_sleeps(mp)
            with pytest.raises(ModelArtsError) as first:
                client.get_job("abc")
        assert slept == [], "a refused connection was retried"
    assert str(first.value) == (f"Client.ConnectionError GET {url}/v2/{emu.project_id}/training-jobs/abc failed: "
                                f"connection refused: nothing listens at {url}: fix modelarts:endpoint, or start "
                                "the service there (not retried)")
    assert not first.value.retryable


def test_without_an_override_the_hint_names_region_and_cloud() -> None:
    settings = ClientSettings(region="cn-north-4", project_id="p",
                              credentials=AkSkCredentials(access_key="AK", secret_key="sk-secret-value-1"))
    client = ModelArtsClient(settings)
    assert client._setting("endpoint", "modelarts:endpoint") == (
        "modelarts:region and modelarts:cloud (or set modelarts:endpoint)")


def test_once_the_endpoint_answered_a_gateway_404_is_one_routes_error(emu: Any) -> None:
    """An API not published (one route) after the endpoint answered: reported each time, nothing latched."""
    with _client(emu, emu.url) as client:
        client.list_jobs()
        emu.set_faults([{"operation": "get", "status": 404, "times": 1}])
        try:
            with pytest.raises(ModelArtsError) as err:
                client.get_job("nope")
            assert not err.value.endpoint_problem and not err.value.is_not_found
            assert client.get_job("nope") is None  # ModelArts.2775: gone, as documented
        finally:
            emu.set_faults([])


def test_an_address_that_answered_before_is_retried_when_it_refuses(tmp_path: Path) -> None:
    """A restart of the service mid-run is a blip, not a wrong endpoint: retried as before."""
    from modelarts_provider.client.transport import Transport

    t = Transport()
    t._answered.add("http://127.0.0.1:9")
    assert not t.never_answered("http://127.0.0.1:9/v2/p/x")
    assert t.never_answered("http://127.0.0.1:10/v2/p/x")

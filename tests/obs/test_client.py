"""modelarts_provider.obs: settings from the `modelarts:` config / environment, endpoints, the
botocore-based client against the local OBS (retries, errors, listing), and ObsError."""

from __future__ import annotations

import pickle
import re
from typing import Any

import pytest

from modelarts_provider.obs import (ObsClient, ObsConfigError, ObsError, bucket_name_problem, obs_endpoint,
                                    resolve_obs_endpoint, resolve_obs_settings)

LOC = {"LocationConstraint": "cn-north-4"}


def settings_from(config: dict[str, str], env: dict[str, str] | None = None) -> Any:
    return resolve_obs_settings(lambda k: config.get(k), env or {})


def client_for(obs: Any, **extra: Any) -> ObsClient:
    s = settings_from({"region": "cn-north-4", "accessKey": obs.access_key, "secretKey": obs.secret_key,
                       "obsEndpoint": obs.url})
    return ObsClient(type(s).model_validate({**s.model_dump(), **extra}))


@pytest.mark.parametrize("cloud, region, url", [
    ("huaweicloud", "cn-north-4", "https://obs.cn-north-4.myhuaweicloud.com"),
    ("huaweicloud", "ap-southeast-1", "https://obs.ap-southeast-1.myhuaweicloud.com"),
    ("huaweicloud", "eu-west-101", "https://obs.eu-west-101.myhuaweicloud.eu"),
    ("otc", "eu-de", "https://obs.eu-de.otc.t-systems.com"),
    ("otc", "eu-nl", "https://obs.eu-nl.otc.t-systems.com"),
    ("otc", "eu-ch2", "https://obs.eu-ch2.sc.otc.t-systems.com"),
])
def test_endpoints(cloud: Any, region: str, url: str) -> None:
    assert obs_endpoint(cloud, region) == url
    assert resolve_obs_endpoint(cloud, region, "http://127.0.0.1:8781/") == "http://127.0.0.1:8781"


@pytest.mark.parametrize("override, problem", [
    ("127.0.0.1:8781", "expected http(s)://host[:port]"),
    ("http://h/bucket", "no path allowed"),
    ("http://h?x=1", "expected http(s)://host[:port]"),
])
def test_bad_endpoint_override(override: str, problem: str) -> None:
    with pytest.raises(ValueError, match=re.escape(problem)):
        resolve_obs_endpoint("huaweicloud", "cn-north-4", override)


def test_settings_from_config_and_environment() -> None:
    s = settings_from({"region": "eu-de"}, {"OS_ACCESS_KEY": "AK", "OS_SECRET_KEY": "SK-secret",
                                            "OS_SECURITY_TOKEN": "TOKEN-secret"})
    assert (s.cloud, s.endpoint, s.access_key) == ("otc", "https://obs.eu-de.otc.t-systems.com", "AK")
    assert "SK-secret" not in repr(s) and "TOKEN-secret" not in repr(s)
    s = settings_from({"region": "cn-north-4", "accessKey": "AK", "secretKey": "SK"},
                      {"HW_ACCESS_KEY": "ENVAK", "OBS_ENDPOINT": "http://127.0.0.1:8781"})
    assert (s.access_key, s.endpoint, s.security_token) == ("AK", "http://127.0.0.1:8781", None)


@pytest.mark.parametrize("config, message", [
    ({"region": "cn-north-4", "iamUser": "u", "iamPassword": "p"},
     "OBS needs AK/SK: set modelarts:accessKey (or HW_ACCESS_KEY / OS_ACCESS_KEY) and modelarts:secretKey "
     "(or HW_SECRET_KEY / OS_SECRET_KEY); an IAM user/password login is not accepted by OBS's "
     "S3-compatible API"),
    ({"region": "cn-north-4", "accessKey": "AK"},
     "OBS needs AK/SK: missing modelarts:secretKey (or HW_SECRET_KEY / OS_SECRET_KEY)"),
    ({"accessKey": "AK", "secretKey": "SK"},
     "missing provider setting modelarts:region (or HW_REGION_NAME / OS_REGION_NAME)"),
    ({"region": "cn-north-4", "accessKey": "AK", "secretKey": "SK", "obsEndpoint": "ftp://x"},
     "modelarts:obsEndpoint: invalid OBS endpoint 'ftp://x': expected http(s)://host[:port]"),
    ({"region": "North", "accessKey": "AK", "secretKey": "SK"},
     "modelarts:region: invalid region 'North' (expected e.g. cn-north-4 or eu-de)"),
])
def test_settings_errors_are_one_line(config: dict[str, str], message: str) -> None:
    with pytest.raises(ObsConfigError) as err:
        settings_from(config)
    assert str(err.value) == message


@pytest.mark.parametrize("name, ok", [
    ("my-bucket", True), ("a.b-c", True), ("abc", True), ("ab", False), ("My_Bucket", False),
    ("-abc", False), ("abc-", False), ("a..b", False), ("a.-b", False), ("192.168.0.1", False), ("a" * 64, False),
])
def test_bucket_names(name: str, ok: bool) -> None:
    assert (bucket_name_problem(name) is None) == ok


def test_client_operations(obs: Any) -> None:
    c = client_for(obs)
    assert c.create_bucket("cl-1") is True
    assert c.create_bucket("cl-1") is False  # already ours: idempotent
    assert c.bucket_exists("cl-1") and not c.bucket_exists("cl-none")
    for i in range(5):
        c.put_bytes("cl-1", f"p/{i}", b"x" * i)
    assert [o.key for o in c.iter_objects("cl-1", "p/", page_size=2)] == [f"p/{i}" for i in range(5)]
    assert c.head_object("cl-1", "p/3").size == 3 and c.head_object("cl-1", "p/9") is None
    assert c.get_bytes("cl-1", "p/2") == b"xx" and c.get_bytes("cl-1", "p/9") is None
    assert c.delete_keys("cl-1", [f"p/{i}" for i in range(5)]) == 5
    assert not c.has_objects("cl-1")
    assert c.delete_bucket("cl-1") is True and c.delete_bucket("cl-1") is False


def test_retries_transient_errors_then_reports_one_line(obs: Any) -> None:
    c = client_for(obs, max_attempts=3)
    c.create_bucket("cl-2")
    obs.set_faults([{"operation": "put_object", "status": 503, "times": 2}])
    c.put_bytes("cl-2", "k", b"1")  # two 503s, then success
    obs.set_faults([{"operation": "put_object", "kind": "reset", "times": 2}])
    c.put_bytes("cl-2", "k", b"1")  # two resets, then success
    assert obs.counters()["put_object"] == 6
    obs.set_faults([{"operation": "put_object", "status": 503, "times": 3}])
    with pytest.raises(ObsError) as err:
        c.put_bytes("cl-2", "k", b"1")
    assert str(err.value).startswith("OBS put_object cl-2/k: ServiceUnavailable (HTTP 503): injected fault "
                                     "(HTTP 503) [request ")
    assert (err.value.op, err.value.bucket, err.value.key, err.value.status) == ("put_object", "cl-2", "k", 503)
    assert "\n" not in str(err.value)
    again = pickle.loads(pickle.dumps(err.value))
    assert str(again) == str(err.value) and again.code == "ServiceUnavailable"


def test_client_side_errors_never_show_secrets(obs: Any) -> None:
    bad = client_for(obs, secret_key="wrong-secret-value-123", max_attempts=1)
    with pytest.raises(ObsError) as err:
        bad.put_bytes("cl-3", "k", b"1")
    assert err.value.code == "SignatureDoesNotMatch" and "wrong-secret-value-123" not in str(err.value)
    down = client_for(obs, endpoint="http://127.0.0.1:9", max_attempts=1, connect_timeout=1)
    with pytest.raises(ObsError) as err:
        down.bucket_exists("cl-3")
    assert str(err.value).startswith("OBS head_bucket cl-3: Client.ConnectionError: EndpointConnectionError")


def test_temporary_credentials(tmp_path: Any) -> None:
    from obs_emulator.testing import running_obs

    with running_obs(tmp_path / "obs", security_token="temp-token-123") as obs:
        s = settings_from({"region": "cn-north-4", "accessKey": obs.access_key, "secretKey": obs.secret_key,
                           "securityToken": "temp-token-123", "obsEndpoint": obs.url})
        assert ObsClient(s).create_bucket("tmp-cred") is True


def test_a_404_from_a_wrong_endpoint_is_an_error_not_gone() -> None:
    # A wrong obsEndpoint (a web server that answers 404 to every path): HEAD says 404, but only OBS's own
    # NoSuchBucket / NoSuchKey mean gone; a refresh must not drop a bucket or an upload for it.
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class NotObs(BaseHTTPRequestHandler):
        def _404(self) -> None:
            body = b"<html><body>404 Not Found</body></html>"
            self.send_response(404)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        do_GET = do_HEAD = do_PUT = do_DELETE = _404

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), NotObs)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        s = settings_from({"region": "cn-north-4", "accessKey": "AK", "secretKey": "SK",
                           "obsEndpoint": f"http://127.0.0.1:{server.server_address[1]}"})
        c = ObsClient(s)
        for call in (lambda: c.bucket_exists("my-bucket"), lambda: c.get_bytes("my-bucket", "code/x.complete.json")):
            with pytest.raises(ObsError) as e:
                call()
            assert e.value.status == 404 and not e.value.not_found
    finally:
        server.shutdown()
        server.server_close()


def test_a_bucket_adopted_by_create_true_is_never_deleted(obs: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from modelarts_provider.bucket.provider import BucketProvider

    said: list[str] = []
    monkeypatch.setattr("modelarts_provider.bucket.provider.say", said.append)
    c = client_for(obs)
    c.create_bucket("theirs-1")  # made by someone else, empty when the stack took it over
    p = BucketProvider()
    p._obs = lambda: c  # type: ignore[method-assign]
    created = p.create({"bucket": "theirs-1", "create": True, "force_destroy": True})
    assert created.outs["created"] is False and said == ["bucket theirs-1: already there and empty, taken over"]
    c.put_bytes("theirs-1", "colleague/model.bin", b"weights")  # their objects, added since
    p.delete("theirs-1", created.outs)
    assert c.bucket_exists("theirs-1") and [o.key for o in c.iter_objects("theirs-1")] == ["colleague/model.bin"]
    assert said[-1] == "bucket theirs-1: kept with its objects (it existed before this stack created anything in it)"
    # A bucket this stack created is deleted as before (force_destroy empties it first).
    mine = p.create({"bucket": "mine-1", "create": True, "force_destroy": True})
    c.put_bytes("mine-1", "out/x", b"1")
    p.delete("mine-1", mine.outs)
    assert not c.bucket_exists("mine-1")

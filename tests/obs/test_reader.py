"""obs/reader.py: the command-line tools' OBS reads (a listing, an object's bytes) signed with OBS's own header
signature, against the local OBS over real HTTP: the same objects as ObsClient (botocore) lists, the same bytes,
the same one-line errors, and retries of what the service answers as transient."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest

from modelarts_provider.obs import ObsClient, ObsError
from modelarts_provider.obs.reader import ObsReader, string_to_sign

from .test_client import settings_from

KEYS = ["out/run-1/model.npz", "out/run-1/metrics.json", "out/run-1/a b/ümlaut+plus.txt", "out/run-2/x", "other/y"]


def settings(obs: Any, **extra: Any) -> Any:
    s = settings_from({"region": "cn-north-4", "accessKey": obs.access_key, "secretKey": obs.secret_key,
                       "obsEndpoint": obs.url})
    return type(s).model_validate({**s.model_dump(), **extra})


def filled(obs: Any) -> ObsClient:
    client = ObsClient(settings(obs))
    client.create_bucket("rd-1")
    for i, key in enumerate(KEYS):
        client.put_bytes("rd-1", key, f"payload {i} {key}".encode() * (i + 1))
    return client


def test_the_listing_and_the_bytes_are_botocores(obs: Any, tmp_path: Path) -> None:
    client = filled(obs)
    reader = ObsReader(settings(obs))
    for prefix in ("out/run-1/", "out/", ""):
        assert list(reader.iter_objects("rd-1", prefix, page_size=2)) == list(client.iter_objects("rd-1", prefix))
    before = obs.counters()["list_objects"]
    assert len(list(reader.iter_objects("rd-1", "out/", page_size=2))) == 4
    assert obs.counters()["list_objects"] - before == 2  # marker paging: two pages of two
    for key in KEYS[:3]:
        target = tmp_path / "got" / key
        reader.get_file("rd-1", key, target)
        assert target.read_bytes() == client.get_bytes("rd-1", key)
        etag = next(o.etag for o in reader.iter_objects("rd-1", key))
        assert hashlib.md5(target.read_bytes()).hexdigest() == etag  # noqa: S324 - the service's ETag
    reader.close()


def test_errors_are_one_line_with_the_services_code_and_never_a_secret(obs: Any, tmp_path: Path) -> None:
    filled(obs)
    with pytest.raises(ObsError) as err:
        list(ObsReader(settings(obs)).iter_objects("no-such-bucket", "x/"))
    assert (err.value.op, err.value.code, err.value.status) == ("list_objects", "NoSuchBucket", 404)
    assert err.value.not_found and "\n" not in str(err.value)
    with pytest.raises(ObsError) as err:
        ObsReader(settings(obs)).get_file("rd-1", "out/none", tmp_path / "dir" / "f")
    assert err.value.code == "NoSuchKey" and err.value.not_found
    assert not (tmp_path / "dir").exists()  # nothing written for a failed GET
    bad = ObsReader(settings(obs, secret_key="wrong-secret-value-123", max_attempts=1))
    with pytest.raises(ObsError) as err:
        list(bad.iter_objects("rd-1", ""))
    assert err.value.code == "SignatureDoesNotMatch" and err.value.status == 403
    assert "wrong-secret-value-123" not in str(err.value)
    down = ObsReader(settings(obs, endpoint="http://127.0.0.1:9", max_attempts=1, connect_timeout=1))
    with pytest.raises(ObsError) as err:
        list(down.iter_objects("rd-1", ""))
    assert err.value.code == "Client.ConnectionError" and str(err.value).startswith("OBS list_objects rd-1: ")


def test_transient_answers_are_retried_up_to_max_attempts(obs: Any, tmp_path: Path) -> None:
    filled(obs)
    reader = ObsReader(settings(obs, max_attempts=3))
    obs.set_faults([{"operation": "list_objects", "status": 503, "times": 2}])
    assert len(list(reader.iter_objects("rd-1", "out/run-1/"))) == 3  # two 503s, then the listing
    obs.set_faults([{"operation": "get_object", "kind": "reset", "times": 2}])
    reader.get_file("rd-1", KEYS[0], tmp_path / "m")  # two resets, then the bytes
    assert (tmp_path / "m").stat().st_size > 0
    obs.set_faults([{"operation": "list_objects", "status": 503, "times": 3}])
    with pytest.raises(ObsError) as err:
        list(reader.iter_objects("rd-1", "out/"))
    assert (err.value.code, err.value.status) == ("ServiceUnavailable", 503)


def test_temporary_credentials_send_their_token(tmp_path: Path) -> None:
    from obs_emulator.testing import running_obs

    with running_obs(tmp_path / "obs", security_token="temp-token-123") as obs:
        s = settings_from({"region": "cn-north-4", "accessKey": obs.access_key, "secretKey": obs.secret_key,
                           "securityToken": "temp-token-123", "obsEndpoint": obs.url})
        ObsClient(s).create_bucket("tmp-rd")
        assert list(ObsReader(s).iter_objects("tmp-rd", "")) == []


def test_what_is_signed() -> None:
    # OBS API reference's shape: verb, empty MD5 and type, the date, the x-obs- headers sorted, the resource
    assert string_to_sign("GET", "Tue, 01 Dec 2026 10:00:00 GMT", {"X-Obs-Security-Token": " t "}, "/b/k") == (
        "GET\n\n\nTue, 01 Dec 2026 10:00:00 GMT\nx-obs-security-token:t\n/b/k")


def test_the_bucket_goes_in_the_host_name_with_virtual_addressing(obs: Any) -> None:
    reader = ObsReader(settings(obs, addressing_style="virtual", endpoint="https://obs.cn-north-4.example.com"))
    assert reader._target("rd-1", "a b/c", {}) == ("rd-1.obs.cn-north-4.example.com", "/a%20b/c", "/rd-1/a%20b/c")
    path = ObsReader(settings(obs))._target("rd-1", None, {"prefix": "o/", "max-keys": "2"})
    assert path[1:] == ("/rd-1/?prefix=o%2F&max-keys=2", "/rd-1/")

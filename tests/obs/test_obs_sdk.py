"""esdk-obs-python, the OBS SDK a training script uses, against the local OBS (issue 57, item 4): every signature it
can send (its default, ``obs``, ``v2``, ``v4``), path style (an IP endpoint) and virtual-hosted (a host name
endpoint, the SDK's default addressing there and the only one in which it signs with OBS's own scheme).

The scheme each request was signed with is read off the wire (the Authorization headers the SDK wrote), so a
client that silently fell back to another scheme fails here; what each call left is read back with boto3.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from obs import ObsClient

_BUCKET = "sdk-bucket"


@pytest.fixture
def localhost_names(monkeypatch: pytest.MonkeyPatch) -> None:
    """``<bucket>.localhost`` resolves to the loopback, as RFC 6761 reserves it (and as the real OBS's wildcard DNS
    resolves ``<bucket>.obs.<region>.myhuaweicloud.com``); this machine's resolver does not do it by itself."""
    resolve = socket.getaddrinfo

    def loopback_for_localhost(host: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(host, str) and host.endswith(".localhost"):
            host = "127.0.0.1"
        return resolve(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", loopback_for_localhost)


@pytest.fixture
def schemes_sent(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The scheme word of the Authorization header of every request the SDK sends (none of boto3's)."""
    sent: list[str] = []
    send = ObsClient._send_request

    def recording(self: ObsClient, server: Any, method: Any, path: Any, header: Any, *args: Any, **kwargs: Any) -> Any:
        authorization = dict(header or {}).get("Authorization")
        if authorization:
            sent.append(str(authorization).split(" ", 1)[0])
        return send(self, server, method, path, header, *args, **kwargs)

    monkeypatch.setattr(ObsClient, "_send_request", recording)
    yield sent


def _client(obs: Any, endpoint: str, **options: Any) -> ObsClient:
    return ObsClient(access_key_id=obs.access_key, secret_access_key=obs.secret_key, server=endpoint,
                     max_retry_count=0, **options)


def _host_endpoint(obs: Any) -> str:
    return obs.url.replace("127.0.0.1", "localhost")


# (how the script builds its client, which endpoint, the scheme the SDK must have signed with)
_CASES = {
    "defaults, IP endpoint (path style: V2)": ({}, "ip", "AWS"),
    "defaults, host name endpoint (negotiated: OBS)": ({}, "host", "OBS"),
    "signature=obs": ({"signature": "obs"}, "host", "OBS"),
    "signature=v2": ({"signature": "v2"}, "ip", "AWS"),
    "signature=v4, path style": ({"signature": "v4", "region": "cn-north-4"}, "ip", "AWS4-HMAC-SHA256"),
    # (with negotiation on, a host name endpoint turns even signature='v4' into OBS, as against the real OBS)
    "signature=v4, virtual-hosted": ({"signature": "v4", "region": "cn-north-4", "is_signature_negotiation": False},
                                     "host", "AWS4-HMAC-SHA256"),
}


@pytest.mark.parametrize("case", list(_CASES))
def test_the_sdk_creates_puts_gets_lists_and_deletes(obs, s3, localhost_names, schemes_sent, case: str) -> None:
    options, endpoint, scheme = _CASES[case]
    client = _client(obs, _host_endpoint(obs) if endpoint == "host" else obs.url, **options)
    key = "data/train set/part+1~.csv"  # a space, '+' and '~': each encoded (or not) as its scheme says
    body = b"1,2,3\n4,5,6\n" * 100
    try:
        created = client.createBucket(_BUCKET, location="cn-north-4")
        assert created.status == 200, (created.errorCode, created.errorMessage)
        put = client.putContent(_BUCKET, key, body, metadata={"epoch": "3"})
        assert put.status == 200, (put.errorCode, put.errorMessage)
        stored = s3.get_object(Bucket=_BUCKET, Key=key)
        assert (stored["Body"].read(), stored["Metadata"]) == (body, {"epoch": "3"})  # stored as sent
        head = client.getObjectMetadata(_BUCKET, key)
        assert head.status == 200, (head.errorCode, head.errorMessage)
        assert head.body.contentLength == len(body) and ("epoch", "3") in head.header  # in its own dialect

        got = client.getObject(_BUCKET, key, loadStreamInMemory=True)
        assert got.status == 200, (got.errorCode, got.errorMessage)
        assert got.body.buffer == body
        listed = client.listObjects(_BUCKET, prefix="data/")
        assert listed.status == 200, (listed.errorCode, listed.errorMessage)
        assert [o.key for o in listed.body.contents] == [key]

        deleted = client.deleteObject(_BUCKET, key)
        assert deleted.status == 204, (deleted.errorCode, deleted.errorMessage)
        assert s3.list_objects(Bucket=_BUCKET).get("Contents", []) == []
        gone = client.deleteBucket(_BUCKET)
        assert gone.status == 204, (gone.errorCode, gone.errorMessage)
        assert _BUCKET not in [b["Name"] for b in s3.list_buckets()["Buckets"]]
    finally:
        client.close()
    assert schemes_sent and set(schemes_sent) == {scheme}, schemes_sent


@pytest.mark.parametrize("case", ["signature=obs", "signature=v2", "signature=v4, path style"])
def test_a_multipart_upload_and_a_ranged_download(obs, s3, localhost_names, tmp_path: Path, case: str) -> None:
    """uploadFile/downloadFile in parts: the uploads, uploadId and partNumber sub-resources enter the signed resource."""
    options, endpoint, _ = _CASES[case]
    model = tmp_path / "model.bin"
    model.write_bytes(os.urandom(11 * 1024 * 1024))
    client = _client(obs, _host_endpoint(obs) if endpoint == "host" else obs.url, **options)
    try:
        assert client.createBucket(_BUCKET).status == 200
        up = client.uploadFile(_BUCKET, "model/model.bin", str(model), partSize=5 * 1024 * 1024, taskNum=1)
        assert up.status == 200, (up.errorCode, up.errorMessage)
        assert s3.get_object(Bucket=_BUCKET, Key="model/model.bin")["Body"].read() == model.read_bytes()
        back = tmp_path / "back.bin"
        down = client.downloadFile(_BUCKET, "model/model.bin", downloadFile=str(back), partSize=5 * 1024 * 1024,
                                   taskNum=1)
        assert down.status == 200, (down.errorCode, down.errorMessage)
        assert back.read_bytes() == model.read_bytes()
    finally:
        client.close()


@pytest.mark.parametrize("case", ["signature=obs", "signature=v2", "signature=v4, path style"])
def test_a_wrong_secret_key_is_refused_and_writes_nothing(obs, s3, localhost_names, case: str) -> None:
    options, endpoint, _ = _CASES[case]
    s3.create_bucket(Bucket=_BUCKET)
    client = ObsClient(access_key_id=obs.access_key, secret_access_key="not-the-secret-key",
                       server=_host_endpoint(obs) if endpoint == "host" else obs.url, max_retry_count=0, **options)
    try:
        put = client.putContent(_BUCKET, "model.bin", b"weights")
    finally:
        client.close()
    assert (put.status, put.errorCode) == (403, "SignatureDoesNotMatch")
    assert s3.list_objects(Bucket=_BUCKET).get("Contents", []) == []


def test_the_unsigned_api_version_probe_is_answered_and_nothing_else_unsigned(obs, s3) -> None:
    """The SDK's negotiation, ``HEAD /[bucket]?apiversion`` without credentials (the real OBS answers it: the SDK
    sends none), says the API version and whether the bucket exists; any other unsigned request is still refused."""
    import requests

    s3.create_bucket(Bucket=_BUCKET)
    root = requests.head(f"{obs.url}/?apiversion", timeout=30)
    there = requests.head(f"{obs.url}/{_BUCKET}?apiversion", timeout=30)
    missing = requests.head(f"{obs.url}/no-such-bucket?apiversion", timeout=30)
    assert (root.status_code, root.headers.get("x-obs-api")) == (200, "3.0")
    assert (there.status_code, there.headers.get("x-obs-api")) == (200, "3.0")
    assert missing.status_code == 404 and "x-obs-api" not in missing.headers
    assert requests.head(f"{obs.url}/{_BUCKET}", timeout=30).status_code == 403
    assert requests.get(f"{obs.url}/{_BUCKET}?apiversion", timeout=30).status_code == 403

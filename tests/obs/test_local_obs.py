"""The local OBS over HTTP: S3 API via boto3, SigV4 auth, persistence, counters, faults, probe."""

from __future__ import annotations

import datetime as dt
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import requests
from botocore.awsrequest import AWSRequest
from botocore.auth import S3SigV4Auth
from botocore.credentials import Credentials
from botocore.exceptions import ClientError, ConnectionClosedError, EndpointConnectionError

from obs_emulator import auth
from obs_emulator.config import ObsEmulatorConfig
from local_cloud.obs_probe import ProbeError, object_exists, split_obs_path
from obs_emulator.testing import running_obs
from tests.obs.conftest import keys

REPO = Path(__file__).resolve().parents[2]
LOC = {"LocationConstraint": "cn-north-4"}


def code_of(call: Any) -> str:
    with pytest.raises(ClientError) as err:
        call()
    return err.value.response["Error"]["Code"]


def test_ready_line_and_help() -> None:
    out = subprocess.run([sys.executable, "-m", "obs_emulator", "--help"], cwd=REPO, capture_output=True,
                         text=True, timeout=30)
    assert out.returncode == 0 and "--state-dir" in out.stdout


def test_objects_round_trip_path_style(obs: Any, s3: Any) -> None:
    s3.create_bucket(Bucket="b-1", CreateBucketConfiguration=LOC)
    odd = "dir with space/ü+~=x&y.txt"
    s3.put_object(Bucket="b-1", Key=odd, Body=b"hello", ContentType="text/plain", Metadata={"k": "v"})
    head = s3.head_object(Bucket="b-1", Key=odd)
    assert (head["ContentLength"], head["ContentType"], head["Metadata"]) == (5, "text/plain", {"k": "v"})
    assert head["ETag"] == '"5d41402abc4b2a76b9719d911017c592"'  # MD5, as OBS for a single PUT
    assert s3.get_object(Bucket="b-1", Key=odd)["Body"].read() == b"hello"
    assert keys(s3, "b-1", "dir with") == [odd]
    assert code_of(lambda: s3.delete_bucket(Bucket="b-1")) == "BucketNotEmpty"
    s3.delete_object(Bucket="b-1", Key=odd)
    s3.delete_bucket(Bucket="b-1")
    assert code_of(lambda: s3.head_bucket(Bucket="b-1")) == "404"


def test_wrong_credentials_are_refused(obs: Any) -> None:
    assert code_of(lambda: obs.client(aws_secret_access_key="wrong").list_buckets()) == "SignatureDoesNotMatch"
    assert code_of(lambda: obs.client(aws_access_key_id="AKOTHER").list_buckets()) == "InvalidAccessKeyId"
    r = requests.get(f"{obs.url}/", timeout=5)
    assert r.status_code == 403 and b"<Code>AccessDenied</Code>" in r.content
    assert code_of(lambda: obs.client(aws_session_token="not-configured").list_buckets()) == "InvalidToken"


def test_security_token_of_temporary_credentials(tmp_path: Path) -> None:
    with running_obs(tmp_path / "obs", security_token="temp-token-123") as obs:
        obs.client().list_buckets()  # with the token
        assert code_of(lambda: obs.client(aws_session_token="other").list_buckets()) == "InvalidToken"


def _signed(method: str, url: str, body: bytes = b"", when: dt.datetime | None = None) -> AWSRequest:
    req = AWSRequest(method=method, url=url, data=body)
    signer = S3SigV4Auth(Credentials("EMULATORLOCALAK00001", "emulator-local-secret-key-not-a-real-sk1"),
                         "s3", "cn-north-4")
    if when is not None:  # botocore signs "now": pin it
        import unittest.mock as mock
        with mock.patch("botocore.auth.datetime") as fake:
            fake.datetime.now.return_value = when
            fake.datetime.utcnow.return_value = when.replace(tzinfo=None)
            signer.add_auth(req)
    else:
        signer.add_auth(req)
    return req


@pytest.mark.parametrize("path, query", [
    ("/b-1/a%20b/%C3%BC%2Bx.txt", ""),
    ("/b-1", "prefix=code%2Fa%20b&marker=x~y&max-keys=5"),
    ("/b-1", "uploads"),
    ("/", ""),
])
def test_sigv4_verification_matches_botocore(path: str, query: str) -> None:
    cfg = ObsEmulatorConfig()
    url = f"http://127.0.0.1:8781{path}" + (f"?{query}" if query else "")
    req = _signed("PUT", url, b"body")
    headers = {k.lower(): v for k, v in req.headers.items()}
    headers["host"] = "127.0.0.1:8781"
    assert auth.verify("PUT", path, query, headers, b"body", cfg) is None
    assert auth.verify("PUT", path, query, headers, b"other", cfg).code == "XAmzContentSHA256Mismatch"
    assert auth.verify("GET", path, query, headers, b"body", cfg).code == "SignatureDoesNotMatch"
    later = dt.datetime.now(dt.timezone.utc) + dt.timedelta(minutes=20)
    assert auth.verify("PUT", path, query, headers, b"body", cfg, now=later).code == "RequestTimeTooSkewed"


def test_buckets_and_objects_survive_a_restart(obs: Any, s3: Any) -> None:
    s3.create_bucket(Bucket="keep-me", CreateBucketConfiguration=LOC)
    s3.create_bucket(Bucket="drop-me", CreateBucketConfiguration=LOC)
    s3.put_object(Bucket="keep-me", Key="a/x.py", Body=b"x = 1\n", ContentType="text/x-python")
    s3.put_object(Bucket="keep-me", Key="a/gone.py", Body=b"")
    s3.delete_object(Bucket="keep-me", Key="a/gone.py")
    s3.delete_bucket(Bucket="drop-me")
    etag = s3.head_object(Bucket="keep-me", Key="a/x.py")["ETag"]
    obs.restart()
    s3 = obs.client()
    assert [b["Name"] for b in s3.list_buckets()["Buckets"]] == ["keep-me"]
    assert keys(s3, "keep-me") == ["a/x.py"]
    head = s3.head_object(Bucket="keep-me", Key="a/x.py")
    assert (head["ETag"], head["ContentType"]) == (etag, "text/x-python")
    assert s3.get_object(Bucket="keep-me", Key="a/x.py")["Body"].read() == b"x = 1\n"


def test_in_memory_mode_keeps_nothing(tmp_path: Path) -> None:
    with running_obs(tmp_path / "obs", in_memory=True) as obs:
        obs.client().create_bucket(Bucket="tmp-b", CreateBucketConfiguration=LOC)
        obs.restart()
        assert obs.client().list_buckets()["Buckets"] == []
        assert not (tmp_path / "obs" / "state").exists()


def test_counters_count_requests_by_operation(obs: Any, s3: Any) -> None:
    s3.create_bucket(Bucket="c-1", CreateBucketConfiguration=LOC)
    s3.put_object(Bucket="c-1", Key="k", Body=b"1")
    s3.head_object(Bucket="c-1", Key="k")
    s3.list_objects(Bucket="c-1")
    assert obs.counters() == {"total": 4, "create_bucket": 1, "put_object": 1, "head_object": 1,
                              "list_objects": 1}
    obs.reset()
    assert obs.counters() == {"total": 0}


def test_status_fault_after_n_then_times(obs: Any, s3: Any) -> None:
    s3.create_bucket(Bucket="f-1", CreateBucketConfiguration=LOC)
    obs.set_faults([{"operation": "put_object", "status": 503, "retry_after": 1, "after": 2, "times": 2}])
    s3.put_object(Bucket="f-1", Key="0", Body=b"")
    s3.put_object(Bucket="f-1", Key="1", Body=b"")
    for key in ("2", "3"):
        with pytest.raises(ClientError) as err:
            s3.put_object(Bucket="f-1", Key=key, Body=b"")
        assert err.value.response["ResponseMetadata"]["HTTPStatusCode"] == 503
        assert err.value.response["ResponseMetadata"]["HTTPHeaders"]["retry-after"] == "1"
    s3.put_object(Bucket="f-1", Key="4", Body=b"")
    assert keys(s3, "f-1") == ["0", "1", "4"]  # a faulted request is not applied
    assert obs.faults_left() == 0


def test_reset_fault_drops_the_connection(obs: Any, s3: Any) -> None:
    s3.create_bucket(Bucket="f-2", CreateBucketConfiguration=LOC)
    obs.set_faults([{"operation": "any", "kind": "reset", "times": 1}])
    with pytest.raises((ConnectionClosedError, EndpointConnectionError)):
        s3.put_object(Bucket="f-2", Key="k", Body=b"x" * 100_000)
    s3.put_object(Bucket="f-2", Key="k", Body=b"x")
    assert keys(s3, "f-2") == ["k"]


def test_controls_refuse_bad_rules(obs: Any) -> None:
    r = requests.post(f"{obs.url}/_obs/faults", json={"rules": [{"operation": "put_object", "kind": "explode"}]},
                      timeout=5)
    assert r.status_code == 400 and "kind" in r.json()["error"]
    assert requests.get(f"{obs.url}/_obs/nope", timeout=5).status_code == 404


def test_probe(obs: Any, s3: Any) -> None:
    s3.create_bucket(Bucket="p-1", CreateBucketConfiguration=LOC)
    s3.put_object(Bucket="p-1", Key="code/train.py", Body=b"")
    args = (obs.access_key, obs.secret_key)
    assert object_exists(obs.url, *split_obs_path("obs://p-1/code/train.py"), *args)
    assert not object_exists(obs.url, *split_obs_path("/p-1/code/other.py"), *args)
    assert not object_exists(obs.url, "no-bucket", "code/train.py", *args)
    with pytest.raises(ProbeError, match=r"^OBS HEAD p-1/code/train.py: 403 \(HTTP 403\)$"):
        object_exists(obs.url, "p-1", "code/train.py", obs.access_key, "wrong-secret")
    with pytest.raises(ValueError, match="not an OBS object path"):
        split_obs_path("obs://only-bucket")


class _UnsignedPayloadAuth(S3SigV4Auth):
    """SigV4 with `UNSIGNED-PAYLOAD`, as clients send over TLS: the signature then says nothing of the body."""

    def _should_sha256_sign_payload(self, request: Any) -> bool:
        return False


def _send_cut_short(obs: Any, key: str, body: bytes, sent: int, *, chunked: bool) -> bytes:
    """A signed PUT of `body` whose client stops after `sent` bytes (killed mid-upload); the server's answer."""
    import socket
    from urllib.parse import urlsplit
    url = f"{obs.url}/b-1/{key}"
    req = AWSRequest(method="PUT", url=url, data=body)
    _UnsignedPayloadAuth(Credentials("EMULATORLOCALAK00001", "emulator-local-secret-key-not-a-real-sk1"),
                         "s3", "cn-north-4").add_auth(req)
    host = urlsplit(url).netloc
    framing = "Transfer-Encoding: chunked" if chunked else f"Content-Length: {len(body)}"
    head = "".join(f"{k}: {v}\r\n" for k, v in req.headers.items())
    payload = (f"{len(body):x}\r\n".encode() + body + b"\r\n0\r\n\r\n") if chunked else body
    with socket.create_connection((host.split(":")[0], int(host.split(":")[1])), timeout=10) as sock:
        sock.sendall(f"PUT /b-1/{key} HTTP/1.1\r\nHost: {host}\r\n{head}{framing}\r\n\r\n".encode() + payload[:sent])
        sock.shutdown(socket.SHUT_WR)  # the client is gone: no more bytes will come
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    return answer


@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
def test_a_put_cut_short_stores_nothing(obs: Any, s3: Any, chunked: bool) -> None:
    # A team's stack checkpoint lives in OBS (docs/team-state.md): a `pulumi up` killed while it uploads must
    # leave the previous checkpoint whole, as OBS and S3 do (IncompleteBody), not its new first bytes.
    s3.create_bucket(Bucket="b-1", CreateBucketConfiguration=LOC)
    s3.put_object(Bucket="b-1", Key="stack.json", Body=b'{"version": 3, "previous": true}')
    new = b'{"version": 3, "checkpoint": "' + b"x" * 4000 + b'"}'
    answer = _send_cut_short(obs, "stack.json", new, 1000, chunked=chunked)
    assert answer.startswith(b"HTTP/1.1 400") and b"<Code>IncompleteBody</Code>" in answer, answer[:300]
    assert s3.get_object(Bucket="b-1", Key="stack.json")["Body"].read() == b'{"version": 3, "previous": true}'
    # The same request sent whole is stored: what was refused was the missing bytes, not the request.
    whole = _send_cut_short(obs, "stack.json", new, 10**6, chunked=chunked)
    assert whole.startswith(b"HTTP/1.1 200"), whole[:300]
    assert s3.get_object(Bucket="b-1", Key="stack.json")["Body"].read() == new

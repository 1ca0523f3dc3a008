"""The local OBS accepts the header signatures the real OBS accepts (issue 57): OBS's own scheme (`OBS AK:sig`),
AWS signature V2 (`AWS AK:sig`) and SigV4 with `Date` instead of `x-amz-date`; and boto3's create_bucket without
a LocationConstraint lands in `--region`.

The signatures here are built by hand from the OBS API reference's recipe ("Authentication of Signature in a
Header": Base64(HMAC-SHA1(SK, VERB\\nContent-MD5\\nContent-Type\\nDate\\nCanonicalizedHeaders
CanonicalizedResource))) and, for V4, by the AWS SigV4 recipe: nothing of obs_emulator's verifier is used.
A script reads an input object and writes a model object, as a training script would with esdk-obs-python's
defaults; tests/obs/test_obs_sdk.py drives esdk-obs-python itself."""

from __future__ import annotations

import base64
import hashlib
import hmac
from datetime import datetime, timedelta, timezone
from email.utils import formatdate

import pytest
import requests


def _v2(obs, scheme: str, method: str, path: str, body: bytes = b"", *, content_type: str = "",
        extra: dict[str, str] | None = None, secret: str | None = None, date: str | None = None) -> requests.Response:
    """A request signed per the OBS docs' recipe (V2 and OBS differ only in the header prefix they sign)."""
    headers = {"Date": date or formatdate(usegmt=True), **(extra or {})}
    if content_type:
        headers["Content-Type"] = content_type
    if body:
        headers["Content-MD5"] = base64.b64encode(hashlib.md5(body).digest()).decode()
    prefix = "x-obs-" if scheme == "OBS" else "x-amz-"
    signed = "".join(f"{k.lower()}:{v}\n" for k, v in sorted(headers.items(), key=lambda kv: kv[0].lower())
                     if k.lower().startswith(prefix))
    date_line = "" if prefix + "date" in {k.lower() for k in headers} else headers["Date"]
    text = "\n".join([method, headers.get("Content-MD5", ""), content_type, date_line, signed + path])
    sig = base64.b64encode(hmac.new((secret or obs.secret_key).encode(), text.encode(), hashlib.sha1).digest())
    headers["Authorization"] = f"{scheme} {obs.access_key}:{sig.decode()}"
    return requests.request(method, obs.url + path, data=body or None, headers=headers, timeout=30)


@pytest.mark.parametrize("scheme", ["OBS", "AWS"])
def test_a_script_reads_its_input_and_writes_its_model_with_a_v2_style_signature(obs, s3, scheme: str) -> None:
    s3.create_bucket(Bucket="data")  # no LocationConstraint: --region
    s3.put_object(Bucket="data", Key="input/train.csv", Body=b"x,y\n1,2\n")
    got = _v2(obs, scheme, "GET", "/data/input/train.csv")
    assert got.status_code == 200, got.text
    assert got.content == b"x,y\n1,2\n"
    model = b"\x00weights\x01" * 100
    put = _v2(obs, scheme, "PUT", "/data/output/model.bin", model, content_type="application/octet-stream",
              extra={f"x-{scheme.lower()}-meta-epoch": "3"})
    assert put.status_code == 200, put.text
    assert s3.get_object(Bucket="data", Key="output/model.bin")["Body"].read() == model
    listed = _v2(obs, scheme, "GET", "/data?acl")  # a sub-resource enters the signed resource
    assert listed.status_code == 200, listed.text


@pytest.mark.parametrize("scheme", ["OBS", "AWS"])
def test_a_wrong_v2_signature_is_refused(obs, s3, scheme: str) -> None:
    s3.create_bucket(Bucket="data")
    wrong = _v2(obs, scheme, "GET", "/data", secret="not-the-secret")
    assert wrong.status_code == 403 and "<Code>SignatureDoesNotMatch</Code>" in wrong.text
    stale = _v2(obs, scheme, "GET", "/data", date="Mon, 01 Jan 2001 00:00:00 GMT")
    assert stale.status_code == 403 and "<Code>RequestTimeTooSkewed</Code>" in stale.text
    with_date_header = _v2(obs, scheme, "GET", "/data",  # the x-...-date header stands for Date
                           extra={f"x-{'obs' if scheme == 'OBS' else 'amz'}-date": formatdate(usegmt=True)},
                           date="Mon, 01 Jan 2001 00:00:00 GMT")
    assert with_date_header.status_code == 200, with_date_header.text


def _v4_with_date(obs, path: str, date: str, signed_at: str) -> requests.Response:
    """SigV4 by the AWS recipe, the time in a signed `Date` header (no x-amz-date), as the OBS SDK sends it."""
    host = obs.url.split("://", 1)[1]
    headers = {"date": date, "host": host, "x-amz-content-sha256": "UNSIGNED-PAYLOAD"}
    names = sorted(headers)
    creq = "\n".join(["GET", path, "", *(f"{n}:{headers[n]}" for n in names), "", ";".join(names),
                      "UNSIGNED-PAYLOAD"])
    scope = f"{signed_at[:8]}/{obs.region}/s3/aws4_request"
    text = "\n".join(["AWS4-HMAC-SHA256", signed_at, scope, hashlib.sha256(creq.encode()).hexdigest()])
    key = ("AWS4" + obs.secret_key).encode()
    for part in (signed_at[:8], obs.region, "s3", "aws4_request"):
        key = hmac.new(key, part.encode(), hashlib.sha256).digest()
    sig = hmac.new(key, text.encode(), hashlib.sha256).hexdigest()
    auth = (f"AWS4-HMAC-SHA256 Credential={obs.access_key}/{scope}, SignedHeaders={';'.join(names)}, "
            f"Signature={sig}")
    return requests.get(obs.url + path, headers={**headers, "Authorization": auth}, timeout=30)


def test_sigv4_with_date_instead_of_x_amz_date(obs, s3) -> None:
    s3.create_bucket(Bucket="data")
    s3.put_object(Bucket="data", Key="in.txt", Body=b"hello")
    now = datetime.now(timezone.utc)
    basic = now.strftime("%Y%m%dT%H%M%SZ")
    for date in (basic, formatdate(now.timestamp(), usegmt=True)):  # ISO 8601 basic, or RFC 1123
        got = _v4_with_date(obs, "/data/in.txt", date, basic)
        assert got.status_code == 200, (date, got.text)
        assert got.content == b"hello"
    later = (now + timedelta(seconds=5)).strftime("%Y%m%dT%H%M%SZ")
    refused = _v4_with_date(obs, "/data/in.txt", basic, later)  # signed for another moment than the Date sent
    assert refused.status_code == 403 and "SignatureDoesNotMatch" in refused.text


def test_create_bucket_without_location_constraint_lands_in_the_region(obs, s3) -> None:
    s3.create_bucket(Bucket="regional")
    assert s3.get_bucket_location(Bucket="regional")["LocationConstraint"] == obs.region

"""Header signature verification, for every scheme the real OBS accepts: AWS Signature V4 (boto3 sends it),
AWS signature V2 (``AWS AK:sig``) and OBS's own (``OBS AK:sig``), the last two in v2_auth.py; esdk-obs-python
signs with either by default. (V4 alone was accepted until the OBS SDK was tried against the local OBS: a
script using that SDK's defaults was refused though the real OBS takes it.)

Only the credentials of the config are accepted (the ModelArts emulator's AK/SK by default). What is
checked: the scheme, the access key, the signature, the clock skew, the payload hash when a V4 client signed
one, and the security token of temporary credentials. V4 takes its time from ``x-amz-date`` or, as SigV4
allows, from ``Date`` (ISO 8601 basic or RFC 1123). Presigned URLs are refused with a one-line reason.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Mapping
from datetime import datetime, timezone
from urllib.parse import quote, unquote

from pydantic import BaseModel, ConfigDict

from . import v2_auth
from .config import ObsEmulatorConfig

SCHEME = "AWS4-HMAC-SHA256"
_AUTH_RE = re.compile(
    r"^AWS4-HMAC-SHA256\s+Credential=(?P<cred>[^,\s]+)\s*,\s*SignedHeaders=(?P<signed>[^,\s]+)\s*,"
    r"\s*Signature=(?P<sig>[0-9a-f]{64})\s*$")
_UNSIGNED_PAYLOADS = ("UNSIGNED-PAYLOAD", "STREAMING-")  # no body hash to compare


class AuthFailure(BaseModel):
    """Why a request is refused, as the S3 error it becomes."""

    model_config = ConfigDict(frozen=True)

    status: int
    code: str
    message: str


class Credential(BaseModel):
    model_config = ConfigDict(frozen=True)

    access_key: str
    date: str
    region: str
    service: str


def _fail(status: int, code: str, message: str) -> AuthFailure:
    return AuthFailure(status=status, code=code, message=message)


def _hmac(key: bytes, text: str) -> bytes:
    return hmac.new(key, text.encode(), hashlib.sha256).digest()


def signing_key(secret_key: str, cred: Credential) -> bytes:
    k = _hmac(("AWS4" + secret_key).encode(), cred.date)
    k = _hmac(k, cred.region)
    k = _hmac(k, cred.service)
    return _hmac(k, "aws4_request")


def canonical_query(raw_query: str) -> str:
    """Pairs sorted by key then value, each RFC 3986-encoded once ('~' kept, '/' encoded)."""
    pairs = []
    for part in raw_query.split("&"):
        if not part:
            continue
        key, _, value = part.partition("=")
        pairs.append((quote(unquote(key), safe="-_.~"), quote(unquote(value), safe="-_.~")))
    return "&".join(f"{k}={v}" for k, v in sorted(pairs))


def canonical_request(method: str, raw_path: str, raw_query: str, headers: Mapping[str, str],
                      signed: list[str], payload_hash: str) -> str:
    # S3 signs the path exactly as sent (no normalisation, no second encoding).
    lines = [f"{name}:{' '.join(headers.get(name, '').split())}" for name in signed]
    return "\n".join([method.upper(), raw_path or "/", canonical_query(raw_query), *lines, "",
                      ";".join(signed), payload_hash])


def _parse_time(value: str) -> datetime | None:
    try:
        return datetime.strptime(value, "%Y%m%dT%H%M%SZ").replace(tzinfo=timezone.utc)
    except ValueError:
        return None


def verify(method: str, raw_path: str, raw_query: str, headers: Mapping[str, str], body: bytes,
           config: ObsEmulatorConfig, now: datetime | None = None,
           v2_resource: str | None = None) -> AuthFailure | None:
    """None when the request is signed with the configured credentials; else why not.

    ``headers`` has lower-case names; ``raw_path`` is the path as sent (what V4 signs), ``v2_resource`` the
    ``/bucket/key`` that OBS's and V2's string to sign carry (default: ``raw_path``, path style).
    """
    if "x-amz-signature=" in raw_query.lower():
        return _fail(403, "AccessDenied", "presigned URLs are not supported by the local OBS")
    auth = headers.get("authorization", "")
    if not auth:
        return _fail(403, "AccessDenied", "anonymous requests are refused: sign with AK/SK")
    scheme = auth.split(" ", 1)[0]
    if scheme in v2_auth.SCHEMES:
        return _verify_v2(scheme, auth, method, v2_resource or raw_path, raw_query, headers, config, now)
    if scheme != SCHEME:
        return _fail(403, "AccessDenied", f"signature scheme {scheme} is not accepted here: use {SCHEME}, "
                                          f"AWS or OBS")
    m = _AUTH_RE.match(auth)
    if not m:
        return _fail(400, "AuthorizationHeaderMalformed", "the Authorization header is malformed")
    parts = m.group("cred").split("/")
    if len(parts) != 5 or parts[4] != "aws4_request":
        return _fail(400, "AuthorizationHeaderMalformed", "the credential scope is malformed")
    cred = Credential(access_key=parts[0], date=parts[1], region=parts[2], service=parts[3])
    if not hmac.compare_digest(cred.access_key, config.access_key):
        return _fail(403, "InvalidAccessKeyId", "the access key does not exist")

    stamp = headers.get("x-amz-date", "")
    when = _parse_time(stamp)
    if not stamp:  # SigV4 allows Date instead (the string to sign then carries it in ISO 8601 basic form)
        when = _parse_time(headers.get("date", "")) or v2_auth.request_time("AWS", {"date": headers.get("date", "")})
        stamp = when.strftime("%Y%m%dT%H%M%SZ") if when is not None else ""
    if when is None or not stamp.startswith(cred.date):
        return _fail(403, "AccessDenied", "x-amz-date and Date are missing or do not match the credential date")
    now = now or datetime.now(timezone.utc)
    if abs((now - when).total_seconds()) > config.max_clock_skew_seconds:
        return _fail(403, "RequestTimeTooSkewed", "the request time differs too much from the server time")

    signed = m.group("signed").split(";")
    if "host" not in signed:
        return _fail(403, "AccessDenied", "the host header must be signed")
    payload_hash = headers.get("x-amz-content-sha256", "")
    if not payload_hash:
        return _fail(400, "InvalidRequest", "x-amz-content-sha256 is required")
    scope = f"{cred.date}/{cred.region}/{cred.service}/aws4_request"
    creq = canonical_request(method, raw_path, raw_query, headers, signed, payload_hash)
    to_sign = "\n".join([SCHEME, stamp, scope, hashlib.sha256(creq.encode()).hexdigest()])
    expected = hmac.new(signing_key(config.secret_key, cred), to_sign.encode(), hashlib.sha256).hexdigest()
    if not hmac.compare_digest(expected, m.group("sig")):
        return _fail(403, "SignatureDoesNotMatch",
                     "the request signature does not match the one calculated with your secret key")

    if not payload_hash.startswith(_UNSIGNED_PAYLOADS):
        if not hmac.compare_digest(payload_hash, hashlib.sha256(body).hexdigest()):
            return _fail(400, "XAmzContentSHA256Mismatch", "the body does not match x-amz-content-sha256")

    token = headers.get("x-amz-security-token")
    if token is not None and (config.security_token is None
                              or not hmac.compare_digest(token, config.security_token)):
        return _fail(400, "InvalidToken", "the security token is invalid or expired")
    return None


def _verify_v2(scheme: str, auth: str, method: str, raw_path: str, raw_query: str, headers: Mapping[str, str],
               config: ObsEmulatorConfig, now: datetime | None) -> AuthFailure | None:
    access_key, _, given = auth[len(scheme):].strip().partition(":")
    if not access_key or not given:
        return _fail(400, "AuthorizationHeaderMalformed", "the Authorization header is malformed")
    if not hmac.compare_digest(access_key, config.access_key):
        return _fail(403, "InvalidAccessKeyId", "the access key does not exist")
    when = v2_auth.request_time(scheme, headers)
    if when is None:
        return _fail(403, "AccessDenied", "Date (or x-obs-date / x-amz-date) is missing or malformed")
    now = now or datetime.now(timezone.utc)
    if abs((now - when).total_seconds()) > config.max_clock_skew_seconds:
        return _fail(403, "RequestTimeTooSkewed", "the request time differs too much from the server time")
    expected = v2_auth.signature(config.secret_key,
                                 v2_auth.string_to_sign(scheme, method, raw_path, raw_query, headers))
    if not hmac.compare_digest(expected, given):
        return _fail(403, "SignatureDoesNotMatch",
                     "the request signature does not match the one calculated with your secret key")
    token = headers.get(v2_auth.SCHEMES[scheme] + "security-token")
    if token is not None and (config.security_token is None
                              or not hmac.compare_digest(token, config.security_token)):
        return _fail(400, "InvalidToken", "the security token is invalid or expired")
    return None

"""The API gateway's check of an ``SDK-HMAC-SHA256`` signature, written from Huawei Cloud's API request signing
guide ("API Signing Algorithm": constructing a canonical request, creating a string to sign, calculating the
signature) and nothing else: it shares no code with the product's signer (modelarts_provider/client/signer.py),
so a mistake in that signer is refused here instead of agreeing with itself. Every local cloud behind that gateway
checks with it (the local ModelArts, the local billing service): here in local_cloud/ because the emulators do not
import each other. tests/emulator/test_gateway_verifier.py checks it against the official SDK's signer, golangsdk's
recorded requests and the product's signer, request by request.

The guide's recipe, as verified here:

    CanonicalRequest = Method \\n CanonicalURI \\n CanonicalQueryString \\n CanonicalHeaders \\n SignedHeaders \\n
                       HexEncode(SHA256(payload))
    StringToSign     = "SDK-HMAC-SHA256" \\n X-Sdk-Date \\n HexEncode(SHA256(CanonicalRequest))
    Signature        = HexEncode(HMAC-SHA256(SK, StringToSign))
    Authorization    = "SDK-HMAC-SHA256 Access=<AK>, SignedHeaders=<a;b>, Signature=<hex>"

- CanonicalURI: the path percent-decoded, split on ``/`` (so an encoded ``%2F`` separates segments too, as the
  official SDK signs it), each segment URI-encoded (RFC 3986: only ``A-Za-z0-9-._~`` stay), the segments joined
  with ``/``; it always ends with ``/`` (the gateway's rule, stricter than SigV4's);
- CanonicalQueryString: ``name=value`` pairs (a name alone: ``name=``), each side URI-encoded, sorted by name then
  value, joined with ``&``;
- CanonicalHeaders: ``lower(name):trim(value)\\n`` for each header named in SignedHeaders, in that order (clients
  sort them; the order they name is the order they signed);
- payload: the body's SHA-256, or the value of ``X-Sdk-Content-Sha256`` (``UNSIGNED-PAYLOAD``: "Must the Request
  Body Be Signed? No"); any other declared hash must be the body's (``declared_hash_is_honest``: a signature
  covers the declaration, not the body). Only ``X-Sdk-Date`` must be signed ("Are Request Header Parameters
  Required for Signing Requests?"), and it must be within 15 minutes of the gateway's clock.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Callable, Mapping
from datetime import datetime, timezone
from urllib.parse import parse_qsl, quote, unquote

from pydantic import BaseModel, ConfigDict

ALGORITHM = "SDK-HMAC-SHA256"
DATE_HEADER = "x-sdk-date"
CONTENT_HASH_HEADER = "x-sdk-content-sha256"
UNSIGNED_PAYLOAD = "UNSIGNED-PAYLOAD"
_DATE_FORMAT = "%Y%m%dT%H%M%SZ"
_TOKEN = r"[A-Za-z0-9!#$%&'*+.^_`|~-]+"  # an HTTP header name
_AUTHORIZATION_RE = re.compile(
    rf"^SDK-HMAC-SHA256\s+Access=(?P<access>[^,\s]+)\s*,\s*SignedHeaders=(?P<signed>{_TOKEN}(?:;{_TOKEN})*)\s*,"
    r"\s*Signature=(?P<signature>[0-9a-f]{64})$")


class SignatureRefused(ValueError):
    """Why the gateway refuses a signature; the text is safe to show (no key, no signature)."""


class GatewayAuthorization(BaseModel):
    model_config = ConfigDict(frozen=True)

    access_key: str
    signed_headers: tuple[str, ...]
    signature: str


def parse_authorization(value: str) -> GatewayAuthorization:
    if value.split(" ", 1)[0] != ALGORITHM:
        raise SignatureRefused("the Authorization header is not SDK-HMAC-SHA256")
    match = _AUTHORIZATION_RE.match(value.strip())
    if match is None:
        raise SignatureRefused("malformed Authorization header")
    return GatewayAuthorization(access_key=match.group("access"),
                                signed_headers=tuple(match.group("signed").lower().split(";")),
                                signature=match.group("signature"))


def parse_sdk_date(value: str) -> datetime:
    try:
        return datetime.strptime(value, _DATE_FORMAT).replace(tzinfo=timezone.utc)
    except (TypeError, ValueError):
        raise SignatureRefused("malformed X-Sdk-Date header") from None


def format_sdk_date(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).strftime(_DATE_FORMAT)


def _uri_encode(text: str) -> str:
    return quote(text, safe="-_.~")  # RFC 3986 unreserved characters only, UTF-8 bytes as %XY


def canonical_uri(raw_path: str) -> str:
    encoded = "/".join(_uri_encode(segment) for segment in unquote(raw_path or "/").split("/"))
    return encoded if encoded.endswith("/") else encoded + "/"


def canonical_query(raw_query: str) -> str:
    pairs = parse_qsl(raw_query, keep_blank_values=True)
    return "&".join(f"{_uri_encode(name)}={_uri_encode(value)}" for name, value in sorted(pairs))


def _canonical_headers(lower: Mapping[str, str], signed: tuple[str, ...]) -> str:
    missing = [name for name in signed if name not in lower]
    if missing:
        raise SignatureRefused(f"signed header {missing[0]!r} is missing from the request")
    return "".join(f"{name}:{lower[name].strip()}\n" for name in signed)


def string_to_sign(canonical_request: str, sdk_date: str) -> str:
    return f"{ALGORITHM}\n{sdk_date}\n{hashlib.sha256(canonical_request.encode()).hexdigest()}"


def _payload_hashes(lower: Mapping[str, str], body: bytes) -> list[str]:
    """The payload hash(es) a valid client may have signed. An empty body that declares a hash is signed with the
    declaration by golangsdk and the API Gateway signing SDKs, and with the empty body's hash by huaweicloudsdkcore."""
    declared = lower.get(CONTENT_HASH_HEADER, "").strip()
    if body:
        return [declared or hashlib.sha256(body).hexdigest()]
    empty = hashlib.sha256(b"").hexdigest()
    return [empty, declared] if declared and declared != empty else [empty]


def verify(method: str, raw_path: str, raw_query: str, headers: Mapping[str, str], body: bytes,
           secret_for: Callable[[str], str | None], now: datetime, max_skew_s: float) -> GatewayAuthorization:
    """The request's parsed Authorization when its signature is good; else SignatureRefused (why).

    ``raw_path`` and ``raw_query`` as received (still percent-encoded); ``headers`` in any case.
    """
    lower = {name.lower(): value for name, value in headers.items()}
    auth = parse_authorization(lower.get("authorization", ""))
    sdk_date = lower.get(DATE_HEADER, "").strip()
    if not sdk_date:
        raise SignatureRefused("X-Sdk-Date header is missing")
    if DATE_HEADER not in auth.signed_headers:
        raise SignatureRefused("X-Sdk-Date is not a signed header")
    if abs((now - parse_sdk_date(sdk_date)).total_seconds()) > max_skew_s:
        raise SignatureRefused("request time is too skewed (X-Sdk-Date)")
    secret = secret_for(auth.access_key)
    if not secret:
        raise SignatureRefused("unknown access key")
    head = "\n".join([method.upper(), canonical_uri(raw_path), canonical_query(raw_query),
                      _canonical_headers(lower, auth.signed_headers), ";".join(auth.signed_headers)])
    for payload in _payload_hashes(lower, body):
        text = string_to_sign(f"{head}\n{payload}", sdk_date)
        expected = hmac.new(secret.encode(), text.encode(), hashlib.sha256).hexdigest()
        if hmac.compare_digest(expected, auth.signature):
            return auth
    raise SignatureRefused("signature does not match")


def declared_hash_is_honest(headers: Mapping[str, str], body: bytes) -> bool:
    """Whether a body's declared ``X-Sdk-Content-Sha256`` (a signature covers the declaration, not the body) is the
    body's own hash; a body left unsigned (``UNSIGNED-PAYLOAD``), an empty body or no declaration is honest."""
    declared = next((v.strip() for name, v in headers.items() if name.lower() == CONTENT_HASH_HEADER), "")
    return not body or not declared or declared == UNSIGNED_PAYLOAD or declared == hashlib.sha256(body).hexdigest()

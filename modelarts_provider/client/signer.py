"""SDK-HMAC-SHA256 request signing (Huawei Cloud / Open Telekom Cloud API gateway "AK/SK" auth).

Pure functions that sign on the client:

    cr  = canonical_request(method, path, query, headers, signed_headers, body)
    sts = string_to_sign(cr, headers["X-Sdk-Date"])
    sig = sign(secret_key, sts)
    authorization_header(access_key, signed_headers, sig)
      -> "SDK-HMAC-SHA256 Access=<ak>, SignedHeaders=<a;b;c>, Signature=<hex>"

The result is byte-for-byte the Authorization header that huaweicloudsdkcore's ``Signer`` produces
for the same request (proved by ``tests/client/test_signer_equivalence.py``). The rules:

* canonical URI: the path is percent-decoded, split on ``/``, every segment is re-encoded with
  ``quote(segment, safe="~")`` (RFC 3986 unreserved characters stay, everything else incl. UTF-8
  bytes is ``%XX``), joined with ``/``, and a trailing ``/`` is always appended if missing;
* canonical query string: ``(key, value)`` pairs, sorted by decoded key then decoded value, each
  encoded with ``quote(safe="~")``, joined ``k=v`` with ``&`` (blank values kept as ``k=``);
* canonical headers: ``lower(name):strip(value)`` for each signed header, one per line, plus a
  final newline; signed headers are lowercase, sorted, ``;``-joined;
* payload hash: sha256 hex of the body; for an empty body the sha256 of ``b""``; when the request
  carries ``X-Sdk-Content-Sha256`` (e.g. ``UNSIGNED-PAYLOAD``) and a non-empty body, that value;
* string to sign: ``"SDK-HMAC-SHA256\\n" + X-Sdk-Date + "\\n" + sha256hex(canonical request)``;
* signature: ``hex(HMAC-SHA256(secret_key, string_to_sign))``.

The local clouds do not verify with this code: their gateway (local_cloud/gateway_signature.py) is written from the
signing guide on its own, so a mistake here is refused there instead of agreeing with itself.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Callable, Iterable, Mapping, Optional, Sequence, Union
from urllib.parse import parse_qsl, quote, unquote, urlsplit, urlunsplit

import requests
from pydantic import SecretStr

__all__ = [
    "ALGORITHM",
    "HEADER_AUTHORIZATION",
    "HEADER_DATE",
    "HEADER_CONTENT_SHA256",
    "HEADER_SECURITY_TOKEN",
    "HEADER_PROJECT_ID",
    "SDK_DATE_FORMAT",
    "EMPTY_BODY_SHA256",
    "UNSIGNED_PAYLOAD",
    "SignatureError",
    "ParsedAuthorization",
    "url_encode",
    "canonical_uri",
    "canonical_query_string",
    "canonical_headers",
    "payload_hash",
    "canonical_request",
    "string_to_sign",
    "sign",
    "authorization_header",
    "parse_authorization",
    "default_signed_headers",
    "format_sdk_date",
    "parse_sdk_date",
    "signature_for",
    "SdkHmacAuth",
]

ALGORITHM = "SDK-HMAC-SHA256"
HEADER_AUTHORIZATION = "Authorization"
HEADER_DATE = "X-Sdk-Date"
HEADER_CONTENT_SHA256 = "X-Sdk-Content-Sha256"
HEADER_SECURITY_TOKEN = "X-Security-Token"
HEADER_PROJECT_ID = "X-Project-Id"
SDK_DATE_FORMAT = "%Y%m%dT%H%M%SZ"
EMPTY_BODY_SHA256 = hashlib.sha256(b"").hexdigest()
UNSIGNED_PAYLOAD = "UNSIGNED-PAYLOAD"

# Headers the client never signs: transport/hop-by-hop headers that proxies, load balancers or the
# HTTP stack may add, drop or rewrite. (The SDK signs only the headers it sets itself, which never
# include these.)
UNSIGNED_HEADER_NAMES = frozenset(
    {
        "authorization",
        "connection",
        "keep-alive",
        "accept",
        "accept-encoding",
        "content-length",
        "transfer-encoding",
        "user-agent",
        "te",
        "trailer",
        "upgrade",
        "expect",
        "proxy-authorization",
        "proxy-connection",
    }
)

QueryValue = Union[str, int, float, bool, None, Sequence[Union[str, int, float]]]
QueryLike = Union[None, str, bytes, Mapping[str, QueryValue], Iterable[tuple[str, QueryValue]]]


class SignatureError(ValueError):
    """A request signature is malformed, stale or does not match. Never carries secrets."""


@dataclass(frozen=True)
class ParsedAuthorization:
    algorithm: str
    access_key: str
    signed_headers: tuple[str, ...]
    signature: str


def url_encode(value: str) -> str:
    """Percent-encode everything except RFC 3986 unreserved characters (``A-Za-z0-9-._~``)."""
    return quote(value, safe="~")


def canonical_uri(path: str) -> str:
    """Canonical URI of a (raw, possibly percent-encoded) request path; always ends with ``/``."""
    if not path:
        path = "/"
    url_path = "/".join(url_encode(segment) for segment in unquote(path).split("/"))
    if not url_path.endswith("/"):
        url_path += "/"
    return url_path


def _query_value_str(value: object) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


def _query_pairs(query: QueryLike) -> list[tuple[str, str]]:
    if query is None:
        return []
    if isinstance(query, bytes):
        query = query.decode("utf-8")
    if isinstance(query, str):
        q = query[1:] if query.startswith("?") else query
        return parse_qsl(q, keep_blank_values=True)
    items: Iterable[tuple[str, object]]
    items = query.items() if isinstance(query, Mapping) else query
    pairs: list[tuple[str, str]] = []
    for key, value in items:
        if isinstance(value, (list, tuple)):
            pairs.extend((str(key), str(v)) for v in value)
        else:
            pairs.append((str(key), _query_value_str(value)))
    return pairs


def canonical_query_string(query: QueryLike) -> str:
    """Canonical query string.

    ``query`` is a raw query string (``"a=1&b=x%20y"``, parsed with blank values kept), a mapping
    (values may be lists for repeated keys) or an iterable of ``(key, value)`` pairs.
    """
    pairs = sorted(_query_pairs(query))
    return "&".join(f"{url_encode(k)}={url_encode(v)}" for k, v in pairs)


def _header_lookup(headers: Mapping[str, str]) -> dict[str, str]:
    """Lowercased name -> stripped value (last one wins, as in the SDK)."""
    return {str(k).lower(): str(v).strip() for k, v in headers.items()}


def canonical_headers(headers: Mapping[str, str], signed_headers: Sequence[str]) -> str:
    lookup = _header_lookup(headers)
    lines = []
    for name in signed_headers:
        name = name.lower()
        if name not in lookup:
            raise SignatureError(f"signed header {name!r} is missing from the request")
        lines.append(f"{name}:{lookup[name]}")
    return "\n".join(lines) + "\n"


def payload_hash(headers: Mapping[str, str], body: Optional[bytes]) -> str:
    if not body:
        return EMPTY_BODY_SHA256
    if isinstance(body, str):
        body = body.encode("utf-8")
    declared = _header_lookup(headers).get(HEADER_CONTENT_SHA256.lower())
    if declared:
        return declared
    return hashlib.sha256(body).hexdigest()


def canonical_request(
    method: str,
    path: str,
    query: QueryLike,
    headers: Mapping[str, str],
    signed_headers: Sequence[str],
    body: Optional[bytes],
    payload: Optional[str] = None,
) -> str:
    """The SDK-HMAC-SHA256 canonical request (six newline-separated parts); ``payload`` overrides the
    payload hash part (see :func:`verify_request`)."""
    signed = [h.lower() for h in signed_headers]
    return "\n".join(
        [
            method.upper(),
            canonical_uri(path),
            canonical_query_string(query),
            canonical_headers(headers, signed),
            ";".join(signed),
            payload if payload is not None else payload_hash(headers, body),
        ]
    )


def string_to_sign(canonical_request: str, sdk_date: str) -> str:
    digest = hashlib.sha256(canonical_request.encode("utf-8")).hexdigest()
    return f"{ALGORITHM}\n{sdk_date}\n{digest}"


def sign(secret_key: Union[str, SecretStr], string_to_sign: str) -> str:
    if isinstance(secret_key, SecretStr):
        secret_key = secret_key.get_secret_value()
    return hmac.new(
        secret_key.encode("utf-8"), string_to_sign.encode("utf-8"), hashlib.sha256
    ).hexdigest()


def authorization_header(access_key: str, signed_headers: Sequence[str], signature: str) -> str:
    return (
        f"{ALGORITHM} Access={access_key}, "
        f"SignedHeaders={';'.join(h.lower() for h in signed_headers)}, Signature={signature}"
    )


_AUTH_RE = re.compile(r"^\s*(?P<alg>[A-Za-z0-9-]+)\s+(?P<params>.+?)\s*$")


def parse_authorization(value: str) -> ParsedAuthorization:
    """Parse ``SDK-HMAC-SHA256 Access=..., SignedHeaders=a;b, Signature=...``.

    Raises :class:`SignatureError` when the header is malformed or uses another algorithm.
    """
    m = _AUTH_RE.match(value or "")
    if not m:
        raise SignatureError("malformed Authorization header")
    alg = m.group("alg")
    if alg != ALGORITHM:
        raise SignatureError(f"unsupported signing algorithm {alg[:40]!r}")
    params: dict[str, str] = {}
    for part in m.group("params").split(","):
        key, sep, val = part.strip().partition("=")
        if not sep:
            raise SignatureError("malformed Authorization header")
        params[key.strip()] = val.strip()
    try:
        access = params["Access"]
        signed = params["SignedHeaders"]
        signature = params["Signature"]
    except KeyError as exc:
        raise SignatureError(f"Authorization header lacks {exc.args[0]}") from None
    if not access or not signed or not re.fullmatch(r"[0-9a-f]{64}", signature):
        raise SignatureError("malformed Authorization header")
    return ParsedAuthorization(alg, access, tuple(signed.split(";")), signature)


def default_signed_headers(headers: Mapping[str, str]) -> list[str]:
    """Lowercase, sorted, de-duplicated names of the headers to sign.

    As in the SDK, names containing ``_`` are never signed; transport headers are left out too.
    """
    names = {
        str(k).lower()
        for k in headers
        if "_" not in str(k) and str(k).lower() not in UNSIGNED_HEADER_NAMES
    }
    return sorted(names)


def format_sdk_date(moment: Optional[datetime] = None) -> str:
    moment = moment or datetime.now(timezone.utc)
    if moment.tzinfo is not None:
        moment = moment.astimezone(timezone.utc)
    return moment.strftime(SDK_DATE_FORMAT)


def parse_sdk_date(value: str) -> datetime:
    try:
        return datetime.strptime(value, SDK_DATE_FORMAT).replace(tzinfo=timezone.utc)
    except (TypeError, ValueError):
        raise SignatureError("malformed X-Sdk-Date header") from None


def signature_for(
    secret_key: Union[str, SecretStr],
    method: str,
    path: str,
    query: QueryLike,
    headers: Mapping[str, str],
    signed_headers: Sequence[str],
    body: Optional[bytes],
    payload: Optional[str] = None,
) -> str:
    """Convenience: the hex signature of a request whose headers include ``X-Sdk-Date``."""
    sdk_date = _header_lookup(headers).get(HEADER_DATE.lower())
    if not sdk_date:
        raise SignatureError("X-Sdk-Date header is missing")
    cr = canonical_request(method, path, query, headers, signed_headers, body, payload)
    return sign(secret_key, string_to_sign(cr, sdk_date))


def _default_port(scheme: str) -> Optional[int]:
    return {"http": 80, "https": 443}.get(scheme.lower())


def _host_header(url: str) -> str:
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:  # IPv6 literal
        host = f"[{host}]"
    port = parts.port
    if port is not None and port != _default_port(parts.scheme):
        host = f"{host}:{port}"
    return host


def _mask(access_key: str) -> str:
    return access_key[:4] + "***" if len(access_key) > 4 else "***"


class SdkHmacAuth(requests.auth.AuthBase):
    """requests auth object that signs each request with SDK-HMAC-SHA256.

    Adds ``Host`` (when absent), ``X-Sdk-Date`` (when absent), ``X-Security-Token`` (temporary
    credentials), ``X-Project-Id`` (when a project id is given: huaweicloudsdkcore's
    ``BasicCredentials`` sends it on every request, and Huawei's request guide requires it for AK/SK
    calls in multi-project and dedicated-cloud accounts), ``X-Sdk-Content-Sha256: UNSIGNED-PAYLOAD``
    for non-JSON content types (as the SDK), rewrites the URL query into canonical order and sets
    ``Authorization``. Every header is signed except transport headers (see
    ``UNSIGNED_HEADER_NAMES``) and names containing ``_``; so ``X-Project-Id`` is signed, as the SDK
    signs it.
    """

    def __init__(
        self,
        access_key: str,
        secret_key: Union[str, SecretStr],
        security_token: Union[str, SecretStr, None] = None,
        *,
        project_id: Optional[str] = None,
        clock: Callable[[], datetime] = lambda: datetime.now(timezone.utc),
    ) -> None:
        if not access_key:
            raise ValueError("access key is required")
        self._access_key = access_key
        self._secret_key = secret_key if isinstance(secret_key, SecretStr) else SecretStr(secret_key)
        if not self._secret_key.get_secret_value():
            raise ValueError("secret key is required")
        if security_token is not None and not isinstance(security_token, SecretStr):
            security_token = SecretStr(security_token)
        self._security_token = security_token
        if project_id is not None and (not project_id.strip() or "\n" in project_id or "\r" in project_id):
            raise ValueError("project id must be a non-empty single-line value")
        self._project_id = project_id
        self._clock = clock

    @property
    def access_key(self) -> str:
        return self._access_key

    def __repr__(self) -> str:
        token = ", security_token=**********" if self._security_token is not None else ""
        return f"SdkHmacAuth(access_key={_mask(self._access_key)!r}, secret_key=**********{token})"

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:  # requests compares auth objects on redirects
        return self is other

    def __hash__(self) -> int:
        return id(self)

    def __call__(self, r: requests.PreparedRequest) -> requests.PreparedRequest:
        parts = urlsplit(r.url)
        cqs = canonical_query_string(parts.query)
        r.url = urlunsplit((parts.scheme, parts.netloc, parts.path or "/", cqs, ""))

        headers = r.headers
        if "Host" not in headers:
            headers["Host"] = _host_header(r.url)
        if HEADER_DATE not in headers:
            headers[HEADER_DATE] = format_sdk_date(self._clock())
        if self._security_token is not None:
            headers[HEADER_SECURITY_TOKEN] = self._security_token.get_secret_value()
        if self._project_id is not None:
            headers[HEADER_PROJECT_ID] = self._project_id  # signed below, as by the SDK
        content_type = headers.get("Content-Type")
        if content_type and not (
            content_type.startswith("application/json")
            or content_type.startswith("application/bson")
        ):
            headers[HEADER_CONTENT_SHA256] = UNSIGNED_PAYLOAD

        body = r.body
        if body is None:
            body_bytes = b""
        elif isinstance(body, bytes):
            body_bytes = body
        elif isinstance(body, str):
            body_bytes = body.encode("utf-8")
        else:  # streamed body: cannot hash it, declare it unsigned
            headers[HEADER_CONTENT_SHA256] = UNSIGNED_PAYLOAD
            body_bytes = b"\x00"  # non-empty marker so the declared hash is used

        signed = default_signed_headers(headers)
        cr = canonical_request(r.method or "GET", parts.path or "/", cqs, headers, signed, body_bytes)
        signature = sign(self._secret_key, string_to_sign(cr, headers[HEADER_DATE]))
        headers[HEADER_AUTHORIZATION] = authorization_header(self._access_key, signed, signature)
        return r

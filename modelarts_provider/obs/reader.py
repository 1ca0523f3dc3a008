"""``ObsReader``: the two reads the command-line tools make of OBS (a folder's listing, an object's bytes), over
``http.client``, signed with OBS's own header signature.

Why not ObsClient (botocore): importing botocore and building its S3 client costs half a second (its service model,
endpoint rules and partitions are read from JSON at each start), and `outputs` must answer in under a second
(issue 56). The provider keeps ObsClient for everything else (uploads, buckets, deletes: its retries, pooled
connections, checksums); these two GETs need none of that.

The signature (OBS API reference, "Authentication of Signature in a Header"): ``Authorization: OBS AK:signature``,
signature = Base64(HMAC-SHA1(SK, StringToSign)), StringToSign = ``GET\\n\\n\\n<Date>\\n<x-obs- headers><resource>``:
the ``x-obs-`` headers (here only a temporary credential's ``x-obs-security-token``) lower-cased and sorted, one
``name:value`` line each; the resource ``/bucket/key`` as the request names it (a listing's query parameters are not
sub-resources: they are not signed). Bucket in the path or in the host name (`addressing_style`), as ObsClient.

Retries: the GETs are safe to repeat, so throttling (429), 500/502/503/504 and connection errors are tried again,
`max_attempts` tries in all, with exponential backoff and jitter (botocore's standard mode, which ObsClient uses).
Every failure is an ``ObsError`` worded as ObsClient's (op ``list_objects`` / ``get_object``, the service's code).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import http.client
import random
import ssl
import time
from collections.abc import Iterator
from email.utils import formatdate
from pathlib import Path
from urllib.parse import quote, urlencode, urlsplit
from xml.etree import ElementTree

from .client import ListingPage, ObjectInfo, listed
from .errors import CLIENT_CONNECTION, CLIENT_TIMEOUT, ObsError, bare_status_code
from .settings import ObsSettings

__all__ = ["ObsReader", "string_to_sign"]

RETRIED_STATUSES = frozenset({429, 500, 502, 503, 504})
CHUNK = 1 << 20
_NOT_SENT = (ConnectionError, http.client.HTTPException, TimeoutError, OSError)


def string_to_sign(method: str, date: str, obs_headers: dict[str, str], resource: str) -> str:
    """What OBS's header signature signs (no Content-MD5 or Content-Type: these requests have no body)."""
    lines = "".join(f"{k.lower()}:{v.strip()}\n" for k, v in sorted(obs_headers.items(), key=lambda kv: kv[0].lower()))
    return f"{method}\n\n\n{date}\n{lines}{resource}"


def _local(tag: str) -> str:
    """An XML element's name without its namespace (OBS and S3 answer with different ones)."""
    return tag.rpartition("}")[2]


def _text(element: ElementTree.Element, name: str) -> str:
    for child in element:
        if _local(child.tag) == name:
            return child.text or ""
    return ""


class ObsReader:
    def __init__(self, settings: ObsSettings) -> None:
        self.settings = settings
        url = urlsplit(settings.endpoint)
        self._https = url.scheme == "https"
        self._host = url.hostname or ""
        self._port = url.port
        self._context: ssl.SSLContext | None = None
        if self._https:
            self._context = ssl.create_default_context(cafile=settings.ca_bundle) if settings.verify_tls \
                else ssl._create_unverified_context()  # verifyTls: false, as the user set it (documented)
        self._connections: dict[str, http.client.HTTPConnection] = {}

    def close(self) -> None:
        for conn in self._connections.values():
            conn.close()
        self._connections.clear()

    # --- the two reads ------------------------------------------------------------------------------

    def iter_objects(self, bucket: str, prefix: str = "", page_size: int = 1000) -> Iterator[ObjectInfo]:
        """Every object under the prefix, in key order (ListObjects v1, marker paging, as ObsClient reads it)."""

        def page_at(marker: str) -> ListingPage:
            query = {"prefix": prefix, "max-keys": str(page_size), **({"marker": marker} if marker else {})}
            body = self._get("list_objects", bucket, None, query).read()
            try:
                root = ElementTree.fromstring(body)
            except ElementTree.ParseError:
                raise ObsError("list_objects", bucket, prefix or None, "BadResponse",
                               message="the listing is not XML", secrets=self.settings.secrets()) from None
            items = [c for c in root if _local(c.tag) == "Contents"]
            return ListingPage([ObjectInfo(key=_text(i, "Key"), size=int(_text(i, "Size") or 0),
                                           etag=_text(i, "ETag").strip('"')) for i in items],
                               _text(root, "IsTruncated").lower() == "true", _text(root, "NextMarker") or None)

        return listed(page_at)

    def get_file(self, bucket: str, key: str, path: Path) -> None:
        """One object into a local file, streamed (a model may not fit in memory twice); nothing is written when
        the GET fails."""
        response = self._get("get_object", bucket, key, {})
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as f:
            while chunk := response.read(CHUNK):
                f.write(chunk)

    # --- one signed GET, retried ----------------------------------------------------------------------

    def _target(self, bucket: str, key: str | None, query: dict[str, str]) -> tuple[str, str, str]:
        """(host header, request path with its query, signed resource): a listing is the bucket's `/`."""
        object_path = "/" + (quote(key, safe="/~") if key else "")
        resource = f"/{bucket}{object_path}"
        if self.settings.addressing_style == "path":
            host, path = self._host, resource
        else:
            host, path = f"{bucket}.{self._host}", object_path
        if self._port:
            host = f"{host}:{self._port}"
        return host, path + ("?" + urlencode(query, quote_via=quote) if query else ""), resource

    def _headers(self, host: str, resource: str) -> dict[str, str]:
        date = formatdate(usegmt=True)
        obs_headers = {}
        if self.settings.security_token is not None:
            obs_headers["x-obs-security-token"] = self.settings.security_token.get_secret_value()
        sig = base64.b64encode(hmac.new(self.settings.secret_key.get_secret_value().encode(),
                                        string_to_sign("GET", date, obs_headers, resource).encode(),
                                        hashlib.sha1).digest()).decode()
        return {"Host": host, "Date": date, **obs_headers, "Authorization": f"OBS {self.settings.access_key}:{sig}",
                "User-Agent": "modelarts-pulumi-obs-reader/0.1"}

    def _connection(self, host: str) -> http.client.HTTPConnection:
        conn = self._connections.get(host)
        if conn is None:
            name, _, port = host.partition(":")
            timeout = self.settings.connect_timeout
            conn = (http.client.HTTPSConnection(name, int(port) if port else None, timeout=timeout,
                                                context=self._context) if self._https
                    else http.client.HTTPConnection(name, int(port) if port else None, timeout=timeout))
            self._connections[host] = conn
        return conn

    def _get(self, op: str, bucket: str, key: str | None, query: dict[str, str]) -> http.client.HTTPResponse:
        host, path, resource = self._target(bucket, key, query)
        where = key if key is not None else (query.get("prefix") or None)
        attempts = self.settings.max_attempts
        for attempt in range(1, attempts + 1):
            conn = self._connection(host)
            try:
                if conn.sock is None:
                    conn.connect()
                    conn.sock.settimeout(self.settings.read_timeout)
                conn.request("GET", path, headers=self._headers(host, resource))
                response = conn.getresponse()
            except _NOT_SENT as err:
                conn.close()
                self._connections.pop(host, None)
                if attempt < attempts:
                    self._backoff(attempt)
                    continue
                code = CLIENT_TIMEOUT if isinstance(err, TimeoutError) else CLIENT_CONNECTION
                raise ObsError(op, bucket, where, code, message=f"{type(err).__name__}: {err}",
                               secrets=self.settings.secrets()) from None
            if response.status == 200:
                return response
            body = response.read()
            if response.status in RETRIED_STATUSES and attempt < attempts:
                self._backoff(attempt)
                continue
            raise self._error(op, bucket, where, response, body)
        raise AssertionError("unreachable: the last attempt returns or raises")

    @staticmethod
    def _backoff(attempt: int) -> None:
        time.sleep(random.uniform(0, min(20.0, 2.0 ** (attempt - 1))))

    def _error(self, op: str, bucket: str, where: str | None, response: http.client.HTTPResponse,
               body: bytes) -> ObsError:
        code, message, request_id = "", "", response.getheader("x-obs-request-id") or response.getheader(
            "x-amz-request-id")
        try:
            root = ElementTree.fromstring(body) if body else None
        except ElementTree.ParseError:
            root = None
        if root is not None:
            code, message = _text(root, "Code"), _text(root, "Message")
            request_id = _text(root, "RequestId") or request_id
        if not code:  # no body (a HEAD-like answer, a web server's page): the status in S3's words
            code = bare_status_code(response.status)
        return ObsError(op, bucket, where, code, status=response.status, message=message, request_id=request_id,
                        secrets=self.settings.secrets())

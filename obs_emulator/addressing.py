"""Where a request names its bucket: in the path (``/bucket/key``, path style) or in the host name
(``bucket.localhost:8781/key``, virtual-hosted style), as the real OBS serves both.

esdk-obs-python addresses virtual-hosted by default whenever its endpoint is a host name rather than an IP
address, and it signs with OBS's own scheme only then (path style turns ``signature='obs'`` into V2). The local
OBS's only virtual-hosted domain is ``localhost``: RFC 6761 reserves ``*.localhost`` for the loopback, so no
configuration names it. Everything behind the server (moto, the store, the fault rules) sees the path-style
form; only the signature checks look at the request as sent (V4 signs the path as sent and the Host header,
OBS and V2 sign ``/bucket/`` + the path: addressing.signed_resource).
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict

VIRTUAL_HOST_DOMAIN = "localhost"
# A DNS-compatible bucket name (OBS's naming rules: 3-63 characters, lower-case letters, digits, '-' and '.').
_BUCKET_HOST_RE = re.compile(r"^(?P<bucket>[a-z0-9][a-z0-9.-]{1,61}[a-z0-9])\." + VIRTUAL_HOST_DOMAIN + r"$")


class Addressed(BaseModel):
    """A request's target in path style, with the bucket its host name gave (None: path style)."""

    model_config = ConfigDict(frozen=True)

    host_bucket: str | None
    path: str  # path style, raw (percent-encoded as sent): what moto, the store and the faults see


def host_bucket(host_header: str) -> str | None:
    """The bucket a ``Host`` header names, or None when it names the server itself."""
    name = host_header.rsplit(":", 1)[0] if not host_header.endswith("]") else host_header
    match = _BUCKET_HOST_RE.match(name.lower())
    return match.group("bucket") if match else None


def addressed(host_header: str, raw_path: str) -> Addressed:
    bucket = host_bucket(host_header)
    if bucket is None:
        return Addressed(host_bucket=None, path=raw_path or "/")
    rest = raw_path if raw_path not in ("", "/") else ""
    return Addressed(host_bucket=bucket, path=f"/{bucket}{rest}")


def signed_resource(target: Addressed, raw_path: str) -> str:
    """The path OBS's and AWS V2's string to sign carry: ``/bucket/key``; a virtual-hosted bucket request's is
    ``/bucket/`` (the OBS API reference's CanonicalizedResource keeps the path's slash after the bucket)."""
    if target.host_bucket is None:
        return raw_path or "/"
    return f"/{target.host_bucket}{raw_path or '/'}"

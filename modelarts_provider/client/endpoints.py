"""ModelArts and IAM endpoints of a cloud and region (the hosts are the clouds' table, clouds.py).

* An explicit ``endpoint`` overrides ModelArts (e.g. the emulator ``http://127.0.0.1:8780``); the IAM
  endpoint then defaults to the same address (the emulator serves ``/v3/auth/tokens`` too) unless
  ``iam_endpoint`` is given.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional
from urllib.parse import urlsplit

from .clouds import CLOUDS, CloudName, check_region, cloud_of

__all__ = ["Cloud", "Endpoints", "modelarts_endpoint", "iam_endpoint", "resolve_endpoints"]

Cloud = CloudName


@dataclass(frozen=True)
class Endpoints:
    modelarts: str
    iam: str


def _check_cloud(cloud: str) -> str:
    entry = cloud_of(cloud)
    if entry is None:
        raise ValueError(f"unknown cloud {cloud!r} (expected {' or '.join(repr(c) for c in CLOUDS)})")
    return entry.name


def modelarts_endpoint(cloud: str, region: str) -> str:
    return CLOUDS[_check_cloud(cloud)].endpoint("modelarts", check_region(region))


def iam_endpoint(cloud: str, region: str) -> str:
    return CLOUDS[_check_cloud(cloud)].endpoint("iam", check_region(region))


def _normalize_override(url: str, what: str) -> str:
    url = url.strip().rstrip("/")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"invalid {what} {url!r}: expected http(s)://host[:port]")
    if parts.query or parts.fragment:
        raise ValueError(f"invalid {what} {url!r}: no query or fragment allowed")
    return url


def resolve_endpoints(
    cloud: str,
    region: str,
    endpoint: Optional[str] = None,
    iam_endpoint_override: Optional[str] = None,
) -> Endpoints:
    ma = _normalize_override(endpoint, "endpoint") if endpoint else modelarts_endpoint(cloud, region)
    if iam_endpoint_override:
        iam = _normalize_override(iam_endpoint_override, "iam_endpoint")
    elif endpoint:
        iam = ma
    else:
        iam = iam_endpoint(cloud, region)
    return Endpoints(modelarts=ma, iam=iam)

"""ModelArts and IAM endpoint resolution for Huawei Cloud and Open Telekom Cloud.

* Huawei Cloud: ``https://modelarts.{region}.myhuaweicloud.com``; the exception is ``ap-southeast-1``
  whose ModelArts endpoint is ``https://modelarts.ap-southeast-1.myhuaweicloud.cn``. IAM:
  ``https://iam.{region}.myhuaweicloud.com`` (also for ap-southeast-1, as huaweicloudsdkcore's IAM
  endpoint table).
* Open Telekom Cloud: ``https://modelarts.{region}.otc.t-systems.com`` (ModelArts runs in ``eu-de``),
  IAM ``https://iam.{region}.otc.t-systems.com``.
* An explicit ``endpoint`` overrides ModelArts (e.g. the emulator ``http://127.0.0.1:8780``); the IAM
  endpoint then defaults to the same address (the emulator serves ``/v3/auth/tokens`` too) unless
  ``iam_endpoint`` is given.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal, Optional
from urllib.parse import urlsplit

__all__ = ["Cloud", "Endpoints", "modelarts_endpoint", "iam_endpoint", "resolve_endpoints"]

Cloud = Literal["huaweicloud", "otc"]

_REGION_RE = re.compile(r"^[a-z]{2,}(-[a-z0-9]+)+\Z")
_CN_SUFFIX_REGIONS = frozenset({"ap-southeast-1"})


@dataclass(frozen=True)
class Endpoints:
    modelarts: str
    iam: str


def _check_region(region: str) -> str:
    if not region or not _REGION_RE.match(region):
        raise ValueError(f"invalid region {region!r} (expected e.g. cn-north-4 or eu-de)")
    return region


def _check_cloud(cloud: str) -> str:
    c = (cloud or "").strip().lower()
    aliases = {"huaweicloud": "huaweicloud", "huawei": "huaweicloud", "hwc": "huaweicloud",
               "otc": "otc", "opentelekomcloud": "otc", "open-telekom-cloud": "otc"}
    if c not in aliases:
        raise ValueError(f"unknown cloud {cloud!r} (expected 'huaweicloud' or 'otc')")
    return aliases[c]


def modelarts_endpoint(cloud: str, region: str) -> str:
    cloud = _check_cloud(cloud)
    region = _check_region(region)
    if cloud == "otc":
        return f"https://modelarts.{region}.otc.t-systems.com"
    tld = "cn" if region in _CN_SUFFIX_REGIONS else "com"
    return f"https://modelarts.{region}.myhuaweicloud.{tld}"


def iam_endpoint(cloud: str, region: str) -> str:
    cloud = _check_cloud(cloud)
    region = _check_region(region)
    if cloud == "otc":
        return f"https://iam.{region}.otc.t-systems.com"
    return f"https://iam.{region}.myhuaweicloud.com"


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

"""OBS endpoint per cloud and region (path-style: the bucket goes in the path, not the host name).

* Huawei Cloud: ``https://obs.{region}.myhuaweicloud.com``; Huawei Cloud Europe (``eu-west-101``,
  Dublin) is ``https://obs.eu-west-101.myhuaweicloud.eu``.
* Open Telekom Cloud: ``https://obs.{region}.otc.t-systems.com`` (``eu-de``, ``eu-nl``); the Swiss
  region ``eu-ch2`` is ``https://obs.eu-ch2.sc.otc.t-systems.com``.
* An explicit endpoint (``modelarts:obsEndpoint`` / ``OBS_ENDPOINT``, e.g. the local OBS
  ``http://127.0.0.1:8781``) overrides both; the region is still checked and still signs requests.
"""

from __future__ import annotations

import re
from typing import Literal
from urllib.parse import urlsplit

__all__ = ["obs_endpoint", "resolve_obs_endpoint"]

Cloud = Literal["huaweicloud", "otc"]

_REGION_RE = re.compile(r"^[a-z]{2,}(-[a-z0-9]+)+\Z")
_HUAWEI_SPECIAL = {"eu-west-101": "https://obs.eu-west-101.myhuaweicloud.eu"}
_OTC_SPECIAL = {"eu-ch2": "https://obs.eu-ch2.sc.otc.t-systems.com"}


def obs_endpoint(cloud: Cloud, region: str) -> str:
    if not _REGION_RE.match(region or ""):
        raise ValueError(f"invalid region {region!r} (expected e.g. cn-north-4 or eu-de)")
    if cloud == "otc":
        return _OTC_SPECIAL.get(region, f"https://obs.{region}.otc.t-systems.com")
    if cloud == "huaweicloud":
        return _HUAWEI_SPECIAL.get(region, f"https://obs.{region}.myhuaweicloud.com")
    raise ValueError(f"unknown cloud {cloud!r} (expected huaweicloud or otc)")


def resolve_obs_endpoint(cloud: Cloud, region: str, override: str | None = None) -> str:
    default = obs_endpoint(cloud, region)  # validates the region even when overridden
    if not override:
        return default
    url = override.strip().rstrip("/")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.query or parts.fragment:
        raise ValueError(f"invalid OBS endpoint {url!r}: expected http(s)://host[:port]")
    if parts.path not in ("", "/"):
        raise ValueError(f"invalid OBS endpoint {url!r}: no path allowed (buckets go in the path)")
    return url

"""OBS endpoint per cloud and region (path-style: the bucket goes in the path, not the host name); the hosts
are the clouds' table (client/clouds.py).

* An explicit endpoint (``modelarts:obsEndpoint`` / ``OBS_ENDPOINT``, e.g. the local OBS
  ``http://127.0.0.1:8781``) overrides it; the region is still checked and still signs requests.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from ..client.clouds import CLOUDS, CloudName, check_region

__all__ = ["obs_endpoint", "resolve_obs_endpoint"]


def obs_endpoint(cloud: CloudName, region: str) -> str:
    check_region(region)
    if cloud not in CLOUDS:
        raise ValueError(f"unknown cloud {cloud!r} (expected {' or '.join(CLOUDS)})")
    return CLOUDS[cloud].endpoint("obs", region)


def resolve_obs_endpoint(cloud: CloudName, region: str, override: str | None = None) -> str:
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

"""What the product knows about each cloud, as data: one entry per cloud, read by the client (ModelArts, IAM),
OBS (obs/) and the provider (settings, console links) alike. A new cloud or a region whose host differs is one
entry here, nothing else.

Per cloud: the endpoint of each service as a template over the region, the regions whose host differs from it,
the console host, the region names that tell the cloud when `modelarts:cloud` is not set, and the environment
variables its tools use for each provider setting (Huawei Cloud's HW_*, OpenStack's OS_* as OTC uses them).
Here because the client is the lowest layer: everything above it may read this, it reads nothing above it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Literal

from pydantic import BaseModel, ConfigDict

__all__ = ["CLOUDS", "COMMON_ENV", "DEFAULT_CLOUD", "NAMESPACE", "CloudEntry", "CloudName", "Service",
           "check_region", "cloud_of", "default_cloud", "env_names"]

CloudName = Literal["huaweicloud", "otc"]
Service = Literal["modelarts", "iam", "obs"]

# The stack-config namespace of the provider settings (`modelarts:region`) whose environment variables the
# clouds below name: the ModelArts settings (core/provider_config.py) and the OBS ones (obs/settings.py) both read it.
NAMESPACE = "modelarts"

REGION_RE = re.compile(r"^[a-z]{2,}(-[a-z0-9]+)+\Z")


class CloudEntry(BaseModel):
    """One cloud. Endpoint templates carry `{region}`; `regions` lists only the regions whose host differs."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: CloudName
    aliases: tuple[str, ...] = ()  # other spellings the client accepts (not `modelarts:cloud`)
    endpoints: dict[Service, str]
    regions: dict[str, dict[Service, str]] = {}
    console: str  # the job detail page is the same route on every cloud (training_job/outputs.py)
    region_prefixes: tuple[str, ...] = ()  # a region starting so is this cloud's when none is set
    env: dict[str, tuple[str, ...]] = {}  # provider setting key -> this cloud's environment variables for it

    def endpoint(self, service: Service, region: str) -> str:
        return self.regions.get(region, {}).get(service) or self.endpoints[service].format(region=region)


CLOUDS: dict[str, CloudEntry] = {c.name: c for c in (
    CloudEntry(
        name="huaweicloud", aliases=("huawei", "hwc"),
        endpoints={"modelarts": "https://modelarts.{region}.myhuaweicloud.com",
                   "iam": "https://iam.{region}.myhuaweicloud.com",  # also ap-southeast-1 (huaweicloudsdkcore)
                   "obs": "https://obs.{region}.myhuaweicloud.com"},
        regions={"ap-southeast-1": {"modelarts": "https://modelarts.ap-southeast-1.myhuaweicloud.cn"},
                 "eu-west-101": {"obs": "https://obs.eu-west-101.myhuaweicloud.eu"}},  # Huawei Cloud Europe, Dublin
        console="https://console-intl.huaweicloud.com",
        env={"region": ("HW_REGION_NAME",), "projectId": ("HW_PROJECT_ID",), "accessKey": ("HW_ACCESS_KEY",),
             "secretKey": ("HW_SECRET_KEY",), "securityToken": ("HW_SECURITY_TOKEN",),
             "iamUser": ("HW_USER_NAME",), "iamPassword": ("HW_PASSWORD",), "iamDomain": ("HW_DOMAIN_NAME",),
             "projectName": ("HW_PROJECT_NAME",)}),
    CloudEntry(
        name="otc", aliases=("opentelekomcloud", "open-telekom-cloud"),
        endpoints={"modelarts": "https://modelarts.{region}.otc.t-systems.com",  # ModelArts runs in eu-de
                   "iam": "https://iam.{region}.otc.t-systems.com",
                   "obs": "https://obs.{region}.otc.t-systems.com"},
        regions={"eu-ch2": {"obs": "https://obs.eu-ch2.sc.otc.t-systems.com"}},  # the Swiss region
        console="https://console.otc.t-systems.com",
        region_prefixes=("eu-de", "eu-nl", "eu-ch"),
        env={"region": ("OS_REGION_NAME",), "projectId": ("OS_PROJECT_ID",), "accessKey": ("OS_ACCESS_KEY",),
             "secretKey": ("OS_SECRET_KEY",), "securityToken": ("OS_SECURITY_TOKEN",),
             "iamUser": ("OS_USERNAME",), "iamPassword": ("OS_PASSWORD",),
             "iamDomain": ("OS_DOMAIN_NAME", "OS_USER_DOMAIN_NAME"), "projectName": ("OS_PROJECT_NAME",)}),
)}
DEFAULT_CLOUD = "huaweicloud"
# Environment variables of no one cloud: the overrides pointing at another endpoint (a local cloud).
COMMON_ENV: dict[str, tuple[str, ...]] = {"endpoint": ("MODELARTS_ENDPOINT",), "obsEndpoint": ("OBS_ENDPOINT",),
                                         "billingEndpoint": ("BSS_ENDPOINT",)}
# The settings whose environment variable tells the cloud when `modelarts:cloud` is not set (the credentials).
_TELLING_KEYS = ("accessKey", "iamUser")


def check_region(region: str) -> str:
    if not region or not REGION_RE.match(region):
        raise ValueError(f"invalid region {region!r} (expected e.g. cn-north-4 or eu-de)")
    return region


def cloud_of(name: str) -> CloudEntry | None:
    """The cloud of a name or one of its aliases (any case), else None."""
    wanted = (name or "").strip().lower()
    return next((c for c in CLOUDS.values() if wanted == c.name or wanted in c.aliases), None)


def env_names(key: str) -> tuple[str, ...]:
    """The environment variables tried, in order, for a provider setting (every cloud's, then the common ones)."""
    return tuple(n for c in CLOUDS.values() for n in c.env.get(key, ())) + COMMON_ENV.get(key, ())


def default_cloud(region: str, env_used: Iterable[str] = ()) -> str:
    """The cloud when `modelarts:cloud` is not set: one whose own environment variables gave the credentials
    (`env_used`: the variables the settings were read from), else one whose regions start so, else the
    default cloud."""
    used = set(env_used)
    for cloud in CLOUDS.values():
        if cloud.name == DEFAULT_CLOUD:
            continue
        if any(n in used for k in _TELLING_KEYS for n in cloud.env.get(k, ())) or region.startswith(
                cloud.region_prefixes):
            return cloud.name
    return DEFAULT_CLOUD

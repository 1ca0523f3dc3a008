"""``ObsSettings`` and where they come from: the same ``modelarts:`` config and environment as
the ModelArts provider (provider_config.py), so one set of credentials serves both services.

Keys read (config first, then the environment variables of the clouds' table, client/clouds.py):
region, cloud, obsEndpoint (env OBS_ENDPOINT), accessKey, secretKey, securityToken, verifyTls,
caBundle. ``projectId`` is not needed by OBS. OBS's S3-compatible API authenticates AK/SK
signatures only: an IAM user/password login gets a one-line error saying so.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr

from ..client.clouds import CLOUDS, NAMESPACE, CloudName, default_cloud, env_names
from .endpoints import resolve_obs_endpoint
from .errors import ObsConfigError

__all__ = ["ObsSettings", "resolve_obs_settings"]


class ObsSettings(BaseModel):
    """Everything an ObsClient needs. Secrets are SecretStr (never in repr, str or errors)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    cloud: CloudName = "huaweicloud"
    region: str
    endpoint: str  # resolved: the region's OBS or the override
    access_key: str
    secret_key: SecretStr
    security_token: SecretStr | None = None
    verify_tls: bool = True
    ca_bundle: str | None = None
    connect_timeout: float = Field(default=5.0, gt=0)
    read_timeout: float = Field(default=60.0, gt=0)
    max_attempts: int = Field(default=5, ge=1, le=20)  # botocore standard mode: first try included
    pool_size: int = Field(default=32, ge=1, le=256)  # pooled keep-alive connections: >= upload threads
    addressing_style: Literal["path", "virtual"] = "path"  # bucket in the path (the local OBS needs it)

    def secrets(self) -> list[str]:
        return [s.get_secret_value() for s in (self.secret_key, self.security_token) if s is not None]


def _where(key: str) -> str:
    envs = env_names(key)
    return f"{NAMESPACE}:{key}" + (f" (or {' / '.join(envs)})" if envs else "")


def resolve_obs_settings(config_get: Callable[[str], Any], env: Mapping[str, str]) -> ObsSettings:
    """Settings from `config_get("region")`-style lookups (unnamespaced keys) and an environment."""
    raw: dict[str, str | None] = {}
    env_used: list[str] = []  # the environment variables read (those of the credentials tell the cloud)
    for key in ("region", "cloud", "obsEndpoint", "accessKey", "secretKey", "securityToken",
                "iamUser", "iamPassword", "verifyTls", "caBundle"):
        value = config_get(key)
        if value is None or value == "":
            for name in env_names(key):
                if env.get(name):
                    value = env[name]
                    env_used.append(name)
                    break
        raw[key] = None if value in (None, "") else str(value)

    region = raw["region"]
    if region is None:
        raise ObsConfigError(f"missing provider setting {_where('region')}")
    cloud = raw["cloud"] or default_cloud(region, env_used)
    if cloud not in CLOUDS:
        raise ObsConfigError(f"{NAMESPACE}:cloud must be {' or '.join(CLOUDS)}")

    ak, sk = raw["accessKey"], raw["secretKey"]
    if not (ak and sk):
        if not ak and not sk and (raw["iamUser"] or raw["iamPassword"]):
            raise ObsConfigError(
                f"OBS needs AK/SK: set {_where('accessKey')} and {_where('secretKey')}; an IAM "
                f"user/password login is not accepted by OBS's S3-compatible API")
        missing = [k for k, v in (("accessKey", ak), ("secretKey", sk)) if not v]
        raise ObsConfigError("OBS needs AK/SK: missing " + ", ".join(_where(k) for k in missing))

    verify = (raw["verifyTls"] or "true").lower()
    if verify not in ("true", "false"):
        raise ObsConfigError(f"{NAMESPACE}:verifyTls must be true or false")
    try:
        endpoint = resolve_obs_endpoint(cloud, region, raw["obsEndpoint"])  # type: ignore[arg-type]
    except ValueError as err:
        key = "obsEndpoint" if raw["obsEndpoint"] and "region" not in str(err) else "region"
        raise ObsConfigError(f"{NAMESPACE}:{key}: {err}") from None
    return ObsSettings(
        cloud=cloud, region=region, endpoint=endpoint, access_key=ak, secret_key=SecretStr(sk),
        security_token=SecretStr(raw["securityToken"]) if raw["securityToken"] else None,
        verify_tls=verify == "true", ca_bundle=raw["caBundle"])

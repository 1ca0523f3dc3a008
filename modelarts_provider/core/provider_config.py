"""Provider settings: `modelarts:` stack config, falling back to HW_* / OS_* environment variables.

Stack config keys (namespace ``modelarts:``; set credentials with ``pulumi config set --secret``):

    region          region, e.g. cn-north-4 (Huawei Cloud) or eu-de (OTC)      env HW_REGION_NAME, OS_REGION_NAME
    projectId       project id of the region                                    env HW_PROJECT_ID, OS_PROJECT_ID
    cloud           huaweicloud | otc (default: otc for eu-* regions or OS_* credentials, else huaweicloud)
    endpoint        ModelArts endpoint override (e.g. the local emulator)       env MODELARTS_ENDPOINT
    obsEndpoint     OBS endpoint override (e.g. the local OBS)                  env OBS_ENDPOINT
    iamEndpoint     IAM endpoint override (password auth)
    billingEndpoint billing (BSS) endpoint: prices at preview (docs/cost.md)    env BSS_ENDPOINT
    accessKey       AK                                                          env HW_ACCESS_KEY, OS_ACCESS_KEY
    secretKey       SK (secret)                                                 env HW_SECRET_KEY, OS_SECRET_KEY
    securityToken   temporary security token (secret)                           env HW_SECURITY_TOKEN, OS_SECURITY_TOKEN
    iamUser         IAM user name (instead of AK/SK)                            env HW_USER_NAME, OS_USERNAME
    iamPassword     IAM password (secret)                                       env HW_PASSWORD, OS_PASSWORD
    iamDomain       IAM domain (account) name                                   env HW_DOMAIN_NAME, OS_DOMAIN_NAME, OS_USER_DOMAIN_NAME
    projectName     IAM project name (defaults to the region)                   env HW_PROJECT_NAME, OS_PROJECT_NAME
    verifyTls       true | false (default true)
    caBundle        path to a CA bundle
    retryTimeoutSeconds  how long one API call keeps retrying throttling, 5xx and resets (default 60)
    renamedFrom     the stack's former names after `pulumi stack rename` (core/renames.py): not a client setting
    defaultTags     tags of every TrainingJob, under its own (training_job/default_tags.py): not a client setting

Stack config wins over the environment, key by key. Errors name the key; they show the value given
only for settings that are not secrets (never a key, token or password).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, SecretStr

from ..client.clouds import CLOUDS, NAMESPACE, CloudName, default_cloud, env_names
from .messages import did_you_mean

# The settings, in order; key -> env vars tried in order (config first), from the clouds' table (client/clouds.py).
ENV_FALLBACKS: dict[str, tuple[str, ...]] = {key: env_names(key) for key in (
    "region", "projectId", "cloud", "endpoint", "obsEndpoint", "iamEndpoint", "billingEndpoint", "accessKey", "secretKey",
    "securityToken", "iamUser", "iamPassword", "iamDomain", "projectName", "verifyTls", "caBundle",
    "retryTimeoutSeconds")}
# Settings of the provider's own, not of the client: the stack's former names (core/renames.py).
OWN_KEYS = frozenset({"renamedFrom", "defaultTags"})  # defaultTags: every job's (training_job/default_tags.py)
KNOWN_KEYS = frozenset(ENV_FALLBACKS) | OWN_KEYS
SECRET_KEYS = frozenset({"secretKey", "securityToken", "iamPassword"})
DEFAULT_RETRY_TIMEOUT_S = 60.0
MAX_RETRY_TIMEOUT_S = 3600.0


class ProviderConfigError(ValueError):
    """A missing or inconsistent provider setting; the message names keys, never a secret's value."""


class ProviderSettings(BaseModel):
    """Resolved settings. Secrets are SecretStr: they never show in repr, str or errors."""

    model_config = ConfigDict(frozen=True)

    region: str
    project_id: str
    cloud: CloudName
    endpoint: str | None = None
    obs_endpoint: str | None = None  # read by modelarts_provider.obs (code uploads, buckets)
    iam_endpoint: str | None = None
    billing_endpoint: str | None = None  # read by modelarts_provider.cost (the rating API); None: no price lookup
    access_key: str | None = None
    secret_key: SecretStr | None = None
    security_token: SecretStr | None = None
    iam_user: str | None = None
    iam_password: SecretStr | None = None
    iam_domain: str | None = None
    project_name: str | None = None
    verify_tls: bool = True
    ca_bundle: str | None = None
    retry_timeout_seconds: float = DEFAULT_RETRY_TIMEOUT_S

    def to_client_settings(self) -> Any:
        """The client's ClientSettings (imported lazily: check/diff never need the client)."""
        from ..client import AkSkCredentials, ClientSettings, IamPasswordCredentials
        from ..client.errors import mask_errors_with
        from .masking import mask

        mask_errors_with(mask)  # the client's errors pass the one masking step (the client cannot import it)

        if self.access_key is not None:
            creds: Any = AkSkCredentials(access_key=self.access_key, secret_key=self.secret_key,
                                         security_token=self.security_token)
        else:
            creds = IamPasswordCredentials(user=self.iam_user, password=self.iam_password,
                                           domain=self.iam_domain, project_name=self.project_name)
        kwargs: dict[str, Any] = dict(region=self.region, project_id=self.project_id, cloud=self.cloud,
                                      endpoint=self.endpoint, iam_endpoint=self.iam_endpoint,
                                      credentials=creds, verify_tls=self.verify_tls,
                                      retry_total_s=self.retry_timeout_seconds)
        if self.ca_bundle:
            kwargs["ca_bundle"] = self.ca_bundle
        return ClientSettings(**kwargs)


def _where(key: str) -> str:
    envs = ENV_FALLBACKS[key]
    return f"{NAMESPACE}:{key}" + (f" (or {' / '.join(envs)})" if envs else "")


def resolve_settings(config_get: Callable[[str], Any], env: Mapping[str, str]) -> ProviderSettings:
    """Build settings from `config_get("region")`-style lookups (unnamespaced key) and an environment."""
    raw: dict[str, str | None] = {}
    env_used: list[str] = []  # the environment variables read (those of the credentials tell the cloud)
    for key, envs in ENV_FALLBACKS.items():
        value = config_get(key)
        if value is None or value == "":
            for name in envs:
                if env.get(name):
                    value = env[name]
                    env_used.append(name)
                    break
        raw[key] = None if value in (None, "") else str(value)

    missing = [k for k in ("region", "projectId") if raw[k] is None]
    if missing:
        raise ProviderConfigError("missing provider setting " + ", ".join(_where(k) for k in missing))

    cloud = raw["cloud"]
    if cloud is None:
        cloud = default_cloud(raw["region"], env_used)  # type: ignore[arg-type]
    if cloud not in CLOUDS:
        raise ProviderConfigError(f"{NAMESPACE}:cloud must be {' or '.join(CLOUDS)}, not {cloud!r}")

    ak, sk = raw["accessKey"], raw["secretKey"]
    user, password, domain = raw["iamUser"], raw["iamPassword"], raw["iamDomain"]
    if ak or sk:
        if not (ak and sk):
            need = "secretKey" if ak else "accessKey"
            raise ProviderConfigError(f"{_where(need)} is required with {NAMESPACE}:"
                                      f"{'accessKey' if ak else 'secretKey'}")
    elif user or password:
        absent = [k for k, v in (("iamUser", user), ("iamPassword", password), ("iamDomain", domain)) if not v]
        if absent:
            raise ProviderConfigError("IAM password auth needs " + ", ".join(_where(k) for k in absent))
        if raw["securityToken"]:
            raise ProviderConfigError(f"{NAMESPACE}:securityToken only applies to accessKey/secretKey auth")
    else:
        raise ProviderConfigError(
            f"no credentials: set {_where('accessKey')} and {_where('secretKey')}, or "
            f"{NAMESPACE}:iamUser, iamPassword and iamDomain (or HW_USER_NAME / HW_PASSWORD / HW_DOMAIN_NAME)")

    verify = raw["verifyTls"]
    if verify is not None and verify.lower() not in ("true", "false"):
        raise ProviderConfigError(f"{NAMESPACE}:verifyTls must be true or false, not {verify!r}")
    for key in ("endpoint", "obsEndpoint", "iamEndpoint", "billingEndpoint"):
        url = raw[key]
        if url is not None and not url.startswith(("http://", "https://")):
            raise ProviderConfigError(f"{NAMESPACE}:{key} must be an http(s) URL, e.g. https://host:443, not {url!r}")
    _check_project_name(raw["projectName"], raw["region"])  # type: ignore[arg-type]
    _check_ca_bundle(raw["caBundle"])
    retry_timeout_seconds = _retry_timeout(raw["retryTimeoutSeconds"])
    endpoint, obs_endpoint = raw["endpoint"], raw["obsEndpoint"]

    settings = ProviderSettings(
        region=raw["region"], project_id=raw["projectId"], cloud=cloud,  # type: ignore[arg-type]
        endpoint=endpoint.rstrip("/") if endpoint else None, iam_endpoint=raw["iamEndpoint"],
        obs_endpoint=obs_endpoint.rstrip("/") if obs_endpoint else None,
        billing_endpoint=raw["billingEndpoint"].rstrip("/") if raw["billingEndpoint"] else None,
        access_key=ak, secret_key=SecretStr(sk) if sk else None,
        security_token=SecretStr(raw["securityToken"]) if raw["securityToken"] else None,
        iam_user=user, iam_password=SecretStr(password) if password else None, iam_domain=domain,
        project_name=raw["projectName"], verify_tls=(verify or "true").lower() == "true",
        ca_bundle=raw["caBundle"], retry_timeout_seconds=retry_timeout_seconds,
    )
    _check_endpoints(settings)
    return settings


def _check_project_name(name: str | None, region: str) -> None:
    """IAM project names are the region's own (eu-de) or a subproject of it (eu-de_team): any other
    name would scope the token to another region's project, refused only at the first API call."""
    if name is not None and name != region and not name.startswith(region + "_"):
        raise ProviderConfigError(f"{NAMESPACE}:projectName {name!r} is not a project of region {region!r}: "
                                  f"use {region} or a subproject {region}_<name>")


def _retry_timeout(raw: str | None) -> float:
    if raw is None:
        return DEFAULT_RETRY_TIMEOUT_S
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if not 0 < value <= MAX_RETRY_TIMEOUT_S:  # NaN fails too
        raise ProviderConfigError(f"{NAMESPACE}:retryTimeoutSeconds must be a number of seconds above 0 and at most "
                                  f"{MAX_RETRY_TIMEOUT_S:.0f}, not {raw!r}")
    return value


def _check_ca_bundle(path: str | None) -> None:
    if path is not None and not os.path.isfile(path):
        raise ProviderConfigError(f"{NAMESPACE}:caBundle {path!r} is not a readable file (a PEM bundle of "
                                  "CA certificates)")


def _check_endpoints(settings: ProviderSettings) -> None:
    """Region and endpoint overrides resolve, here at preview rather than at the first API call."""
    from ..client.endpoints import resolve_endpoints

    try:  # the region is checked even when an endpoint override makes it unused for the URL
        resolve_endpoints(settings.cloud, settings.region, None, None)
    except ValueError as err:
        raise ProviderConfigError(f"{NAMESPACE}:region: {err}") from None
    try:
        resolve_endpoints(settings.cloud, settings.region, settings.endpoint, settings.iam_endpoint)
    except ValueError as err:
        raise ProviderConfigError(f"{NAMESPACE}:endpoint: {err}") from None


def unknown_setting_errors(all_config_keys: list[str]) -> list[str]:
    """One line per unknown `modelarts:*` key, with the closest setting or the allowed ones."""
    return [f"unknown provider setting {full} {did_you_mean(full.partition(':')[2], ENV_FALLBACKS, f'{NAMESPACE}:')}"
            for full in unknown_keys(all_config_keys)]


def unknown_keys(all_config_keys: list[str]) -> list[str]:
    """`modelarts:*` keys that are not settings (typos), for the stack program's early check."""
    out = []
    for full in all_config_keys:
        ns, _, key = full.partition(":")
        if ns == NAMESPACE and key not in KNOWN_KEYS:
            out.append(full)
    return sorted(out)

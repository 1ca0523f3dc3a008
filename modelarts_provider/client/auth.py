"""Credentials and requests auth objects.

* ``AkSkCredentials`` -> :class:`~.signer.SdkHmacAuth` (SDK-HMAC-SHA256; ``X-Project-Id`` is added
  and signed on every request, as the SDK's ``BasicCredentials`` does; with ``security_token`` the
  temporary-credential header ``X-Security-Token`` is added and signed too).
* ``IamPasswordCredentials`` -> :class:`IamTokenAuth`: ``POST {iam}/v3/auth/tokens`` (password
  method, project scope), token read from ``X-Subject-Token``, cached, renewed before expiry and
  renewed once when the service answers 401 (see ``transport.Transport``).

Secrets are ``SecretStr``; reprs show ``**********``.
"""

from __future__ import annotations

import logging
import threading
import time
from datetime import datetime, timezone
from typing import Callable, Optional, Union

import requests
from pydantic import BaseModel, ConfigDict, SecretStr, field_validator

from .errors import CLIENT_AUTH, ModelArtsError
from .signer import SdkHmacAuth

__all__ = [
    "AkSkCredentials",
    "IamPasswordCredentials",
    "Credentials",
    "IamTokenAuth",
    "make_auth",
]

log = logging.getLogger("modelarts_provider.client.auth")


class AkSkCredentials(BaseModel):
    """Access key / secret key, optionally temporary (with a security token)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    access_key: str
    secret_key: SecretStr
    security_token: Optional[SecretStr] = None

    @field_validator("access_key")
    @classmethod
    def _ak(cls, v: str) -> str:
        v = v.strip()
        if not v:
            raise ValueError("access_key must not be empty")
        return v

    @field_validator("secret_key")
    @classmethod
    def _sk(cls, v: SecretStr) -> SecretStr:
        if not v.get_secret_value():
            raise ValueError("secret_key must not be empty")
        return v

    def secret_values(self) -> list[str]:
        out = [self.secret_key.get_secret_value()]
        if self.security_token is not None:
            out.append(self.security_token.get_secret_value())
        return out


class IamPasswordCredentials(BaseModel):
    """IAM user password; the token is scoped to ``project_name`` (default: the region name)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    user: str
    password: SecretStr
    domain: str
    project_name: Optional[str] = None

    def secret_values(self) -> list[str]:
        return [self.password.get_secret_value()]


Credentials = Union[AkSkCredentials, IamPasswordCredentials]


def _parse_expiry(value: Optional[str]) -> Optional[float]:
    """IAM ``expires_at`` (``2024-01-01T00:00:00.000000Z``) -> epoch seconds."""
    if not value or not isinstance(value, str):
        return None
    v = value.strip().replace("Z", "+00:00")
    try:
        dt = datetime.fromisoformat(v)
    except ValueError:
        return None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=timezone.utc)
    return dt.timestamp()


class IamTokenAuth(requests.auth.AuthBase):
    """Sets ``X-Auth-Token`` from a cached IAM token; thread-safe; one IAM call per renewal.

    The token is renewed when less than ``renew_margin_s`` (default: 10 minutes, at most 20% of its
    lifetime) is left, and by :meth:`invalidate` (the transport calls it once on a 401).
    """

    DEFAULT_TTL_S = 3600.0

    def __init__(
        self,
        credentials: IamPasswordCredentials,
        *,
        iam_url: str,
        region: str,
        fetch: "Callable[[str, dict], requests.Response]",
        clock: Callable[[], float] = time.time,
        renew_margin_s: float = 600.0,
    ) -> None:
        self._credentials = credentials
        self._iam_url = iam_url.rstrip("/") + "/v3/auth/tokens"
        self._region = region
        self._fetch = fetch  # posts JSON through the shared transport
        self._clock = clock
        self._renew_margin_s = renew_margin_s
        self._lock = threading.Lock()
        self._token: Optional[SecretStr] = None
        self._renew_at = 0.0
        self._expires_at = 0.0
        self.fetch_count = 0

    def __repr__(self) -> str:
        return (
            f"IamTokenAuth(user={self._credentials.user!r}, domain={self._credentials.domain!r}, "
            f"password=**********, token={'**********' if self._token else None})"
        )

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        return self is other

    def __hash__(self) -> int:
        return id(self)

    def _body(self) -> dict:
        c = self._credentials
        return {
            "auth": {
                "identity": {
                    "methods": ["password"],
                    "password": {
                        "user": {
                            "name": c.user,
                            "password": c.password.get_secret_value(),
                            "domain": {"name": c.domain},
                        }
                    },
                },
                "scope": {"project": {"name": c.project_name or self._region}},
            }
        }

    def secret_values(self) -> list[str]:
        out = self._credentials.secret_values()
        if self._token is not None:
            out.append(self._token.get_secret_value())
        return out

    def token(self) -> str:
        """A valid token, fetched or renewed when needed."""
        with self._lock:
            if self._token is None or self._clock() >= self._renew_at:
                self._renew_locked()
            assert self._token is not None
            return self._token.get_secret_value()

    def invalidate(self, used_token: Optional[str] = None) -> None:
        """Forget the cached token (only if it is still ``used_token``, so racing threads renew once)."""
        with self._lock:
            if self._token is None:
                return
            if used_token is None or self._token.get_secret_value() == used_token:
                self._token = None
                self._renew_at = 0.0

    def _renew_locked(self) -> None:
        started = self._clock()
        response = self._fetch(self._iam_url, self._body())
        self.fetch_count += 1
        secrets = self._credentials.secret_values()
        if response.status_code >= 400:
            raise ModelArtsError.from_response(response, secrets=secrets)
        token = response.headers.get("X-Subject-Token")
        if not token:
            raise ModelArtsError(
                "IAM answered without an X-Subject-Token header",
                status=response.status_code,
                error_code=CLIENT_AUTH,
                error_solution="check the IAM endpoint",
                request_id=response.headers.get("X-Request-Id"),
            )
        expires_at = None
        try:
            expires_at = _parse_expiry(response.json().get("token", {}).get("expires_at"))
        except (ValueError, AttributeError):
            expires_at = None
        if expires_at is None:
            expires_at = started + self.DEFAULT_TTL_S
        lifetime = max(expires_at - started, 0.0)
        margin = min(self._renew_margin_s, 0.2 * lifetime)
        self._token = SecretStr(token)
        self._expires_at = expires_at
        self._renew_at = expires_at - margin
        log.debug("IAM token obtained for user %s; renews in %.0fs", self._credentials.user,
                  self._renew_at - started)

    def __call__(self, r: requests.PreparedRequest) -> requests.PreparedRequest:
        r.headers["X-Auth-Token"] = self.token()
        r.headers.pop("Authorization", None)
        return r


def make_auth(
    credentials: Credentials,
    *,
    iam_url: str,
    region: str,
    fetch: "Callable[[str, dict], requests.Response]",
    project_id: Optional[str] = None,
) -> requests.auth.AuthBase:
    """The auth object of ``credentials``; ``project_id`` becomes the signed ``X-Project-Id`` of AK/SK
    requests (IAM tokens are project-scoped already)."""
    if isinstance(credentials, AkSkCredentials):
        return SdkHmacAuth(
            credentials.access_key, credentials.secret_key, credentials.security_token,
            project_id=project_id,
        )
    if isinstance(credentials, IamPasswordCredentials):
        return IamTokenAuth(credentials, iam_url=iam_url, region=region, fetch=fetch)
    raise TypeError(f"unsupported credentials type {type(credentials).__name__}")


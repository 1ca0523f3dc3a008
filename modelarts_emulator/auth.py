"""Gateway authentication as the real API gateway does it, plus an emulated IAM token service.

* AK/SK: ``Authorization: SDK-HMAC-SHA256 Access=.., SignedHeaders=.., Signature=..`` verified by
  local_cloud/gateway_signature.py, written from the signing guide's algorithm and sharing no code with the product's
  signer (canonical request from the SignedHeaders named in the header, payload hash, X-Sdk-Date within 15
  minutes of the gateway's clock). Only ``x-sdk-date`` must be signed (the signing guide, "Are Request Header Parameters
  Required for Signing Requests?"); headers outside SignedHeaders are not looked at, so golangsdk's
  unsigned ``Host``, ``X-Project-Id``, ``X-Domain-Id`` and ``X-Security-Token`` pass. A body may be
  left unsigned with ``X-Sdk-Content-Sha256: UNSIGNED-PAYLOAD`` ("Must the Request Body Be
  Signed? No"); any other declared hash must be the body's. Temporary credentials: when the emulator
  is given ``--security-token`` its access key is a temporary one, and every AK/SK request must carry
  that ``X-Security-Token``, signed or not ("How Do I Use a Temporary AK/SK to Sign Requests?").
* Tokens: ``POST /v3/auth/tokens`` (password method) returns ``X-Subject-Token``; API calls send it
  back as ``X-Auth-Token``. Tokens persist in the database, so a restart keeps them valid.

Every refusal is the gateway's 401 ``APIGW.0301`` "Incorrect IAM authentication information: ..."
(the signing guide's error-code FAQ: "verify aksk signature fail", "Get secretKey failed", "decrypt
token fail"), with the gateway's body ``{error_msg, error_code, request_id}``; valid credentials used
on another project are a 403 ``APIGW.0302``. The gateway's clock is the wall clock, or the time a test
pins with ``POST /_emulator/clock {"gateway_at": "<X-Sdk-Date>"}`` to replay recorded requests.
"""

from __future__ import annotations

import hashlib
import secrets
import threading
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Mapping

from local_cloud import gateway_signature

from . import errors
from .config import EmulatorConfig
from .jobs.models import Store

@dataclass(frozen=True)
class Principal:
    """Who made a request: the user name echoed in metadata.user_name and the owned project."""

    user_name: str
    project_id: str
    method: str  # "aksk" | "token"


def _iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class Authenticator:
    def __init__(self, config: EmulatorConfig, store: Store) -> None:
        self.config = config
        self.store = store
        self._tokens: dict[str, tuple[int, str, str]] = {}  # cache of the tokens table
        self._lock = threading.Lock()
        self._gateway_at: datetime | None = None  # pinned gateway clock; None: the wall clock

    # --- API requests ---------------------------------------------------------------------------

    def authenticate(self, method: str, raw_path: str, raw_query: str,
                     headers: Mapping[str, str], body: bytes, path_project: str) -> Principal:
        lower = {k.lower(): v for k, v in headers.items()}
        if lower.get("x-auth-token"):
            principal = self._check_token(lower["x-auth-token"])
        elif lower.get("authorization"):
            principal = self._check_signature(method, raw_path, raw_query, headers, lower, body)
        else:
            raise errors.unauthorized("no Authorization or X-Auth-Token header")
        header_project = lower.get("x-project-id")
        if header_project and header_project != path_project:
            raise errors.forbidden_project(path_project)
        if path_project != principal.project_id:
            raise errors.forbidden_project(path_project)
        return principal

    def _check_signature(self, method: str, raw_path: str, raw_query: str,
                         headers: Mapping[str, str], lower: dict[str, str],
                         body: bytes) -> Principal:
        cfg = self.config
        try:
            gateway_signature.verify(
                method, raw_path, raw_query, headers, body,
                lambda ak: cfg.secret_key if secrets.compare_digest(ak, cfg.access_key) else None,
                now=self.gateway_now(), max_skew_s=cfg.max_clock_skew_seconds)
        except gateway_signature.SignatureRefused as exc:
            raise errors.unauthorized(_gateway_reason(str(exc), lower.get("authorization", ""))) from None
        if not gateway_signature.declared_hash_is_honest(headers, body):
            raise errors.unauthorized("verify aksk signature fail: X-Sdk-Content-Sha256 is not the body's hash")
        token = lower.get("x-security-token")
        if cfg.security_token and token is None:
            raise errors.unauthorized("verify aksk signature fail: a temporary access key needs its X-Security-Token")
        if token is not None and (not cfg.security_token or not secrets.compare_digest(token, cfg.security_token)):
            raise errors.unauthorized("verify aksk signature fail: invalid or expired security token")
        return Principal(cfg.iam_user, cfg.project_id, "aksk")

    def gateway_now(self) -> datetime:
        """The gateway's clock: the wall clock, or the moment a test pinned (pin_gateway_clock)."""
        pinned = self._gateway_at
        return pinned if pinned is not None else datetime.now(timezone.utc)

    def pin_gateway_clock(self, sdk_date: str | None) -> str | None:
        """Pin the gateway's clock at an X-Sdk-Date (a recorded request's), or back to the wall clock
        (None). The job clock (Store.now) is not touched: phases never move back."""
        try:
            self._gateway_at = None if sdk_date is None else gateway_signature.parse_sdk_date(sdk_date)
        except gateway_signature.SignatureRefused:
            raise errors.invalid_param("gateway_at", "must be an X-Sdk-Date (YYYYMMDDTHHMMSSZ) or null") from None
        return sdk_date

    @property
    def gateway_at(self) -> str | None:
        return None if self._gateway_at is None else gateway_signature.format_sdk_date(self._gateway_at)

    def _check_token(self, token: str) -> Principal:
        with self._lock:
            found = self._tokens.get(token)
        if found is None:
            found = self.store.token(token)
            if found is not None:
                with self._lock:
                    self._tokens[token] = found
        if found is None:
            raise errors.unauthorized("decrypt token fail")
        expires_ms, project_id, user = found
        if expires_ms <= self.store.now():
            raise errors.unauthorized("decrypt token fail: the token has expired")
        return Principal(user, project_id, "token")

    # --- emulated IAM: POST /v3/auth/tokens -------------------------------------------------------

    def issue_token(self, body: Any) -> tuple[str, dict[str, Any]]:
        cfg = self.config
        try:
            identity = body["auth"]["identity"]
            methods = identity["methods"]
            user = identity["password"]["user"]
        except (KeyError, TypeError):
            raise errors.iam_bad_request("auth.identity.password.user is required") from None
        if not isinstance(methods, list) or "password" not in methods:
            raise errors.iam_bad_request("only the password method is supported")
        domain = user.get("domain") if isinstance(user, dict) else None
        domain_name = domain.get("name") if isinstance(domain, dict) else None
        ok = (isinstance(user, dict) and user.get("name") == cfg.iam_user
              and isinstance(user.get("password"), str)
              and secrets.compare_digest(user["password"], cfg.iam_password)
              and domain_name == cfg.iam_domain)
        if not ok:
            raise errors.iam_bad_credentials()
        scope = (body["auth"].get("scope") or {}) if isinstance(body["auth"], dict) else {}
        project = scope.get("project") if isinstance(scope, dict) else None
        project_name = cfg.project_name or "cn-north-4"
        if isinstance(project, dict):
            if project.get("id") and project["id"] != cfg.project_id:
                raise errors.iam_bad_credentials()
            if project.get("name"):
                if cfg.project_name and project["name"] != cfg.project_name:
                    raise errors.iam_bad_credentials()
                project_name = project["name"]  # any region's project maps to ours
        issued = self.store.now()
        expires = issued + int(cfg.token_ttl_seconds * 1000)
        token = "MIIE" + secrets.token_urlsafe(96)
        self.store.add_token(token, expires, cfg.project_id, cfg.iam_user)
        with self._lock:
            self._tokens[token] = (expires, cfg.project_id, cfg.iam_user)
        domain_obj = {"id": hashlib.sha256(cfg.iam_domain.encode()).hexdigest()[:32],
                      "name": cfg.iam_domain}
        return token, {"token": {
            "expires_at": _iso(expires),
            "issued_at": _iso(issued),
            "methods": ["password"],
            "catalog": [],
            "project": {"id": cfg.project_id, "name": project_name, "domain": domain_obj},
            "user": {"id": hashlib.sha256(cfg.iam_user.encode()).hexdigest()[:32], "name": cfg.iam_user,
                     "domain": domain_obj, "password_expires_at": ""},
            "roles": [{"id": "0", "name": "te_admin"}],
        }}

    def forget_cache(self) -> None:
        with self._lock:
            self._tokens.clear()


def _gateway_reason(detail: str, authorization: str) -> str:
    """The signing guide's wording of a refused signature, with what was wrong (never a secret)."""
    if detail == "unknown access key":
        access = authorization.partition("Access=")[2].partition(",")[0].strip()
        shown = access[:4] + "******" if len(access) > 4 else "******"
        return f"Get secretKey failed,ak:{shown},err:ak not exist"
    return f"verify aksk signature fail: {detail}"

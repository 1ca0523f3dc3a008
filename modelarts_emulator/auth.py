"""Gateway authentication as the real API gateway does it, plus an emulated IAM token service.

* AK/SK: ``Authorization: SDK-HMAC-SHA256 Access=.., SignedHeaders=.., Signature=..`` verified with
  the shared implementation in ``modelarts_provider.client.signer`` (canonical request from the
  SignedHeaders named in the header, payload hash, X-Sdk-Date within 15 minutes). ``host`` and
  ``x-sdk-date`` must be signed. ``X-Security-Token`` (temporary credentials) must be signed and
  equal the configured ``--security-token``.
* Tokens: ``POST /v3/auth/tokens`` (password method) returns ``X-Subject-Token``; API calls send it
  back as ``X-Auth-Token``. Tokens persist in the database, so a restart keeps them valid.

Any failure is a 401 ``APIGW.0301``; valid credentials used on another project are a 403
``APIGW.0302``.
"""

from __future__ import annotations

import hashlib
import secrets
import threading
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Mapping

from modelarts_provider.client import signer

from . import errors
from .config import EmulatorConfig
from .jobs.models import Store

JSON_TYPES = ("application/json", "application/bson")


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
            parsed = signer.verify_request(
                method, raw_path, raw_query, headers, body,
                lambda ak: cfg.secret_key if ak == cfg.access_key else None,
                max_skew_s=cfg.max_clock_skew_seconds)
        except signer.SignatureError as exc:
            raise errors.unauthorized(str(exc)) from None
        if "host" not in parsed.signed_headers:
            raise errors.unauthorized("the host header must be signed")
        declared = lower.get("x-sdk-content-sha256")
        if body and declared:
            # The signature covers the declared hash, not the body: make the declaration honest.
            content_type = lower.get("content-type", "")
            if declared == signer.UNSIGNED_PAYLOAD:
                if content_type.startswith(JSON_TYPES):
                    raise errors.unauthorized("UNSIGNED-PAYLOAD is not allowed for JSON bodies")
            elif declared != hashlib.sha256(body).hexdigest():
                raise errors.unauthorized("X-Sdk-Content-Sha256 does not match the body")
        token = lower.get("x-security-token")
        if token is not None:
            if "x-security-token" not in parsed.signed_headers:
                raise errors.unauthorized("X-Security-Token must be signed")
            if not cfg.security_token or not secrets.compare_digest(token, cfg.security_token):
                raise errors.unauthorized("invalid or expired security token")
        return Principal(cfg.iam_user, cfg.project_id, "aksk")

    def _check_token(self, token: str) -> Principal:
        with self._lock:
            found = self._tokens.get(token)
        if found is None:
            found = self.store.token(token)
            if found is not None:
                with self._lock:
                    self._tokens[token] = found
        if found is None:
            raise errors.unauthorized("the token is invalid")
        expires_ms, project_id, user = found
        if expires_ms <= self.store.now():
            raise errors.unauthorized("the token has expired")
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

"""Pool and network operations of ``ModelArtsClient`` (a mixin: api.py's plumbing, paths of the SDK's
``create_pool`` / ``show_pool`` / ``list_pools`` / ``patch_pool`` / ``delete_pool`` / ``show_order`` and the
network equivalents). Not found is only the service's code for it (404 ``ModelArts.50015001`` for pools, documented;
``ModelArts.50015002`` for networks, our assumption in the same family); any other 404 is an error.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional, TypeVar

import requests
from pydantic import BaseModel, ValidationError

from .errors import ModelArtsError
from .lazy import loaded

if TYPE_CHECKING:
    from .pool_models import Network, Order, Pool

POOL_NOT_FOUND = "ModelArts.50015001"
NETWORK_NOT_FOUND = "ModelArts.50015002"
M = TypeVar("M", bound=BaseModel)


def _models() -> Any:
    return loaded(".pool_models")  # at the first call (lazy.py)


def _check_name(name: str, what: str) -> str:
    if not name or not isinstance(name, str) or any(c in name for c in "/?#"):
        raise ValueError(f"invalid {what} name {name!r}")
    return name


class PoolOperations:
    """Mixed into ModelArtsClient: uses its _request, _no_response, _error, _bad_response and settings."""

    endpoint: str
    settings: Any

    def _url(self, version: str, path: str) -> str:
        return f"{self.endpoint}/{version}/{self.settings.project_id}{path}"

    def _pool_call(self, method: str, version: str, path: str, *, body: Any = None,
                   idempotent: bool = True, params: Optional[dict] = None,
                   content_type: Optional[str] = None) -> requests.Response:
        url = self._url(version, path)
        try:
            return self._request(method, url, idempotent=idempotent, body=body, params=params,  # type: ignore[attr-defined]
                                 content_type=content_type)
        except requests.RequestException as exc:
            raise self._no_response(exc, method, url) from None  # type: ignore[attr-defined]

    def _parsed(self, response: requests.Response, model: type[M]) -> M:
        try:
            return model.model_validate(response.json())
        except (ValueError, ValidationError) as exc:
            raise self._bad_response(response, f"not a {model.__name__}: {str(exc).splitlines()[0]}") from None  # type: ignore[attr-defined]

    def _expect(self, response: requests.Response, model: type[M], not_found: str | None = None) -> Optional[M]:
        if response.status_code in (200, 201, 202):
            return self._parsed(response, model)
        err: ModelArtsError = self._error(response)  # type: ignore[attr-defined]
        if not_found is not None and err.error_code == not_found:
            return None
        raise err

    # --- networks -------------------------------------------------------------------------------------

    def create_network(self, body: dict[str, Any]) -> Network:
        """POST /v1/{project}/networks; not retried blindly (the caller looks it up by name after a failure)."""
        out = self._expect(self._pool_call("POST", "v1", "/networks", body=body, idempotent=False),
                           _models().Network)
        assert out is not None
        return out

    def get_network(self, name: str) -> Optional[Network]:
        return self._expect(self._pool_call("GET", "v1", f"/networks/{_check_name(name, 'network')}"),
                            _models().Network, NETWORK_NOT_FOUND)

    def list_networks(self) -> list[Network]:
        out = self._expect(self._pool_call("GET", "v1", "/networks"), _models().NetworkList)
        return out.items if out else []

    def delete_network(self, name: str) -> bool:
        """False: already gone."""
        r = self._pool_call("DELETE", "v1", f"/networks/{_check_name(name, 'network')}")
        return self._expect(r, _models().Network, NETWORK_NOT_FOUND) is not None

    # --- pools ----------------------------------------------------------------------------------------

    def create_pool(self, body: dict[str, Any]) -> Pool:
        """POST /v2/{project}/pools; not retried blindly (a pool is billed: the caller looks it up first)."""
        out = self._expect(self._pool_call("POST", "v2", "/pools", body=body, idempotent=False), _models().Pool)
        assert out is not None
        return out

    def get_pool(self, name: str) -> Optional[Pool]:
        return self._expect(self._pool_call("GET", "v2", f"/pools/{_check_name(name, 'pool')}"), _models().Pool,
                            POOL_NOT_FOUND)

    def list_pools(self) -> list[Pool]:
        out = self._expect(self._pool_call("GET", "v2", "/pools"), _models().PoolList)
        return out.items if out else []

    def patch_pool(self, name: str, body: dict[str, Any]) -> Pool:
        """PATCH as a merge patch (``application/merge-patch+json``, as Terraform's resource pool sends it)."""
        out = self._expect(self._pool_call("PATCH", "v2", f"/pools/{_check_name(name, 'pool')}", body=body,
                                           content_type=_models().MERGE_PATCH), _models().Pool)
        assert out is not None
        return out

    def get_order(self, name: str) -> Order:
        """GET /v1/{project}/orders/{order_name} (SDK ``show_order``): how a pool's create or scaling went."""
        out = self._expect(self._pool_call("GET", "v1", f"/orders/{_check_name(name, 'order')}"), _models().Order)
        assert out is not None
        return out

    def delete_pool(self, name: str) -> bool:
        """False: already gone."""
        r = self._pool_call("DELETE", "v2", f"/pools/{_check_name(name, 'pool')}")
        return self._expect(r, _models().Pool, POOL_NOT_FOUND) is not None

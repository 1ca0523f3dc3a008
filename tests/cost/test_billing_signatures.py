"""The local billing service checks signatures with the local gateway's own verifier (local_cloud/gateway_signature.py,
written from the signing guide), not with the product's signer: a mistake shared by the product's signer and its
check would otherwise pass unseen. So over real HTTP: a rating request signed by the official SDK's signer
(huaweicloudsdkcore) is accepted, and so is one signed by the product's (SdkHmacAuth); a copy changed after signing
(its body, its query, or its body under a declared hash that is no longer the body's) is refused as the gateway
refuses it, 401 APIGW.0301."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from urllib.parse import urlsplit

import pytest
import requests
from huaweicloudsdkcore.auth.credentials import GlobalCredentials
from huaweicloudsdkcore.sdk_request import SdkRequest

from billing_emulator.testing import RunningBilling
from modelarts_provider.client.billing_models import CLOUD_SERVICE_TYPE, MEASURE_HOUR, RATING_PATH, RESOURCE_TYPE
from modelarts_provider.client.signer import SdkHmacAuth

BODY = json.dumps({"project_id": "a1b2c3d4e5f60718293a4b5c6d7e8f90", "product_infos": [{
    "id": "a", "cloud_service_type": CLOUD_SERVICE_TYPE, "resource_type": RESOURCE_TYPE,
    "resource_spec": "modelarts.vm.cpu.2u", "region": "cn-north-4", "usage_factor": "Duration", "usage_value": 1,
    "usage_measure_id": MEASURE_HOUR, "subscription_num": 1}]}).encode()
JSON = {"Content-Type": "application/json"}


def official(bss: RunningBilling, body: bytes, extra: dict[str, str]) -> requests.PreparedRequest:
    """Signed by huaweicloudsdkcore's own step (GlobalCredentials.sign_request: X-Domain-Id, then its Signer)."""
    creds = GlobalCredentials(bss.access_key, bss.secret_key, "emulator-domain-id")
    req = SdkRequest(method="POST", schema="http", host=urlsplit(bss.url).netloc, resource_path=RATING_PATH,
                     query_params=[], header_params={**JSON, **extra}, body=body)
    signed = creds.sign_request(req)
    return requests.Request("POST", f"{bss.url}{signed.uri}", headers=dict(signed.header_params), data=body).prepare()


def product(bss: RunningBilling, body: bytes, extra: dict[str, str]) -> requests.PreparedRequest:
    """Signed by the product's signer, as its rating client sends a request."""
    prepared = requests.Request("POST", f"{bss.url}{RATING_PATH}", headers={**JSON, **extra}, data=body).prepare()
    SdkHmacAuth(bss.access_key, bss.secret_key)(prepared)
    return prepared


SIGNERS: dict[str, Callable[[RunningBilling, bytes, dict[str, str]], requests.PreparedRequest]] = {
    "official SDK": official, "product": product}


def _send(prepared: requests.PreparedRequest) -> requests.Response:
    with requests.Session() as session:
        return session.send(prepared, timeout=10)


def _refused(resp: requests.Response, why: str) -> None:
    assert resp.status_code == 401, resp.text
    assert resp.json()["error_code"] == "APIGW.0301" and why in resp.json()["error_msg"], resp.text


@pytest.mark.parametrize("signer", list(SIGNERS))
def test_what_each_signer_signs_is_accepted(billing: RunningBilling, signer: str) -> None:
    resp = _send(SIGNERS[signer](billing, BODY, {}))
    assert resp.status_code == 200, resp.text
    assert resp.json()["official_website_amount"] == pytest.approx(0.45)


@pytest.mark.parametrize("signer", list(SIGNERS))
def test_a_body_changed_after_signing_is_refused(billing: RunningBilling, signer: str) -> None:
    prepared = SIGNERS[signer](billing, BODY, {})
    prepared.body = BODY.replace(b'"subscription_num": 1', b'"subscription_num": 9')
    prepared.headers["Content-Length"] = str(len(prepared.body))
    _refused(_send(prepared), "signature does not match")


@pytest.mark.parametrize("signer", list(SIGNERS))
def test_a_query_added_after_signing_is_refused(billing: RunningBilling, signer: str) -> None:
    prepared = SIGNERS[signer](billing, BODY, {})
    prepared.url = f"{billing.url}{RATING_PATH}?limit=1"
    _refused(_send(prepared), "signature does not match")


@pytest.mark.parametrize("signer", list(SIGNERS))
def test_a_body_under_a_declared_hash_that_is_not_its_own_is_refused(billing: RunningBilling, signer: str) -> None:
    # The signature covers the declared X-Sdk-Content-Sha256, not the body: the body must be the one declared.
    prepared = SIGNERS[signer](billing, BODY, {"X-Sdk-Content-Sha256": hashlib.sha256(BODY).hexdigest()})
    assert _send(prepared.copy()).status_code == 200
    prepared.body = BODY.replace(b'"subscription_num": 1', b'"subscription_num": 9')
    prepared.headers["Content-Length"] = str(len(prepared.body))
    _refused(_send(prepared), "X-Sdk-Content-Sha256 is not the body's hash")

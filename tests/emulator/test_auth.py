"""Gateway auth: official-SDK signatures accepted; tampering, stale dates, bad tokens refused."""

from __future__ import annotations

import time
from datetime import datetime

import pytest
import requests

from tests.emulator.helpers import FAST, Api, minimal_job, stale
from modelarts_emulator.testing import running_emulator

OTHER_PROJECT = "0" * 32


def _assert_401(r: requests.Response) -> None:
    assert r.status_code == 401, r.text
    assert r.json()["error_code"] == "APIGW.0301"
    # the gateway's own body (the signing guide's error examples), its request id also in X-Request-Id
    assert set(r.json()) == {"error_msg", "error_code", "request_id"}
    assert r.headers["X-Request-Id"] == r.json()["request_id"]


def test_official_signer_get_post_and_query(api):
    r = api.create(minimal_job("signed"))
    assert r.status_code == 201
    job_id = r.json()["metadata"]["id"]
    assert api.get(job_id).status_code == 200
    # query parameters take part in the canonical request
    r = api.call("GET", f"{api.base}/training-jobs/{job_id}", query=[("b", "x y"), ("a", "1")])
    assert r.status_code == 200, r.text
    # X-Project-Id (set by the SDK's BasicCredentials) matching the path is fine
    r = api.call("GET", f"{api.base}/training-jobs/{job_id}",
                 headers={"X-Project-Id": api.emu.project_id})
    assert r.status_code == 200


def test_client_signer_accepted(emu):
    s = emu.session()
    r = s.post(f"{emu.api_base}/training-jobs", json=minimal_job("client-signed"))
    assert r.status_code == 201, r.text


def test_tampered_signature(api):
    req = api.signed("GET", f"{api.base}/training-jobs/x")
    auth = req.header_params["Authorization"]
    sig = auth.rsplit("=", 1)[1]
    req.header_params["Authorization"] = auth[: -len(sig)] + ("0" if sig[0] != "0" else "1") + sig[1:]
    _assert_401(api.send(req))


def test_tampered_body(api):
    req = api.signed("POST", f"{api.base}/training-jobs", minimal_job("original"))
    r = api.send(req, body_override=req.body.replace(b"original", b"tampered"))
    _assert_401(r)
    assert api.emu.jobs() == []


def test_tampered_signed_header_and_path(api):
    req = api.signed("GET", f"{api.base}/training-jobs/abc")
    req.header_params["Content-Type"] = "text/plain"
    _assert_401(api.send(req))
    req = api.signed("GET", f"{api.base}/training-jobs/abc")
    r = api.http.get(api.emu.url + f"{api.base}/training-jobs/abd", headers=req.header_params)
    _assert_401(r)


@pytest.mark.parametrize("minutes", [16, -16])
def test_stale_or_future_date(api, minutes):
    r = api.call("GET", f"{api.base}/training-jobs/x", sdk_date=stale(minutes))
    _assert_401(r)


def test_date_within_window_accepted(api):
    r = api.call("GET", f"{api.base}/training-jobs/x", sdk_date=stale(14))
    assert r.status_code == 400 and r.json()["error_code"] == "ModelArts.2775"


def test_unknown_access_key_and_wrong_secret(api):
    _assert_401(api.call("GET", f"{api.base}/training-jobs/x", ak="UNKNOWNAK0000000000"))
    _assert_401(api.call("GET", f"{api.base}/training-jobs/x", sk="not-the-secret"))


def test_missing_credentials(api):
    _assert_401(api.http.get(f"{api.emu.api_base}/training-jobs/x"))


def test_foreign_project_refused(api):
    r = api.call("GET", f"/v2/{OTHER_PROJECT}/training-jobs/x")
    assert r.status_code == 403 and r.json()["error_code"] == "APIGW.0302"
    r = api.call("POST", f"/v2/{OTHER_PROJECT}/training-jobs", minimal_job("elsewhere"))
    assert r.status_code == 403
    r = api.call("GET", f"{api.base}/training-jobs/x", headers={"X-Project-Id": OTHER_PROJECT})
    assert r.status_code == 403
    assert api.emu.jobs() == []


def _iam_body(emu, password=None, project=None):
    return {"auth": {"identity": {"methods": ["password"], "password": {"user": {
        "name": emu.iam_user, "password": password or emu.iam_password,
        "domain": {"name": emu.iam_domain}}}},
        "scope": {"project": project or {"name": "cn-north-4"}}}}


def test_iam_token_flow(api):
    emu = api.emu
    r = requests.post(f"{emu.url}/v3/auth/tokens", json=_iam_body(emu))
    assert r.status_code == 201, r.text
    token = r.headers["X-Subject-Token"]
    body = r.json()["token"]
    assert body["project"]["id"] == emu.project_id and body["expires_at"].endswith("Z")
    assert datetime.strptime(body["expires_at"], "%Y-%m-%dT%H:%M:%S.%fZ") > datetime.utcnow()
    h = {"X-Auth-Token": token}
    r = requests.post(f"{emu.api_base}/training-jobs", json=minimal_job("by-token"), headers=h)
    assert r.status_code == 201, r.text
    assert r.json()["metadata"]["user_name"] == emu.iam_user
    assert requests.get(f"{emu.api_base}/training-jobs/{r.json()['metadata']['id']}",
                        headers=h).status_code == 200
    # a token for our project does not open another one
    r = requests.get(f"{emu.url}/v2/{OTHER_PROJECT}/training-jobs/x", headers=h)
    assert r.status_code == 403
    _assert_401(requests.get(f"{emu.api_base}/training-jobs/x",
                             headers={"X-Auth-Token": token + "x"}))
    assert emu.counters()["iam_token"] == 1


def test_iam_wrong_password_and_project(api):
    emu = api.emu
    r = requests.post(f"{emu.url}/v3/auth/tokens", json=_iam_body(emu, password="nope"))
    assert r.status_code == 401 and "X-Subject-Token" not in r.headers
    assert r.json()["error_code"] == "IAM.0004"
    r = requests.post(f"{emu.url}/v3/auth/tokens",
                      json=_iam_body(emu, project={"id": OTHER_PROJECT}))
    assert r.status_code == 401
    r = requests.post(f"{emu.url}/v3/auth/tokens", json={"auth": {}})
    assert r.status_code == 400


def test_security_token_and_token_expiry(tmp_path):
    with running_emulator(tmp_path, security_token="emulator-sts-token", token_ttl_seconds=0.5,
                          **FAST) as emu:
        api = Api(emu)
        path = f"{api.base}/training-jobs/x"
        ok = api.call("GET", path, headers={"X-Security-Token": "emulator-sts-token"})
        assert ok.status_code == 400 and ok.json()["error_code"] == "ModelArts.2775"
        _assert_401(api.call("GET", path, headers={"X-Security-Token": "forged"}))
        # golangsdk adds the token after signing: unsigned, it is accepted; without it a temporary
        # key is refused
        req = api.signed("GET", path)
        req.header_params["X-Security-Token"] = "emulator-sts-token"
        assert api.send(req).json()["error_code"] == "ModelArts.2775"
        _assert_401(api.call("GET", path))
        # the client's signer handles temporary credentials too
        assert emu.session().get(emu.api_base + "/training-jobs/x").status_code == 400
        # IAM tokens expire
        r = requests.post(f"{emu.url}/v3/auth/tokens", json=_iam_body(emu))
        token = r.headers["X-Subject-Token"]
        assert requests.get(emu.api_base + "/training-jobs/x",
                            headers={"X-Auth-Token": token}).status_code == 400
        time.sleep(0.6)
        _assert_401(requests.get(emu.api_base + "/training-jobs/x",
                                 headers={"X-Auth-Token": token}))

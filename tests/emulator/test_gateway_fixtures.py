"""Recorded requests of real clients pass the local ModelArts' gateway; tampered ones are refused.

tests/fixtures/gateway/*.json hold what the official Python SDK and golangsdk (terraform-provider-huaweicloud's
signer) sent, byte for byte (scripts/capture_sdk_requests). Each is replayed over a raw HTTP connection with
its own headers (its Host included) against a local ModelArts started with the recorded credentials and its
gateway clock pinned at the recorded X-Sdk-Date. Passing means the gateway let it through: the answer is the
API's (201, 200, or ModelArts.2775 for the made-up job id), never an APIGW code. Every refusal is the
gateway's 401 APIGW.0301 with its {error_msg, error_code, request_id} body.
"""

from __future__ import annotations

import http.client
import json
import re
from datetime import timedelta
from pathlib import Path
from typing import Any, Iterator

import pytest

from modelarts_emulator.testing import RunningEmulator, running_emulator
from modelarts_provider.client import signer
from tests.emulator.helpers import HELD

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "gateway"
CLIENTS = ("huaweicloudsdk_python", "golangsdk")
TEMPORARY = "(temporary credentials)"


def _load(name: str) -> dict[str, Any]:
    return json.loads((FIXTURES / f"{name}.json").read_text())


RECORDED = {name: _load(name) for name in CLIENTS}
CREDS = RECORDED["golangsdk"]["credentials"]
assert all(r["credentials"] == CREDS for r in RECORDED.values())  # one local ModelArts serves both


def _flags(**more: Any) -> dict[str, Any]:
    return {"access_key": CREDS["access_key"], "secret_key": CREDS["secret_key"],
            "project_id": CREDS["project_id"], **HELD, **more}


@pytest.fixture(scope="module")
def gateway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningEmulator]:
    with running_emulator(tmp_path_factory.mktemp("gateway"), **_flags()) as emu:
        yield emu


@pytest.fixture
def emu(gateway: RunningEmulator) -> RunningEmulator:
    gateway.reset()  # no jobs, the gateway clock back on the wall clock
    return gateway


def _requests(client: str, temporary: bool = False) -> list[dict[str, Any]]:
    return [r for r in RECORDED[client]["requests"] if (TEMPORARY in r["operation"]) == temporary]


def _one(client: str, operation: str) -> dict[str, Any]:
    return next(r for r in RECORDED[client]["requests"] if r["operation"] == operation)


def _header(request: dict[str, Any], name: str) -> str:
    return next(v for n, v in request["headers"] if n.lower() == name.lower())


def _with(request: dict[str, Any], **changes: Any) -> dict[str, Any]:
    """A copy with headers replaced/added (``headers={name: value or None}``; None drops it) or another body."""
    out = json.loads(json.dumps(request))
    for name, value in (changes.pop("headers", None) or {}).items():
        out["headers"] = [[n, v] for n, v in out["headers"] if n.lower() != name.lower()]
        if value is not None:
            out["headers"].append([name, value])
    out.update(changes)
    return out


def _replay(emu: RunningEmulator, request: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """Send the recorded request as it was: request line, headers (Host included), body."""
    host, port = emu.url.split("://", 1)[1].rsplit(":", 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=30)
    try:
        conn.putrequest(request["method"], request["target"], skip_host=True, skip_accept_encoding=True)
        body = request["body"].encode()
        for name, value in request["headers"]:
            if name.lower() == "content-length":
                value = str(len(body))  # a tampered body keeps an honest length
            conn.putheader(name, value)
        conn.endheaders(body or None)
        response = conn.getresponse()
        raw = response.read()
        return response.status, (json.loads(raw) if raw else {})
    finally:
        conn.close()


def _pin(emu: RunningEmulator, request: dict[str, Any], shift: timedelta = timedelta()) -> None:
    at = signer.parse_sdk_date(_header(request, "X-Sdk-Date")) + shift
    emu.pin_gateway_clock(signer.format_sdk_date(at))


def _passed(status: int, body: dict[str, Any]) -> bool:
    return status in (200, 201, 202) or (status == 400 and body.get("error_code") == "ModelArts.2775")


def _refused(status: int, body: dict[str, Any], says: str = "") -> None:
    assert status == 401, body
    assert body["error_code"] == "APIGW.0301" and set(body) == {"error_msg", "error_code", "request_id"}, body
    assert body["error_msg"].startswith("Incorrect IAM authentication information"), body
    assert says in body["error_msg"], body
    assert CREDS["secret_key"] not in json.dumps(body)


@pytest.mark.parametrize("client", CLIENTS)
def test_recorded_requests_pass_the_gateway(emu: RunningEmulator, client: str) -> None:
    for request in _requests(client):
        _pin(emu, request)
        status, body = _replay(emu, request)
        assert _passed(status, body), (request["operation"], status, body)
    created = [j for j in emu.jobs() if j["metadata"]["name"] == "captured-job"]
    assert len(created) == 1 and created[0]["algorithm"]["environments"] == {"EPOCHS": "3"}


def test_golangsdk_signs_no_host_and_adds_project_after_signing() -> None:
    """What the gateway must accept, as recorded: Go keeps Host out of the signed set, and golangsdk adds
    X-Project-Id, X-Domain-Id and X-Security-Token after signing."""
    for request in RECORDED["golangsdk"]["requests"]:
        signed = signer.parse_authorization(_header(request, "Authorization")).signed_headers
        assert "x-sdk-date" in signed and "host" not in signed and "x-project-id" not in signed
        assert _header(request, "X-Project-Id") == CREDS["project_id"]
    temporary = _requests("golangsdk", temporary=True)[0]
    assert _header(temporary, "X-Security-Token") == CREDS["security_token"]
    assert "x-security-token" not in signer.parse_authorization(_header(temporary, "Authorization")).signed_headers


@pytest.mark.parametrize("client", CLIENTS)
def test_tampered_body_refused(emu: RunningEmulator, client: str) -> None:
    create = _one(client, "CreateTrainingJob")
    _pin(emu, create)
    tampered = _with(create, body=re.sub(r'"node_count":\s*1', '"node_count": 8', create["body"]))
    assert tampered["body"] != create["body"]
    _refused(*_replay(emu, tampered), says="verify aksk signature fail")
    assert emu.jobs() == []


@pytest.mark.parametrize("client", CLIENTS)
def test_changed_signed_header_refused(emu: RunningEmulator, client: str) -> None:
    get = _one(client, "ShowTrainingJobDetails")
    _pin(emu, get)
    _refused(*_replay(emu, _with(get, headers={"User-Agent": "someone-else/1.0"})))  # signed by both


@pytest.mark.parametrize("client", CLIENTS)
def test_altered_signature_refused(emu: RunningEmulator, client: str) -> None:
    get = _one(client, "ShowTrainingJobDetails")
    _pin(emu, get)
    auth = _header(get, "Authorization")
    flipped = auth[:-1] + ("0" if auth[-1] != "0" else "1")
    _refused(*_replay(emu, _with(get, headers={"Authorization": flipped})), says="verify aksk signature fail")


@pytest.mark.parametrize("client", CLIENTS)
@pytest.mark.parametrize("minutes", [16, -16])
def test_date_too_far_from_the_gateway_clock_refused(emu: RunningEmulator, client: str, minutes: int) -> None:
    get = _one(client, "ShowTrainingJobDetails")
    _pin(emu, get, timedelta(minutes=minutes))
    _refused(*_replay(emu, get), says="X-Sdk-Date")
    _pin(emu, get, timedelta(minutes=14 if minutes > 0 else -14))  # within the 15 minutes: let through
    assert _passed(*_replay(emu, get))


def _resign(request: dict[str, Any], signed: list[str]) -> dict[str, Any]:
    """The recorded request signed again with the recorded credentials over ``signed`` headers only."""
    headers = {n: v for n, v in request["headers"]}
    signature = signer.signature_for(CREDS["secret_key"], request["method"], request["path"], request["query"],
                                     headers, signed, request["body"].encode())
    return _with(request, headers={"Authorization": signer.authorization_header(
        CREDS["access_key"], signed, signature)})


@pytest.mark.parametrize("client", CLIENTS)
def test_unsigned_sdk_date_refused(emu: RunningEmulator, client: str) -> None:
    get = _one(client, "ShowTrainingJobDetails")
    _pin(emu, get)
    assert _passed(*_replay(emu, _resign(get, ["content-type", "x-sdk-date"])))  # the re-signing is right
    _refused(*_replay(emu, _resign(get, ["content-type", "user-agent"])), says="X-Sdk-Date is not a signed header")


def test_unsigned_headers_may_change_signed_ones_may_not(emu: RunningEmulator) -> None:
    go = _one("golangsdk", "ShowTrainingJobDetails")
    _pin(emu, go)
    # Go's Host is outside the signed set: another one (a proxy's) does not matter; nor does a header
    # added after signing
    assert _passed(*_replay(emu, _with(go, headers={"Host": "modelarts.example.com", "X-Trace": "1"})))
    # the Python SDK signs host: changing it is tampering
    py = _one("huaweicloudsdk_python", "ShowTrainingJobDetails")
    _pin(emu, py)
    _refused(*_replay(emu, _with(py, headers={"Host": "modelarts.example.com"})))
    # an unsigned X-Project-Id still names the project: another one is the gateway's 403
    status, body = _replay(emu, _with(go, headers={"X-Project-Id": "0" * 32}))
    assert status == 403 and body["error_code"] == "APIGW.0302", body


def test_unsigned_payload_accepted_other_declared_hash_must_match(emu: RunningEmulator) -> None:
    create = _one("golangsdk", "CreateTrainingJob")
    _pin(emu, create)
    headers = {n: v for n, v in create["headers"]}
    signed = ["accept", "content-type", "user-agent", "x-sdk-content-sha256", "x-sdk-date"]

    def declared(value: str, body: str) -> dict[str, Any]:
        request = _with(create, headers={"X-Sdk-Content-Sha256": value}, body=body)
        signature = signer.signature_for(CREDS["secret_key"], "POST", create["path"], "",
                                         {**headers, "X-Sdk-Content-Sha256": value}, signed, body.encode())
        return _with(request, headers={"Authorization": signer.authorization_header(
            CREDS["access_key"], signed, signature)})

    lie = signer.EMPTY_BODY_SHA256  # a declared hash that is not the body's
    _refused(*_replay(emu, declared(lie, create["body"])), says="X-Sdk-Content-Sha256")
    assert emu.jobs() == []
    status, body = _replay(emu, declared(signer.UNSIGNED_PAYLOAD, create["body"]))
    assert status == 201, body  # "Must the Request Body Be Signed? No"


@pytest.fixture
def temporary(tmp_path: Path) -> Iterator[RunningEmulator]:
    """A local ModelArts whose access key is a temporary one: its security token must come along."""
    with running_emulator(tmp_path, **_flags(security_token=CREDS["security_token"])) as emu:
        yield emu


def test_temporary_credentials(temporary: RunningEmulator) -> None:
    for client in CLIENTS:  # golangsdk leaves X-Security-Token unsigned, the Python SDK signs it
        request = _requests(client, temporary=True)[0]
        _pin(temporary, request)
        status, body = _replay(temporary, request)
        assert _passed(status, body), (client, status, body)
    go = _requests("golangsdk", temporary=True)[0]
    _refused(*_replay(temporary, _with(go, headers={"X-Security-Token": "forged-token"})), says="security token")
    _refused(*_replay(temporary, _with(go, headers={"X-Security-Token": None})), says="X-Security-Token")
    # the Python SDK signed its token: another one is refused by the signature already
    py = _requests("huaweicloudsdk_python", temporary=True)[0]
    _pin(temporary, py)
    _refused(*_replay(temporary, _with(py, headers={"X-Security-Token": "forged-token"})))
    # a permanent key's request (no token) is not enough for a temporary key
    _pin(temporary, _one("golangsdk", "ShowTrainingJobDetails"))
    _refused(*_replay(temporary, _one("golangsdk", "ShowTrainingJobDetails")), says="X-Security-Token")

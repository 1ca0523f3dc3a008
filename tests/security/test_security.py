"""Security: requests signed by *our* client that are tampered with after signing, and a foreign project
id, are refused by the emulator (end to end through ModelArtsClient and `pulumi up` too); and the literal
secret key, security token, IAM password and IAM tokens never appear in the state (the raw backend files
and `pulumi stack export`), the stack outputs, the output of preview/up/refresh/destroy, or error messages.

(tests/emulator/test_auth.py covers tampering of requests signed with the official huaweicloudsdkcore
signer; here the requests come from modelarts_provider.client.signer, the code the provider ships.)
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from testkit.faults import (FAST_EMULATOR, TRACEBACK_RE, job, job_stack, output_of, provider_config,
                              sweep)

SECURITY_TOKEN = "sts-security-token-Zq8xW1pL0mN3vB7c"
FOREIGN_PROJECT = "f" * 32


@pytest.fixture
def emu(tmp_path: Path, pulumi_engine: Path) -> Iterator[Any]:
    from modelarts_emulator.testing import running_emulator

    with running_emulator(tmp_path / "emulator", security_token=SECURITY_TOKEN, **FAST_EMULATOR) as e:
        yield e


def _create_body(name: str) -> dict[str, Any]:
    return {"kind": "job", "metadata": {"name": name, "description": "security test"},
            "algorithm": {"code_dir": "obs://emulator-bucket/code/", "boot_file": "obs://emulator-bucket/code/train.py",
                          "engine": {"engine_id": "pytorch_1.8.0-cuda_10.2-py_3.7-ubuntu_18.04-x86_64"}},
            "spec": {"resource": {"flavor_id": "modelarts.p3.large.public", "node_count": 1}}}


def _signed_create(emu: Any, name: str, project: str | None = None) -> tuple[requests.Session, requests.PreparedRequest]:
    from modelarts_provider.client.signer import SdkHmacAuth

    s = requests.Session()
    url = f"{emu.url}/v2/{project or emu.project_id}/training-jobs"
    req = requests.Request("POST", url, json=_create_body(name),
                           auth=SdkHmacAuth(emu.access_key, emu.secret_key, SECURITY_TOKEN))
    return s, s.prepare_request(req)


def _refused(r: requests.Response, status: int, code: str) -> None:
    assert r.status_code == status, r.text
    body = r.json()
    assert body["error_code"] == code, body
    assert SECURITY_TOKEN not in r.text


def test_untampered_request_is_accepted(emu: Any) -> None:
    s, p = _signed_create(emu, "sec-ok")
    assert s.send(p).status_code == 201
    assert len(emu.jobs()) == 1


def test_tampered_signature_refused(emu: Any) -> None:
    s, p = _signed_create(emu, "sec-sig")
    auth = p.headers["Authorization"]
    last = auth[-1]
    p.headers["Authorization"] = auth[:-1] + ("0" if last != "0" else "1")
    _refused(s.send(p), 401, "APIGW.0301")
    assert emu.jobs() == []


def test_tampered_body_refused(emu: Any) -> None:
    s, p = _signed_create(emu, "sec-body")
    body = p.body if isinstance(p.body, bytes) else p.body.encode()
    tampered = body.replace(b'"node_count": 1', b'"node_count": 8')
    assert tampered != body
    p.body = tampered
    p.headers["Content-Length"] = str(len(tampered))
    _refused(s.send(p), 401, "APIGW.0301")
    assert emu.jobs() == []


def test_tampered_date_refused(emu: Any) -> None:
    s, p = _signed_create(emu, "sec-date")
    date = p.headers["X-Sdk-Date"]  # YYYYMMDDTHHMMSSZ
    seconds = int(date[13:15])
    p.headers["X-Sdk-Date"] = date[:13] + f"{(seconds + 1) % 60:02d}" + "Z"
    _refused(s.send(p), 401, "APIGW.0301")
    assert emu.jobs() == []


def test_tampered_security_token_refused(emu: Any) -> None:
    s, p = _signed_create(emu, "sec-token")
    p.headers["X-Security-Token"] = SECURITY_TOKEN[:-1] + "X"
    _refused(s.send(p), 401, "APIGW.0301")
    assert emu.jobs() == []


def test_foreign_project_refused_by_signature_path(emu: Any) -> None:
    # Correctly signed, but for a project these credentials do not own.
    s, p = _signed_create(emu, "sec-foreign", project=FOREIGN_PROJECT)
    _refused(s.send(p), 403, "APIGW.0302")
    assert emu.jobs() == []


def test_foreign_project_refused_through_the_client(emu: Any) -> None:
    from modelarts_provider.client import AkSkCredentials, ClientSettings, ModelArtsClient, ModelArtsError

    settings = ClientSettings(region="cn-north-4", project_id=FOREIGN_PROJECT, endpoint=emu.url,
                              credentials=AkSkCredentials(access_key=emu.access_key, secret_key=emu.secret_key,
                                                          security_token=SECURITY_TOKEN))
    with ModelArtsClient(settings) as client:
        with pytest.raises(ModelArtsError) as info:
            client.list_jobs()
    err = info.value
    text = f"{err} {err!r}"
    assert "403" in text or "APIGW.0302" in text, text
    assert emu.secret_key not in text and SECURITY_TOKEN not in text
    assert emu.jobs() == []


def test_foreign_project_refused_through_pulumi_up(tmp_path: Path, emu: Any) -> None:
    plain, secrets = provider_config(emu)
    plain["modelarts:projectId"] = FOREIGN_PROJECT
    secrets["modelarts:securityToken"] = SECURITY_TOKEN
    st = job_stack(tmp_path, emu, jobs={"a": job(name="sec-foreign-up")}, plain=plain, secrets=secrets)
    proc = st.up(check=False)
    out = output_of(proc)
    assert proc.returncode != 0, out
    assert "403" in out or "APIGW.0302" in out, out
    assert not TRACEBACK_RE.search(out), out
    assert emu.secret_key not in out and SECURITY_TOKEN not in out
    assert emu.jobs() == []


# --- secrets never leak ------------------------------------------------------------------------------


def _iam_tokens(emu: Any) -> list[str]:
    with sqlite3.connect(emu.db) as db:
        return [row[0] for row in db.execute("SELECT token FROM tokens")]


def _scan(where: str, text: str, secrets: dict[str, str]) -> list[str]:
    return [f"{label} found in {where}" for label, value in secrets.items() if value and value in text]


def assert_no_leaks(base: Path, procs: list[Any], outputs_json: str, export: str,
                    secrets: dict[str, str]) -> None:
    """None of `secrets` in any command's output, the stack outputs, the export or the backend files."""
    leaks = []
    for i, proc in enumerate(procs):
        leaks += _scan(f"command {i} ({' '.join(proc.args[:2])}) output", output_of(proc), secrets)
    leaks += _scan("stack outputs", outputs_json, secrets)
    leaks += _scan("pulumi stack export", export, secrets)
    for name, text in _backend_files(base).items():
        leaks += _scan(name, text, secrets)
    assert not leaks, leaks


def _backend_files(base: Path) -> dict[str, str]:
    root = base / "backend"
    return {str(p.relative_to(base)): p.read_text(errors="replace") for p in root.rglob("*") if p.is_file()}


def test_aksk_and_security_token_never_leak(tmp_path: Path, emu: Any) -> None:
    plain, secrets = provider_config(emu)
    secrets["modelarts:securityToken"] = SECURITY_TOKEN
    st = job_stack(tmp_path, emu, jobs={"a": job(name="sec-leak-a", description="first")},
                   sweeps={"s": sweep({"lr": [0.1, 0.2]})}, plain=plain, secrets=secrets)
    procs = [st.preview(), st.up()]
    # an update, a refresh, a failing create (rejected by the service), a destroy: all their output
    from testkit.faults import update_config
    update_config(st, {"modelarts-jobs:jobs": {"a": job(name="sec-leak-a", description="second"),
                                               "bad": job(name="sec-leak-bad", engine={"name": "NoSuchEngine",
                                                                                       "version": "0"})}})
    procs += [st.up(check=False), st.refresh(check=False)]
    outputs_json = json.dumps(st.outputs(show_secrets=True))
    export = st.run("stack", "export").stdout
    procs.append(st.destroy(check=False))
    assert procs[2].returncode != 0, "the job with an unknown engine was not refused"

    secrets_map = {"secret key": emu.secret_key, "security token": SECURITY_TOKEN}
    assert_no_leaks(tmp_path, procs, outputs_json, export, secrets_map)


def test_iam_password_and_token_never_leak(tmp_path: Path, emu: Any) -> None:
    plain = {"modelarts:region": "cn-north-4", "modelarts:projectId": emu.project_id,
             "modelarts:endpoint": emu.url, "modelarts:iamEndpoint": emu.url,
             "modelarts:iamUser": emu.iam_user, "modelarts:iamDomain": emu.iam_domain}
    st = job_stack(tmp_path, emu, jobs={"a": job(name="sec-iam-a")}, plain=plain,
                   secrets={"modelarts:iamPassword": emu.iam_password})
    procs = [st.preview(), st.up(), st.refresh()]
    outputs_json = json.dumps(st.outputs(show_secrets=True))
    export = st.run("stack", "export").stdout
    # A wrong password: the failure names the problem, not the password.
    wrong = "wrong-password-Kx93hQ"
    st.set_config("modelarts:iamPassword", wrong, secret=True)
    from testkit.faults import update_config
    update_config(st, {"modelarts-jobs:jobs": {"a": job(name="sec-iam-a"), "b": job(name="sec-iam-b")}})
    failed = st.up(check=False)
    assert failed.returncode != 0, output_of(failed)
    assert not TRACEBACK_RE.search(output_of(failed)), output_of(failed)
    procs.append(failed)
    st.set_config("modelarts:iamPassword", emu.iam_password, secret=True)
    # Without --run-program, destroy configures the provider from the state, which holds the settings
    # of the last up (here: the wrong password); --run-program takes the current stack config.
    procs.append(st.destroy("--run-program"))
    assert emu.jobs() == [], "destroy left jobs behind"

    tokens = _iam_tokens(emu)
    assert tokens, "no IAM token was issued: the stack did not use password auth"
    secrets_map = {"IAM password": emu.iam_password, "wrong IAM password": wrong,
                   **{f"IAM token {i}": t for i, t in enumerate(tokens)}}
    assert_no_leaks(tmp_path, procs, outputs_json, export, secrets_map)

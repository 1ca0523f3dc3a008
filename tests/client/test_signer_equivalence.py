"""The signer must produce byte for byte the Authorization header of huaweicloudsdkcore's Signer.

A generated table (deterministic seed) of paths, query strings, bodies and header sets is signed by
both implementations, at two levels: the pure functions (what the emulator uses to verify) and the
requests auth object (what the client sends).
"""

from __future__ import annotations

import itertools
import random
from datetime import datetime, timezone

import pytest
import requests
from urllib.parse import urlsplit

from huaweicloudsdkcore import sdk_request  # the reference implementation (pinned in the test extra)
from huaweicloudsdkcore.signer import signer as sdk_signer

from local_cloud import gateway_signature as gw
from modelarts_provider.client import signer as s

AK = "EMULATORLOCALAK00001"
SK = "emulator-local-secret-key-not-a-real-sk1"
DATE = "20240229T235959Z"

PATHS = [
    "/",
    "/v2/a1b2c3d4e5f60718293a4b5c6d7e8f90/training-jobs",
    "/v2/a1b2c3d4e5f60718293a4b5c6d7e8f90/training-jobs/",
    "/v2/p/training-jobs/3faf5c03-aaa1-4cbe-879d-24b05d997347/actions",
    "/v3/auth/tokens",
    "/a b/c",
    "/with space/and+plus/",
    "/tilde~/dash-/under_score/dot./",
    "/special/!$&'()*,;=:@",
    "/unicode/ü/日本語/",
    "/percent/%41%42/x%2Fy",
    "/literal%25percent/",
    "//double//slashes//",
    "/emoji/🚀",
    "/q?mark".replace("?", "%3F"),
]

QUERIES: list[list[tuple[str, str]]] = [
    [],
    [("limit", "10")],
    [("b", "2"), ("a", "1")],
    [("a", "2"), ("a", "1"), ("a", "10")],
    [("empty", "")],
    [("a", ""), ("a", "")],
    [("name", "x y"), ("plus", "a+b")],
    [("unicode", "ü"), ("jp", "日本")],
    [("k", "v=w&x"), ("z", "~-._")],
    [("B", "1"), ("a", "1"), ("_", "u")],
    [("sort_by", "create_time"), ("order", "desc"), ("offset", "0"), ("limit", "50")],
    [("slash", "/a/b/"), ("star", "*"), ("pct", "%")],
]

BODIES: list[bytes] = [
    b"",
    b"{}",
    b'{"action_type": "terminate"}',
    '{"kind": "job", "metadata": {"name": "tr\u00e4ining-\u65e5\u672c"}}'.encode("utf-8"),
    b"\x00\x01\x02binary\xff",
    b" " * 1000,
]

HEADER_SETS: list[dict[str, str]] = [
    {},
    {"Content-Type": "application/json"},
    {"Content-Type": "application/json;charset=UTF-8"},
    {"Content-Type": "text/plain"},
    {"Content-Type": "application/octet-stream", "X-Project-Id": "a1b2c3d4e5f60718293a4b5c6d7e8f90"},
    {"X-Security-Token": "gQpjbi1ub3J0aC00iwBH-tokenish+/=="},
    {"X-Project-Id": "p1", "X-Custom-Header": "  padded value  "},
    {"x_under_score": "never signed", "X-Lower": "v"},
    {"X-Sdk-Content-Sha256": "UNSIGNED-PAYLOAD", "Content-Type": "application/json"},
    {"Accept": "application/json", "X-Domain-Id": "d1"},
]


def _sdk_authorization(method, host, path, query, headers, body) -> tuple[str, dict]:
    class Creds:
        ak = AK
        sk = SK

    hp = dict(headers)
    req = sdk_request.SdkRequest(
        method=method,
        schema="https",
        host=host,
        resource_path=path,
        query_params=list(query),
        header_params=hp,
        body=body,
    )
    sdk_signer.Signer(Creds()).sign(req)
    return req.header_params["Authorization"], req.header_params


def _table():
    rng = random.Random(20240229)
    methods = ["GET", "POST", "PUT", "DELETE", "PATCH", "get"]
    hosts = ["modelarts.cn-north-4.myhuaweicloud.com", "127.0.0.1:8780"]
    cases = []
    # every path x every query once (with a random body/header set/method)
    for path, query in itertools.product(PATHS, QUERIES):
        cases.append(
            (rng.choice(methods), rng.choice(hosts), path, query, rng.choice(BODIES), rng.choice(HEADER_SETS))
        )
    # every body x header set once
    for body, headers in itertools.product(BODIES, HEADER_SETS):
        cases.append((rng.choice(methods), rng.choice(hosts), rng.choice(PATHS), rng.choice(QUERIES), body, headers))
    # random extra cases
    for _ in range(150):
        q = [(rng.choice(["a", "b", "Z", "ü", "k k"]), rng.choice(["", "1", "x y", "ä", "+", "&="])) for _ in range(rng.randint(0, 5))]
        cases.append((rng.choice(methods), rng.choice(hosts), rng.choice(PATHS), q, rng.choice(BODIES), rng.choice(HEADER_SETS)))
    return cases


TABLE = _table()


def test_table_is_large():
    assert len(TABLE) >= 300


@pytest.mark.parametrize("method,host,path,query,body,headers", TABLE)
def test_pure_functions_match_sdk(method, host, path, query, body, headers):
    base = {**headers, "X-Sdk-Date": DATE, "Host": host}
    expected, signed_request_headers = _sdk_authorization(method, host, path, query, base, body)
    # The SDK may add X-Sdk-Content-Sha256 for non-JSON content types; sign the same header set.
    final_headers = {k: v for k, v in signed_request_headers.items() if k != "Authorization"}
    signed = sorted(k.lower() for k in final_headers if "_" not in k)
    cr = s.canonical_request(method, path, query, final_headers, signed, body)
    got = s.authorization_header(AK, signed, s.sign(SK, s.string_to_sign(cr, DATE)))
    assert got == expected
    # and the parser reads it back
    parsed = s.parse_authorization(got)
    assert parsed.access_key == AK and list(parsed.signed_headers) == signed


@pytest.mark.parametrize("method,host,path,query,body,headers", TABLE[::3])
def test_raw_query_string_gives_same_canonical_form(method, host, path, query, body, headers):
    encoded = requests.models.RequestEncodingMixin._encode_params(query) if query else ""
    assert s.canonical_query_string(encoded) == s.canonical_query_string(query)


@pytest.mark.parametrize("method,host,path,query,body,headers", TABLE)
def test_requests_auth_object_matches_sdk(method, host, path, query, body, headers):
    """Sign a real requests.PreparedRequest; re-sign the same request with the SDK."""
    fixed = datetime(2024, 2, 29, 23, 59, 59, tzinfo=timezone.utc)
    auth = s.SdkHmacAuth(AK, SK, clock=lambda: fixed)
    hdrs = {k: v.strip() for k, v in headers.items()}  # requests rejects leading whitespace
    session = requests.Session()
    prepared = session.prepare_request(
        requests.Request(method.upper(), f"http://{host}{path}", params=query, data=body or None, headers=hdrs, auth=auth)
    )
    got = prepared.headers["Authorization"]
    parsed = s.parse_authorization(got)
    # the SDK request: same method/path/query/body and exactly the headers our signer signed
    sdk_headers = {k: prepared.headers[k] for k in prepared.headers if k.lower() in parsed.signed_headers}
    expected, _ = _sdk_authorization(method.upper(), host, path, query, sdk_headers, body)
    assert got == expected
    # the local gateway's own verifier (written from the signing guide, not this signer) accepts its wire form
    split = urlsplit(prepared.url)
    gw.verify(prepared.method, split.path, split.query, dict(prepared.headers), prepared.body or b"",
              {AK: SK}.get, now=fixed, max_skew_s=0)


def test_security_token_is_signed_and_matches_sdk():
    fixed = datetime(2024, 2, 29, 23, 59, 59, tzinfo=timezone.utc)
    auth = s.SdkHmacAuth(AK, SK, security_token="tok-123", clock=lambda: fixed)
    p = requests.Request("GET", "https://modelarts.eu-de.otc.t-systems.com/v2/p/training-jobs/x", auth=auth).prepare()
    parsed = s.parse_authorization(p.headers["Authorization"])
    assert "x-security-token" in parsed.signed_headers
    assert p.headers["X-Security-Token"] == "tok-123"
    assert p.headers["Host"] == "modelarts.eu-de.otc.t-systems.com"
    sdk_headers = {k: p.headers[k] for k in p.headers if k.lower() in parsed.signed_headers}
    expected, _ = _sdk_authorization("GET", "modelarts.eu-de.otc.t-systems.com", "/v2/p/training-jobs/x", [], sdk_headers, b"")
    assert p.headers["Authorization"] == expected


def test_project_id_header_is_sent_and_signed_as_the_sdk_does():
    """huaweicloudsdkcore's BasicCredentials(ak, sk, project_id) adds X-Project-Id to every request and
    its Signer signs every header it holds; ours adds and signs the same header, same signature."""
    from huaweicloudsdkcore.auth.credentials import BasicCredentials

    fixed = datetime(2024, 2, 29, 23, 59, 59, tzinfo=timezone.utc)
    project = "a1b2c3d4e5f60718293a4b5c6d7e8f90"
    host = "modelarts.cn-north-4.myhuaweicloud.com"
    path = f"/v2/{project}/training-jobs"
    body = b'{"kind": "job"}'
    auth = s.SdkHmacAuth(AK, SK, project_id=project, clock=lambda: fixed)
    p = requests.Request("POST", f"https://{host}{path}", data=body,
                         headers={"Content-Type": "application/json"}, auth=auth).prepare()
    parsed = s.parse_authorization(p.headers["Authorization"])
    assert p.headers["X-Project-Id"] == project and "x-project-id" in parsed.signed_headers

    req = sdk_request.SdkRequest(method="POST", schema="https", host=host, resource_path=path, query_params=[],
                                 header_params={"Content-Type": "application/json", "X-Sdk-Date": DATE},
                                 body=body)
    BasicCredentials(AK, SK, project).sign_request(req)  # the SDK's whole AK/SK path
    assert req.header_params["X-Project-Id"] == project
    sdk_parsed = s.parse_authorization(req.header_params["Authorization"])
    assert "x-project-id" in sdk_parsed.signed_headers
    # same headers (ours leaves out transport headers such as User-Agent): same Authorization
    ours = {k: p.headers[k] for k in p.headers if k.lower() in parsed.signed_headers}
    assert set(k.lower() for k in ours) == set(sdk_parsed.signed_headers)
    expected, _ = _sdk_authorization("POST", host, path, [], ours, body)
    assert p.headers["Authorization"] == expected


def test_no_project_id_no_header():
    p = requests.Request("GET", "https://h/v2/p/training-jobs/x", auth=s.SdkHmacAuth(AK, SK)).prepare()
    assert "X-Project-Id" not in p.headers
    with pytest.raises(ValueError):
        s.SdkHmacAuth(AK, SK, project_id="a\r\nX-Evil: 1")

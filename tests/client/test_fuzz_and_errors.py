"""Unit tests with fakes: any server response yields a parsed job or one clear error; error
formatting; secrets never shown; endpoints; settings."""

from __future__ import annotations

import copy
import json
import pickle

import pytest
import requests
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from modelarts_provider.client import (
    AkSkCredentials,
    ClientSettings,
    IamPasswordCredentials,
    ModelArtsClient,
    ModelArtsError,
    TrainingJob,
    iam_endpoint,
    modelarts_endpoint,
    resolve_endpoints,
)
from modelarts_provider.client.errors import parse_error_body
from modelarts_provider.client.transport import Transport

from .doc_examples import details_example, error_example

SECRET = "fuzz-secret-key-value-0123456789"


class FakeTransport(Transport):
    """Answers every call with the next canned response."""

    def __init__(self, responses):
        super().__init__()
        self.responses = list(responses)
        self.calls = []

    def request(self, method, url, *, auth, idempotent, json_body=None, params=None, timeout=None):
        self.calls.append((method, url, idempotent, json_body))
        item = self.responses.pop(0) if len(self.responses) > 1 else self.responses[0]
        if isinstance(item, BaseException):
            raise item
        return item


def make_response(status: int, body: bytes, headers: dict | None = None, method="GET") -> requests.Response:
    r = requests.Response()
    r.status_code = status
    r._content = body
    r.headers.update(headers or {})
    r.reason = "Reason"
    r.request = requests.Request(method, "http://x/v2/p/training-jobs/j?sig=" + SECRET).prepare()
    r.url = r.request.url
    return r


def make_client(responses, **kw) -> ModelArtsClient:
    s = ClientSettings(region="cn-north-4", project_id="p", endpoint="http://x",
                       credentials=AkSkCredentials(access_key="AK", secret_key=SECRET), max_retries=0, **kw)
    return ModelArtsClient(s, transport=FakeTransport(responses))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4),
    max_leaves=20,
)


@st.composite
def mutated_job(draw):
    job = copy.deepcopy(details_example())
    # replace a random path with a random JSON value
    node = job
    path = []
    for _ in range(draw(st.integers(0, 4))):
        if isinstance(node, dict) and node:
            key = draw(st.sampled_from(sorted(node)))
        elif isinstance(node, list) and node:
            key = draw(st.integers(0, len(node) - 1))
        else:
            break
        path.append((node, key))
        node = node[key]
    if path:
        parent, key = path[-1]
        parent[key] = draw(json_values)
    else:
        job = draw(json_values)
    return json.dumps(job).encode()


bodies = st.one_of(
    st.binary(max_size=200),
    json_values.map(lambda v: json.dumps(v).encode()),
    mutated_job(),
    st.just(json.dumps(error_example()).encode()),
    st.just(json.dumps({"error": {"code": 401, "message": "token expired " + SECRET}}).encode()),
)
statuses = st.one_of(st.sampled_from([200, 201, 202, 204, 400, 401, 403, 404, 409, 429, 500, 502, 503]),
                     st.integers(100, 599))
headers = st.dictionaries(st.sampled_from(["X-Request-Id", "Content-Type", "Retry-After"]),
                          st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=30), max_size=3)


def _check_error(err: ModelArtsError):
    text = str(err)
    assert "\n" not in text and text.strip() == text and text
    assert SECRET not in text and SECRET not in repr(err)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(status=statuses, body=bodies, hdrs=headers)
def test_any_response_gives_a_job_or_one_clear_error(status, body, hdrs):
    client = make_client([make_response(status, body, hdrs)])
    for call in (lambda: client.get_job("j"), lambda: client.update_description("j", "d"),
                 lambda: client.terminate_job("j"), lambda: client.delete_job("j"),
                 lambda: client.find_by_name("n"), lambda: client.list_jobs(limit=3),
                 lambda: client.create_job({"metadata": {"name": "n"}})):
        try:
            result = call()
        except ModelArtsError as err:
            _check_error(err)
        else:
            assert result is None or isinstance(result, (TrainingJob, bool, list))


def test_documented_error_message():
    client = make_client([make_response(400, json.dumps(error_example()).encode(), {"X-Request-Id": "req-1"})])
    with pytest.raises(ModelArtsError) as ei:
        client.get_job("j")
    assert str(ei.value) == ("ModelArts.2755 algorithm not found (HTTP 400): Check whether the training "
                             "project information in the request is valid. [request req-1]")
    e = ei.value
    assert (e.status, e.error_code, e.error_msg, e.request_id) == (400, "ModelArts.2755", "algorithm not found.", "req-1")
    assert e.error_solution.startswith("Check whether")
    again = pickle.loads(pickle.dumps(e))
    assert str(again) == str(e) and again.status == 400


def test_secrets_are_redacted_from_server_texts():
    body = json.dumps({"error_code": "X", "error_msg": f"bad key {SECRET}", "error_solution": SECRET}).encode()
    client = make_client([make_response(403, body)])
    with pytest.raises(ModelArtsError) as ei:
        client.get_job("j")
    _check_error(ei.value)


def test_iam_error_body_shape():
    assert parse_error_body(b'{"error": {"code": 401, "message": "The request you have made requires authentication.", "title": "Unauthorized"}}')[:2] == (
        "IAM.401", "The request you have made requires authentication.")
    assert parse_error_body(b"<html>502</html>")[1] == "<html>502</html>"
    assert parse_error_body(b"") == (None, None, None, None)


def test_only_2775_means_gone():
    gone = make_response(400, json.dumps({"error_code": "ModelArts.2775", "error_msg": "gone"}).encode())
    assert make_client([gone]).get_job("j") is None
    assert make_client([gone]).delete_job("j") is False


GATEWAY_404 = {"error_code": "APIGW.0101",
               "error_msg": "The API does not exist or has not been published in the environment"}


@pytest.mark.parametrize("body", [json.dumps(GATEWAY_404).encode(), b"", b"<html>Not Found</html>"],
                         ids=["apigw-0101", "empty", "html"])
def test_any_other_404_is_an_error_not_a_missing_job(body):
    """A gateway 404 (wrong endpoint prefix, API not published) says nothing about the job."""
    for call in (lambda c: c.get_job("j"), lambda c: c.delete_job("j")):
        with pytest.raises(ModelArtsError) as ei:
            call(make_client([make_response(404, body)]))
        assert ei.value.status == 404 and not ei.value.is_not_found
        _check_error(ei.value)
    with pytest.raises(ModelArtsError) as ei:
        make_client([make_response(404, json.dumps(GATEWAY_404).encode())]).get_job("j")
    assert ei.value.error_code == "APIGW.0101" and "has not been published" in str(ei.value)


def test_create_connect_failure_is_not_ambiguous():
    exc = requests.exceptions.ConnectTimeout("connect timed out")
    client = make_client([exc])
    with pytest.raises(ModelArtsError) as ei:
        client.create_job({"metadata": {"name": "n"}})
    assert ei.value.error_code == "Client.Timeout"
    assert len(client.transport.calls) == 1  # no lookup: nothing reached the service


def test_create_ambiguous_then_found_by_name():
    job = details_example()
    listing = {"total": 1, "count": 1, "items": [dict(job, metadata=dict(job["metadata"], name="n"))]}
    client = make_client([requests.exceptions.ConnectionError("Connection reset by peer"),
                          make_response(200, json.dumps(listing).encode())])
    found = client.create_job({"metadata": {"name": "n"}})
    assert found.name == "n"
    methods = [(m, u.rsplit("/", 1)[-1], idem) for m, u, idem, _ in client.transport.calls]
    assert methods == [("POST", "training-jobs", False), ("POST", "training-job-searches", True)]


def test_reprs_never_show_secrets():
    ak = AkSkCredentials(access_key="AK", secret_key=SECRET, security_token="tok-" + SECRET)
    iam = IamPasswordCredentials(user="u", password=SECRET, domain="d")
    for creds in (ak, iam):
        s = ClientSettings(region="eu-de", cloud="otc", project_id="p", credentials=creds)
        c = ModelArtsClient(s)
        for text in (repr(s), str(s), repr(creds), repr(c), repr(c.auth), str(s.model_dump())):
            assert SECRET not in text


@pytest.mark.parametrize(
    "cloud,region,ma,iam",
    [
        ("huaweicloud", "cn-north-4", "https://modelarts.cn-north-4.myhuaweicloud.com", "https://iam.cn-north-4.myhuaweicloud.com"),
        ("huaweicloud", "ap-southeast-1", "https://modelarts.ap-southeast-1.myhuaweicloud.cn", "https://iam.ap-southeast-1.myhuaweicloud.com"),
        ("huaweicloud", "ap-southeast-3", "https://modelarts.ap-southeast-3.myhuaweicloud.com", "https://iam.ap-southeast-3.myhuaweicloud.com"),
        ("otc", "eu-de", "https://modelarts.eu-de.otc.t-systems.com", "https://iam.eu-de.otc.t-systems.com"),
    ],
)
def test_endpoints(cloud, region, ma, iam):
    assert modelarts_endpoint(cloud, region) == ma and iam_endpoint(cloud, region) == iam
    eps = resolve_endpoints(cloud, region)
    assert (eps.modelarts, eps.iam) == (ma, iam)


def test_endpoint_override():
    eps = resolve_endpoints("huaweicloud", "cn-north-4", "http://127.0.0.1:8780/")
    assert eps.modelarts == eps.iam == "http://127.0.0.1:8780"
    eps = resolve_endpoints("otc", "eu-de", "http://127.0.0.1:8780", "https://iam.example:8443")
    assert eps.iam == "https://iam.example:8443"
    with pytest.raises(ValueError):
        resolve_endpoints("aws", "us-east-1")
    with pytest.raises(ValueError):
        resolve_endpoints("otc", "eu-de", "ftp://x")


def test_settings_tls_options():
    creds = AkSkCredentials(access_key="AK", secret_key="sk")
    assert ClientSettings(region="eu-de", cloud="otc", project_id="p", credentials=creds).requests_verify is True
    s = ClientSettings(region="eu-de", cloud="otc", project_id="p", credentials=creds, ca_bundle="/etc/ca.pem")
    assert s.requests_verify == "/etc/ca.pem"
    assert ModelArtsClient(s).transport.session.verify == "/etc/ca.pem"
    assert ClientSettings(region="eu-de", cloud="otc", project_id="p", credentials=creds,
                          verify_tls=False).requests_verify is False
    with pytest.raises(ValidationError):
        ClientSettings(region="eu-de", project_id="p", credentials=creds, bogus=1)


def test_timeouts_on_every_request():
    t = Transport(connect_timeout=1.5, read_timeout=7)
    assert t.timeout == (1.5, 7)

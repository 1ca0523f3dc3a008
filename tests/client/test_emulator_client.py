"""The client against the local ModelArts emulator, over real HTTP.

Covers every operation with both auth methods (AK/SK, IAM password token), temporary credentials,
the retry rules (429 + Retry-After, 503, connection reset), the ambiguous create (committed but the
response dropped -> exactly one job), and concurrent use of one client.
"""

from __future__ import annotations

import copy
import logging
import threading
import time

import pytest

from modelarts_emulator.testing import running_emulator
from modelarts_provider.client import (
    AkSkCredentials,
    ClientSettings,
    CreateTrainingJobRequest,
    IamPasswordCredentials,
    ModelArtsClient,
    ModelArtsError,
    TrainingJob,
)

from .doc_examples import create_examples  # noqa: E402
from testkit.sleeps import record_sleeps

pytestmark = pytest.mark.timeout(120)


# The module emulator's phases outlast any test: a test moves its jobs on with the clock (emu.advance),
# so what it sees never depends on how fast the machine is.
PHASE_SECONDS, RUN_SECONDS = 30, 60
FINISH = 2 * PHASE_SECONDS + RUN_SECONDS + 1  # a clock step that ends every job (but hanging ones)


@pytest.fixture(scope="module")
def emu(tmp_path_factory):
    with running_emulator(tmp_path_factory.mktemp("emu"), run_seconds=RUN_SECONDS,
                          phase_seconds=PHASE_SECONDS) as e:
        yield e


@pytest.fixture(autouse=True)
def _clean(request):
    if "emu" in request.fixturenames:
        e = request.getfixturevalue("emu")
        e.reset()
    yield


def settings_for(e, auth: str = "aksk", **kw) -> ClientSettings:
    if auth == "aksk":
        creds = AkSkCredentials(access_key=e.access_key, secret_key=e.secret_key,
                                security_token=kw.pop("security_token", None))
    else:
        creds = IamPasswordCredentials(user=e.iam_user, password=e.iam_password, domain=e.iam_domain)
    base = dict(region="cn-north-4", project_id=e.project_id, endpoint=e.url, credentials=creds,
                backoff_factor=0.05, backoff_max=0.5, retry_total_s=20)
    base.update(kw)
    return ClientSettings(**base)


def job_request(name: str, example: int = 0, **annotations: str) -> CreateTrainingJobRequest:
    body = copy.deepcopy(create_examples()[example])
    body["metadata"]["name"] = name
    if annotations:
        body["metadata"]["annotations"] = annotations
    return CreateTrainingJobRequest.model_validate(body)


def count_jobs(e, name: str) -> int:
    return sum(1 for j in e.jobs() if j["metadata"]["name"] == name)


# --- every operation, both auth methods -------------------------------------------------------------


@pytest.mark.parametrize("auth", ["aksk", "iam"])
@pytest.mark.parametrize("example", [0, 1])
def test_every_operation(emu, auth, example):
    changes: list[str] = []
    with ModelArtsClient(settings_for(emu, auth)) as client:
        name = f"job-{auth}-{example}"
        job = client.create_job(job_request(name, example))
        assert isinstance(job, TrainingJob) and job.id and job.name == name
        assert job.phase in {"Creating", "Pending"}

        got = client.get_job(job.id)
        assert got is not None and got.id == job.id
        assert client.find_by_name(name).id == job.id
        assert client.find_by_name(name + "-nope") is None
        assert [j.id for j in client.list_jobs(name_like=name)] == [job.id]
        assert client.list_jobs(phases=["Terminated"]) == []

        updated = client.update_description(job.id, "described ü")
        assert updated.description == "described ü"

        poll_until(client, job.id, {"Creating"}, on_phase=changes.append)  # held until the clock moves
        emu.advance(FINISH)
        done = poll_until(client, job.id, {"Completed"}, on_phase=changes.append)
        assert done.phase == "Completed"
        assert changes[-1] == "Completed" and len(changes) >= 2

        # terminating an ended job returns it unchanged
        assert client.terminate_job(job.id).phase == "Completed"
        assert client.delete_job(job.id) is True
        emu.advance(PHASE_SECONDS)  # deletes are asynchronous: the job is answered for a while
        assert client.delete_job(job.id) is False
        assert client.get_job(job.id) is None
    c = emu.counters()
    assert c["create"] == 1
    assert c["iam_token"] == (1 if auth == "iam" else 0)


def poll_until(client, job_id, phases, timeout=30.0, on_phase=None):
    """Poll one job until its phase is in `phases` (the provider's awaiting resource does this for
    many jobs at once; the client only reads)."""
    deadline = time.monotonic() + timeout
    last = None
    while True:
        job = client.get_job(job_id)
        if job.phase != last and on_phase is not None:
            on_phase(job.phase)
        last = job.phase
        if job.phase in phases:
            return job
        assert time.monotonic() < deadline, f"{job_id} still {job.phase}"
        time.sleep(0.1)


def test_terminate_running_job(emu):
    with ModelArtsClient(settings_for(emu)) as client:
        job = client.create_job(job_request("to-terminate", **{"emulator/outcome": "hang"}))
        emu.advance(2 * PHASE_SECONDS)
        poll_until(client, job.id, {"Running"})
        term = client.terminate_job(job.id)
        assert term.phase == "Terminating"
        emu.advance(PHASE_SECONDS)
        final = poll_until(client, job.id, {"Terminated"})
        assert final.phase == "Terminated"


def test_unknown_job_operations(emu):
    with ModelArtsClient(settings_for(emu)) as client:
        missing = "00000000-0000-0000-0000-000000000000"
        assert client.get_job(missing) is None
        assert client.delete_job(missing) is False
        with pytest.raises(ModelArtsError) as ei:
            client.terminate_job(missing)
        assert ei.value.error_code == "ModelArts.2775" and ei.value.is_not_found


def test_service_error_is_one_clear_line(emu):
    body = copy.deepcopy(create_examples()[0])
    body["metadata"]["name"] = "bad-algorithm"
    body["algorithm"]["id"] = "3f5d6706-7b67-408d-8ba0-ec08048c45ee"  # the documented unknown id
    with ModelArtsClient(settings_for(emu)) as client:
        with pytest.raises(ModelArtsError) as ei:
            client.create_job(CreateTrainingJobRequest.model_validate(body))
    err = ei.value
    assert err.status == 400 and err.error_code == "ModelArts.2755"
    assert str(err).startswith("ModelArts.2755 algorithm not found (HTTP 400): Check whether the training project")
    assert "\n" not in str(err) and err.request_id
    assert emu.counters()["create"] == 1  # a 4xx is never retried


def test_duplicate_name_is_reported_not_adopted(emu):
    with ModelArtsClient(settings_for(emu)) as client:
        client.create_job(job_request("dup"))
        with pytest.raises(ModelArtsError) as ei:
            client.create_job(job_request("dup"))
        assert ei.value.error_code == "ModelArts.2751"
    assert count_jobs(emu, "dup") == 1


# --- auth -------------------------------------------------------------------------------------------


def test_wrong_secret_key_gives_clear_401_without_secret(emu):
    s = ClientSettings(region="cn-north-4", project_id=emu.project_id, endpoint=emu.url,
                       credentials=AkSkCredentials(access_key=emu.access_key, secret_key="wrong-secret-value-xyz"))
    with ModelArtsClient(s) as client:
        with pytest.raises(ModelArtsError) as ei:
            client.get_job("abc")
    err = ei.value
    assert err.status == 401 and err.error_code.startswith("APIGW")
    for text in (str(err), repr(err), repr(client), repr(s), repr(client.auth)):
        assert "wrong-secret-value-xyz" not in text


def test_wrong_iam_password(emu):
    s = ClientSettings(region="cn-north-4", project_id=emu.project_id, endpoint=emu.url,
                       credentials=IamPasswordCredentials(user=emu.iam_user, password="not-the-password",
                                                          domain=emu.iam_domain))
    with ModelArtsClient(s) as client:
        with pytest.raises(ModelArtsError) as ei:
            client.get_job("abc")
    assert ei.value.status == 401 and "not-the-password" not in str(ei.value) + repr(ei.value)


def test_temporary_credentials_security_token(tmp_path):
    with running_emulator(tmp_path, security_token="temp-sec-token-123") as e:
        with ModelArtsClient(settings_for(e, security_token="temp-sec-token-123")) as client:
            job = client.create_job(job_request("with-token"))
            assert client.get_job(job.id).id == job.id
        with ModelArtsClient(settings_for(e, security_token="another-token-456")) as client:
            with pytest.raises(ModelArtsError) as ei:
                client.get_job(job.id)
            assert ei.value.status == 401
            assert "another-token-456" not in str(ei.value)


def test_iam_token_cached_renewed_before_expiry_and_on_401(tmp_path):
    with running_emulator(tmp_path, token_ttl_seconds=2, run_seconds=1, phase_seconds=0.2) as e:
        with ModelArtsClient(settings_for(e, "iam")) as client:
            for _ in range(5):
                client.list_jobs()
            assert e.counters()["iam_token"] == 1  # cached

            time.sleep(2.1)  # past the renewal point (80% of the 2 s lifetime) and the expiry
            client.list_jobs()
            assert e.counters()["iam_token"] == 2  # renewed before use, no 401 seen
            before = e.counters()["search"]

            # the client believes its token is still fresh, the service says it expired -> one 401,
            # one renewal, the call succeeds
            real_clock = client.auth._clock
            frozen = real_clock()
            client.auth._clock = lambda: frozen
            time.sleep(2.1)
            assert client.list_jobs() == []
            assert e.counters()["iam_token"] == 3
            assert e.counters()["search"] == before + 2


# --- retries ----------------------------------------------------------------------------------------


def test_429_with_retry_after_is_honoured(emu):
    with ModelArtsClient(settings_for(emu)) as client:
        job = client.create_job(job_request("throttled"))
        emu.set_faults([{"operation": "get", "kind": "status", "status": 429, "retry_after": 1, "times": 2}])
        t0 = time.monotonic()
        assert client.get_job(job.id).id == job.id
        elapsed = time.monotonic() - t0
    assert emu.counters()["get"] == 3
    assert elapsed >= 2.0  # 2 x Retry-After: 1, not the 0.05 s backoff


def test_429_on_create_is_retried_once_per_rejection(emu):
    with ModelArtsClient(settings_for(emu)) as client:
        emu.set_faults([{"operation": "create", "kind": "status", "status": 429, "retry_after": 0, "times": 2}])
        job = client.create_job(job_request("create-throttled"))
    assert emu.counters()["create"] == 3 and emu.counters()["search"] == 0
    assert count_jobs(emu, "create-throttled") == 1 and job.name == "create-throttled"


@pytest.mark.parametrize("status", [500, 502, 503])
def test_5xx_on_idempotent_calls_is_retried(emu, status):
    with ModelArtsClient(settings_for(emu)) as client:
        job = client.create_job(job_request(f"s{status}"))
        emu.set_faults([{"operation": "any", "kind": "status", "status": status, "times": 2}])
        assert client.get_job(job.id).id == job.id
        emu.set_faults([{"operation": "update", "kind": "status", "status": status, "times": 1}])
        assert client.update_description(job.id, "x").description == "x"
        emu.set_faults([{"operation": "search", "kind": "status", "status": status, "times": 1}])
        assert client.find_by_name(job.name).id == job.id
    c = emu.counters()
    assert c["get"] == 3 and c["update"] == 2 and c["search"] == 2


def test_persistent_503_gives_clear_error_within_budget(emu, monkeypatch):
    s = settings_for(emu, max_retries=3)
    with ModelArtsClient(s) as client:
        emu.set_faults([{"operation": "get", "kind": "status", "status": 503, "times": 100}])
        slept = record_sleeps(monkeypatch)
        with pytest.raises(ModelArtsError) as ei:
            client.get_job("whatever")
        monkeypatch.undo()
    assert len(slept) == 3 and sum(slept) < s.retry_total_s, slept  # three backoffs, within the budget
    assert ei.value.status == 503 and ei.value.retryable
    assert "(HTTP 503)" in str(ei.value)
    assert emu.counters()["get"] == 4  # 1 + 3 retries


def test_retry_after_beyond_limit_is_not_waited_for(emu, monkeypatch):
    with ModelArtsClient(settings_for(emu, retry_after_max=2)) as client:
        emu.set_faults([{"operation": "get", "kind": "status", "status": 429, "retry_after": 3600, "times": 1}])
        slept = record_sleeps(monkeypatch)
        with pytest.raises(ModelArtsError) as ei:
            client.get_job("x")
        monkeypatch.undo()
    assert slept == []  # neither the hour asked for nor anything else
    assert ei.value.status == 429 and emu.counters()["get"] == 1


def test_connection_reset_on_idempotent_calls_is_retried(emu):
    with ModelArtsClient(settings_for(emu)) as client:
        job = client.create_job(job_request("reset-get"))
        emu.set_faults([{"operation": "get", "kind": "reset", "times": 2}])
        assert client.get_job(job.id).id == job.id
        emu.set_faults([{"operation": "delete", "kind": "reset", "times": 1}])
        assert client.delete_job(job.id) in (True, False)
        emu.advance(PHASE_SECONDS)  # deletes are asynchronous: the job is answered for a while
        assert client.get_job(job.id) is None
    assert emu.counters()["get"] == 4


def test_read_timeout_on_idempotent_call_is_retried(emu):
    with ModelArtsClient(settings_for(emu, read_timeout=0.5)) as client:
        job = client.create_job(job_request("slow-get"))
        emu.set_faults([{"operation": "get", "kind": "latency", "latency_ms": 1500, "times": 1}])
        assert client.get_job(job.id).id == job.id
    assert emu.counters()["get"] == 2


def test_unreachable_endpoint_is_clear_error(tmp_path):
    s = ClientSettings(region="cn-north-4", project_id="p", endpoint="http://127.0.0.1:9",
                       credentials=AkSkCredentials(access_key="AK", secret_key="sk-secret-value"),
                       max_retries=1, backoff_factor=0.01, connect_timeout=0.5)
    with ModelArtsClient(s) as client:
        with pytest.raises(ModelArtsError) as ei:
            client.get_job("x")
    assert ei.value.status is None and ei.value.error_code == "Client.ConnectionError"
    assert "\n" not in str(ei.value) and "sk-secret-value" not in str(ei.value)


# --- the ambiguous create -----------------------------------------------------------------------------


def test_create_committed_but_response_dropped_gives_exactly_one_job(emu, caplog):
    caplog.set_level(logging.WARNING, logger="modelarts_provider.client")
    with ModelArtsClient(settings_for(emu)) as client:
        emu.set_faults([{"operation": "create", "kind": "drop_after_commit", "times": 1}])
        job = client.create_job(job_request("dropped"))
    assert job.name == "dropped" and job.id
    assert count_jobs(emu, "dropped") == 1
    c = emu.counters()
    assert c["create"] == 1 and c["search"] >= 1
    assert "ambiguous" in caplog.text


@pytest.mark.parametrize("allow_duplicates", [False, True], ids=["names-unique", "duplicate-names-accepted"])
def test_a_lost_create_response_is_resolved_to_our_job_never_a_colleagues(emu, allow_duplicates):
    # A colleague's job of the same name in the default workspace; ours is declared in ws-1 with our owner
    # token. The lookup after the lost response must find ours (its workspace and token), never theirs.
    emu.settings(allow_duplicate_names=allow_duplicates)  # the list API lists one workspace at a time
    with ModelArtsClient(settings_for(emu)) as client:
        theirs = client.create_job(job_request("same-name"))
        ours = job_request("same-name", **{"modelarts-pulumi/owner": "o/p/dev::a",
                                           "modelarts-pulumi/token": "0123456789abcdef"})
        ours.metadata.workspace_id = "ws-1"
        emu.set_faults([{"operation": "create", "kind": "drop_after_commit", "times": 1}])
        try:
            job = client.create_job(ours)
        except ModelArtsError as err:  # a service that refuses the name: refused, never "found" as theirs
            assert not allow_duplicates and err.error_code == "ModelArts.2751", err
            assert count_jobs(emu, "same-name") == 1
            return
    assert job.id != theirs.id and job.metadata.annotations["modelarts-pulumi/token"] == "0123456789abcdef"
    assert count_jobs(emu, "same-name") == 2


def test_create_reset_before_commit_creates_exactly_one_job(emu):
    with ModelArtsClient(settings_for(emu)) as client:
        emu.set_faults([{"operation": "create", "kind": "reset", "times": 1}])
        job = client.create_job(job_request("reset-create"))
    assert count_jobs(emu, "reset-create") == 1 and job.name == "reset-create"
    assert emu.counters()["create"] == 2  # looked up, not found, sent again


@pytest.mark.parametrize("status", [500, 503])
def test_create_5xx_is_looked_up_before_resending(emu, status):
    with ModelArtsClient(settings_for(emu)) as client:
        emu.set_faults([{"operation": "create", "kind": "status", "status": status, "times": 1}])
        job = client.create_job(job_request(f"c{status}"))
    assert count_jobs(emu, f"c{status}") == 1 and job.id
    c = emu.counters()
    assert c["create"] == 2 and c["search"] >= 1


def test_create_read_timeout_after_commit_gives_exactly_one_job(emu):
    with ModelArtsClient(settings_for(emu, read_timeout=0.5)) as client:
        emu.set_faults([{"operation": "create", "kind": "latency", "latency_ms": 1500, "times": 1}])
        job = client.create_job(job_request("slow-create"))
    time.sleep(1.2)  # let the slow request commit on the server
    assert count_jobs(emu, "slow-create") == 1 and job.name == "slow-create"


def test_create_ambiguous_and_lookup_fails_does_not_resend(emu):
    with ModelArtsClient(settings_for(emu, max_retries=1)) as client:
        emu.set_faults([
            {"operation": "create", "kind": "drop_after_commit", "times": 1},
            {"operation": "search", "kind": "status", "status": 503, "times": 50},
        ])
        with pytest.raises(ModelArtsError) as ei:
            client.create_job(job_request("unknowable"))
    assert ei.value.error_code == "Client.AmbiguousCreate"
    assert emu.counters()["create"] == 1
    assert count_jobs(emu, "unknowable") == 1


def test_failed_job_reports_exit_codes_in_its_details(emu):
    with ModelArtsClient(settings_for(emu)) as client:
        job = client.create_job(job_request("fails", **{"emulator/outcome": "fail", "emulator/exit-code": "3"}))
        emu.advance(FINISH)
        failed = poll_until(client, job.id, {"Failed"})
    assert [t.exit_code for t in failed.task_statuses] == [3]


def test_gets_are_retried_through_transient_errors(emu):
    with ModelArtsClient(settings_for(emu)) as client:
        job = client.create_job(job_request("flaky-poll"))
        emu.set_faults([{"operation": "get", "kind": "status", "status": 503, "times": 3}])
        assert client.get_job(job.id).id == job.id


# --- one client, several threads -------------------------------------------------------------------------


@pytest.mark.parametrize("auth", ["aksk", "iam"])
def test_concurrent_threads_share_one_pool(emu, auth):
    with ModelArtsClient(settings_for(emu, auth)) as client:
        errors: list[BaseException] = []
        ids: list[str] = []

        def worker(i: int) -> None:
            try:
                job = client.create_job(job_request(f"par-{auth}-{i}"))
                ids.append(job.id)
                for _ in range(10):
                    assert client.get_job(job.id).id == job.id
            except BaseException as exc:  # pragma: no cover - reported below
                errors.append(exc)

        threads = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors and len(set(ids)) == 4
        assert client.transport.connections_opened() <= 4 + (1 if auth == "iam" else 0)
    assert emu.counters()["iam_token"] == (1 if auth == "iam" else 0)

"""Issue 43 finding 4, at the client: every call has an overall deadline, whatever the server does (an answer
dripped a byte every half second, a TLS handshake that stalls, a connection that takes the request and never
answers), and a call inside `limits(abort=...)` ends when the abort test says so (the engine's Cancel in a wait).

Each call runs on a thread of its own here; the test waits for it with a bound far above what a cut call takes
and far below what the server would take (a dripped job answer: over 1,000 s), so a call that is not cut fails
the test instead of hanging it. The calls' durations are printed (`-s`) for the report, not asserted.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from modelarts_provider.client import AkSkCredentials, ClientSettings, ModelArtsClient, ModelArtsError
from modelarts_provider.client import call_limits
from modelarts_provider.client.models import CreateTrainingJobRequest
from testkit.drip_proxy import drip_proxy, ended, stalled_tls_server

JOB_GET = re.compile(r"^/v2/[^/]+/training-jobs/[^/]+$")
HANG_BOUND_S = 60.0  # a cut call ends long before; an uncut one long after


@pytest.fixture(scope="module")
def emu(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from modelarts_emulator.testing import running_emulator

    with running_emulator(tmp_path_factory.mktemp("emulator"), run_seconds=600, phase_seconds=0.2) as e:
        yield e


def _client(emu: Any, endpoint: str, **kw: Any) -> ModelArtsClient:
    settings = {"connect_timeout": 1.0, "read_timeout": 2.0, "retry_total_s": 1.0, **kw}
    return ModelArtsClient(ClientSettings(region="cn-north-4", project_id=emu.project_id, endpoint=endpoint,
                                          credentials=AkSkCredentials(access_key=emu.access_key,
                                                                      secret_key=emu.secret_key), **settings))


def _job(emu: Any) -> str:
    body = {"kind": "job", "metadata": {"name": f"drip-{time.monotonic_ns()}"},
            "algorithm": {"code_dir": "obs://emulator-bucket/code/", "boot_file": "obs://emulator-bucket/code/t.py",
                          "engine": {"engine_name": "PyTorch",
                                     "engine_version": "pytorch_1.8.0-cuda_10.2-py_3.7-ubuntu_18.04-x86_64"}},
            "spec": {"resource": {"flavor_id": "modelarts.p3.large.public", "node_count": 1}}}
    with _client(emu, emu.url) as client:
        return client.create_job(CreateTrainingJobRequest.model_validate(body)).id or ""


def test_a_dripped_answer_ends_at_the_call_deadline(emu: Any) -> None:
    job_id = _job(emu)
    with drip_proxy(emu.url, lambda m, p: m == "GET" and JOB_GET.match(p)) as proxy, \
            _client(emu, proxy.url) as client:
        assert client.transport.call_deadline_s() == 4.0  # retry budget 1 + connect 1 + read 2
        _, err, took = ended(lambda: client.get_job(job_id), HANG_BOUND_S)
        print(f"dripped GET cut after {took:.2f} s (call deadline 4 s)")
        assert isinstance(err, ModelArtsError) and err.error_code == "Client.Timeout", err
        assert f"/training-jobs/{job_id} no complete answer within 4 s (the call's deadline)" in str(err)
        assert err.retryable  # a wait treats it as no news, and judges the job at its deadline
        assert proxy.dripping == 1  # cut, not retried into a second drip
        # The other calls of the same client are untouched.
        assert client.list_jobs() is not None


def test_a_scope_deadline_comes_first(emu: Any) -> None:
    job_id = _job(emu)
    with drip_proxy(emu.url, lambda m, p: m == "GET" and JOB_GET.match(p)) as proxy, \
            _client(emu, proxy.url, retry_total_s=60.0, read_timeout=30.0) as client:

        def get() -> None:
            with call_limits.limits(deadline=time.monotonic() + 1.0):
                client.get_job(job_id)

        _, err, took = ended(get, HANG_BOUND_S)
        print(f"dripped GET under a 1 s scope cut after {took:.2f} s")
        assert isinstance(err, ModelArtsError) and err.error_code == "Client.Timeout", err


def test_an_abort_cuts_a_call_in_flight(emu: Any) -> None:
    job_id = _job(emu)
    stop = threading.Event()
    with drip_proxy(emu.url, lambda m, p: m == "GET" and JOB_GET.match(p), stall=True) as proxy, \
            _client(emu, proxy.url, retry_total_s=60.0, read_timeout=30.0) as client:

        def get() -> None:
            with call_limits.limits(abort=stop.is_set):
                client.get_job(job_id)

        def cancel_once_stalled() -> None:
            while not proxy.dripping:
                time.sleep(0.01)
            stop.set()

        threading.Thread(target=cancel_once_stalled, daemon=True).start()
        _, err, took = ended(get, HANG_BOUND_S)
        print(f"stalled GET cut {took:.2f} s after it started, on the abort")
        assert isinstance(err, ModelArtsError) and err.error_code == "Client.Cancelled", err
        assert not err.retryable


def test_a_stalled_tls_handshake_ends_at_the_call_deadline(emu: Any) -> None:
    # Long socket timeouts (each read of the handshake would wait 20 s): the scope's 2 s deadline cuts it.
    with stalled_tls_server() as url, _client(emu, url, connect_timeout=20.0, read_timeout=20.0) as client:

        def get() -> None:
            with call_limits.limits(deadline=time.monotonic() + 2.0):
                client.get_job("j1")

        _, err, took = ended(get, HANG_BOUND_S)
        print(f"stalled TLS handshake cut after {took:.2f} s (scope deadline 2 s)")
        assert isinstance(err, ModelArtsError) and err.error_code == "Client.Timeout", err


def test_a_healthy_call_is_not_cut_and_leaves_nothing_behind(emu: Any) -> None:
    job_id = _job(emu)
    with _client(emu, emu.url) as client:
        assert client.get_job(job_id) is not None
        with call_limits.limits(deadline=time.monotonic() + 30):
            assert client.get_job(job_id) is not None
    assert call_limits.current() is None and not call_limits._calls and not call_limits._owner

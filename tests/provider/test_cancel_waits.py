"""Issue 43: every wait ends at the engine's Cancel (the user's first Ctrl-C), not at its deadline: a job's stop and
its delete, a pool's or network's delete, a pool's and a network's create wait, a pool's delete stopping our jobs on
it. Each wait here has a deadline shorter than its poll interval, and the Cancel comes right after a poll, in the
pause before the next: a wait that ignores it sleeps the interval through and fails by its deadline's message; one
that honours it ends in the pause, naming the cancel. The engine end to end: tests/faults/test_cancel_delete.py.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest

from modelarts_provider.client.errors import CLIENT_CANCELLED, ModelArtsError
from modelarts_provider.client.pool_models import Network, Pool
from modelarts_provider.wait_engine import cancel
from modelarts_provider.core.owned_objects import wait_gone
from modelarts_provider.core.provider_error import ProviderError
from modelarts_provider.network.args import NetworkArgs
from modelarts_provider.network.provider import NetworkProvider
from modelarts_provider.core import jobs_on_pool as jobs_on
from modelarts_provider.resource_pool.wait import PoolNotUsable, wait_usable
from modelarts_provider.training_job import lifecycle
from modelarts_provider.training_job.args import TrainingJobArgs
from modelarts_provider.training_job.lifecycle import TrainingJobError

from .common import job_inputs
from .fakes import FakeClient

DEADLINE_S = 2.0
POLL_S = 3.0  # past the deadline: a wait that sleeps it through fails by its deadline


@pytest.fixture(autouse=True)
def flag(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """This process's Cancel flag, fresh per test (a provider process is cancelled once and for good)."""
    event = threading.Event()
    monkeypatch.setattr(cancel, "_CANCELLED", event)
    return event


def cancelling_on(get: Any, nth: int) -> Any:
    """`get`, where the engine cancels right after its `nth` call (from the gRPC thread that receives the Cancel)."""
    calls = [0]

    def wrapped(*a: Any) -> Any:
        calls[0] += 1
        if calls[0] == nth:
            threading.Timer(0.05, cancel.request_cancel).start()
        return get(*a)

    return wrapped


def terminating_job() -> tuple[FakeClient, Any]:
    c = FakeClient(script=["Running"])  # it runs until terminated
    job = c.add(TrainingJobArgs.model_validate(job_inputs()).to_wire(), "Running")
    c.terminating_polls = 10**6  # it never gets past Terminating
    return c, job


def test_a_jobs_stop_ends_at_the_cancel_leaving_it_as_it_is() -> None:
    c, job = terminating_job()
    c.get_job = cancelling_on(c.get_job, 1)
    with pytest.raises(TrainingJobError) as e:
        lifecycle.stop(c, job, DEADLINE_S, POLL_S, lambda _: None)
    assert str(e.value) == (f"training job job-a ({job.id}): stopped waiting for it to stop (cancelled); it was "
                            "Terminating and is left so: the next command waits for it again")
    assert c.phase_of(job.id) == "Terminating" and c.count("terminate") == 1 and c.count("delete") == 0


def test_a_destroy_of_a_job_ends_at_the_cancel_without_deleting_it() -> None:
    c, job = terminating_job()
    c.get_job = cancelling_on(c.get_job, 2)  # the delete's own read first, then the stop's first poll
    with pytest.raises(TrainingJobError, match="stopped waiting for it to stop"):
        lifecycle.stop_and_delete(c, job.id, DEADLINE_S, POLL_S, lambda _: None)
    assert c.count("delete") == 0 and job.id in c.jobs


def test_a_deleted_jobs_wait_until_gone_ends_at_the_cancel() -> None:
    c, job = terminating_job()
    c.deleting_polls = 10**6  # answered for ever after its DELETE
    c.delete_job(job.id)
    c.get_job = cancelling_on(c.get_job, 1)
    with pytest.raises(TrainingJobError, match=r"was deleted; stopped waiting until the service no longer has it "
                                               r"\(cancelled\)"):
        lifecycle.wait_deleted(c, job, DEADLINE_S, POLL_S)


def test_a_poll_cut_by_the_cancel_is_the_waits_stop_not_a_service_error() -> None:
    # The call watchdog cuts a poll in flight at the Cancel (client/call_limits.py): its error is the wait's stop.
    c, job = terminating_job()

    def cut(_job_id: str) -> Any:
        cancel.request_cancel()
        raise ModelArtsError("GET stopped: the caller stopped waiting (cancelled)", error_code=CLIENT_CANCELLED)

    c.get_job = cut
    with pytest.raises(TrainingJobError, match="stopped waiting for it to stop"):
        lifecycle.stop(c, job, DEADLINE_S, POLL_S, lambda _: None)


def test_a_pool_or_network_delete_wait_ends_at_the_cancel() -> None:
    get = cancelling_on(lambda: object(), 1)
    with pytest.raises(ProviderError) as e:
        wait_gone(get, DEADLINE_S, POLL_S, "pool p: still deleting after 2 s", "pool p")
    assert str(e.value) == ("pool p: deleting; stopped waiting until it is gone (cancelled): the next command waits "
                            "for it again")


def _pool(phase: str) -> Pool:
    return Pool.model_validate({"metadata": {"name": "pool-1", "labels": {}, "annotations": {}},
                                "spec": {"resources": [{"flavor": "f", "count": 1}]}, "status": {"phase": phase}})


def test_a_pools_node_wait_ends_at_the_cancel() -> None:
    get = cancelling_on(lambda: _pool("Creating"), 1)
    with pytest.raises(PoolNotUsable, match=r"pool gpu: waiting stopped \(cancelled\) at Creating"):
        wait_usable(get, "gpu", {"f": 1}, DEADLINE_S, POLL_S, lambda _: None)


def test_a_networks_wait_until_active_ends_at_the_cancel() -> None:
    net = Network.model_validate({"metadata": {"name": "net-1", "labels": {}, "annotations": {}},
                                  "status": {"phase": "Creating"}})
    p = NetworkProvider()
    p._api = lambda: type("Api", (), {"get_network": staticmethod(cancelling_on(lambda _name: net, 1))})()  # type: ignore[method-assign]
    args = NetworkArgs.model_validate({"name": "main", "cidr": "192.168.128.0/17", "timeout_seconds": DEADLINE_S,
                                       "poll_interval_seconds": POLL_S})
    with pytest.raises(ProviderError, match=r"network main \(net-1\): stopped waiting until Active \(cancelled; "
                                            r"phase Creating\); it is kept"):
        p._wait_active("net-1", args)


def test_stopping_our_job_before_a_pool_delete_ends_at_the_cancel(monkeypatch: pytest.MonkeyPatch) -> None:
    c, job = terminating_job()
    c.get_job = cancelling_on(c.get_job, 1)
    monkeypatch.setattr(jobs_on, "STOP_WAIT_S", DEADLINE_S)
    with pytest.raises(ProviderError, match=r"refused: stopped waiting for it to stop \(cancelled\)"):
        jobs_on._stop(c, job, "refused", POLL_S, lambda _: None)
    assert c.count("terminate") == 1

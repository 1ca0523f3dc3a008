"""Every kind of wait replays from a recording made on the local clouds (scripts/record_waits.py).

Each file of tests/fixtures/waits is one wait as it went against a local ModelArts: the answers it read, when (on
the emulated clock), and how it ended. The replay calls the same call site with the same arguments on a
FakeClock, the engine reading the recorded answers in place of the service: the wait must poll at the recorded
times (so as often), say the same lines, terminate the same jobs and end with the same value or error message.
"""

from __future__ import annotations

import pytest

from modelarts_provider.wait_engine import FakeClock
from testkit.wait_recorder import CALLS, Recording, load_all, replay

RECORDINGS = load_all()

# One recording per kind of wait the package has (the brief of issue 45: jobs, searches, pools, networks,
# stops, deletes, and `logs --follow`), and every call site of testkit/wait_recorder.py recorded at least once.
KINDS = {"job_running", "job_completed", "job_failed", "job_too_late", "search_completed", "network_create",
         "network_delete", "pool_create", "pool_create_fails", "pool_scale", "pool_delete", "job_stop",
         "job_delete_gone", "pool_job_stop", "job_listing_retried", "job_listing_fails", "log_follow"}


def test_every_kind_of_wait_is_recorded() -> None:
    assert KINDS <= set(RECORDINGS)
    assert {r.call for r in RECORDINGS.values()} == set(CALLS)


@pytest.mark.parametrize("name", sorted(RECORDINGS))
def test_a_recorded_wait_replays_the_same(name: str) -> None:
    rec = RECORDINGS[name]
    clock = FakeClock()
    out, replayer = replay(rec, clock)
    assert replayer.asked == [a.t for a in rec.answers]  # every poll at its recorded time, none more, none less
    assert out.polls == rec.polls == len(rec.answers)
    assert (out.outcome, out.error, out.message) == (rec.outcome, rec.error, rec.message)
    assert out.result == rec.result
    assert out.lines == rec.lines
    assert len(out.terminated) == len(rec.terminated)  # the recorded ids are the emulator's; the count tells


def _changed(name: str, **args: object) -> Recording:
    rec = RECORDINGS[name].model_copy(deep=True)
    rec.args.update(args)
    return rec


def test_a_replay_tells_a_wait_that_polls_at_another_pace() -> None:
    out, replayer = replay(_changed("job_stop", poll_s=10), FakeClock())
    assert replayer.asked != [a.t for a in RECORDINGS["job_stop"].answers]
    assert out.polls == RECORDINGS["job_stop"].polls  # same answers, other times: the times are what tell


def test_a_replay_tells_a_wait_that_would_poll_more_than_it_did() -> None:
    rec = RECORDINGS["pool_create"].model_copy(deep=True)
    rec.answers = rec.answers[:-1]  # the wait never sees its pool usable
    with pytest.raises(AssertionError, match="polled more than the 6 recorded answers"):
        replay(rec, FakeClock())


def test_a_replayed_deadline_ends_the_wait_with_the_recorded_last_view() -> None:
    # the same network answers, a deadline before it turns Active: the wait's own too-late message
    out, replayer = replay(_changed("network_create", timeout_s=10), FakeClock())
    assert (out.outcome, out.error) == ("too late", "ProviderError")
    assert out.message.startswith("network main (") and "not Active after 10 s (phase Creating)" in out.message
    assert replayer.asked == [0.0, 5.0, 10.0]


def test_the_recorded_failures_name_their_reason() -> None:
    failed = RECORDINGS["job_failed"].result[0]
    assert failed[1] == "failed" and "exit code 3: CUDA out of memory" in failed[4]
    late = RECORDINGS["job_too_late"]
    assert late.result[0][1:4] == ["timed_out", "Running", "it was terminated"] and len(late.terminated) == 1
    pool = RECORDINGS["pool_create_fails"]
    assert pool.error == "PoolNotUsable" and pool.message.endswith("no stock of the flavor in the zone")


def test_a_followed_log_prints_each_line_once_and_ends_with_its_job() -> None:
    rec = RECORDINGS["log_follow"]
    epochs = [line for line in rec.lines if " epoch " in line]
    assert len(epochs) == len(set(epochs)) == 10 and rec.result == "Completed"
    assert rec.lines[:2] == ["worker-0: job is Creating, waiting for the log...",
                             "worker-0: job is Pending, waiting for the log..."]
    out, _ = replay(rec, FakeClock())
    assert out.lines == rec.lines and out.result == "Completed"

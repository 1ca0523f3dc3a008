"""Failed runs on record, not blockers (issue 56, item 2), on the replay client and a virtual clock: a failed wait
still records the others' results; `accept_failed` settles a job's failure (per job, or every point of a sweep);
a settled failure is said again as a warning by every later diff, and judged again when the acceptance goes."""

from __future__ import annotations

from typing import Any

import pytest

from modelarts_provider.awaiting.accepted import settled_lines
from modelarts_provider.awaiting.provider import JobsAwaitProvider
from modelarts_provider.core.masking import Secrets
from modelarts_provider.core.recorded_failure import RecordedFailure
from tests.awaiting.test_provider import env, provider  # noqa: F401 - env is a fixture
from tests.results.test_await_results import point, sweep_client

CAUSE = "Failed; exit code 3: boom"


def plain(job_id: str, **over: Any) -> dict[str, Any]:
    """A job outside sweeps, not scored."""
    return {"job_id": job_id, "job_name": f"name-{job_id}", "wait_for": "completed", "timeout_seconds": 600,
            "poll_seconds": 5, **over}


def test_a_failed_job_fails_the_up_and_the_others_are_recorded_with_their_results(env):  # noqa: F811
    client = sweep_client({"j1": "Completed", "j2": "Failed", "j3": "Completed"}, {"j1": 0.9, "j3": 0.7})
    jobs = {"one": plain("j1", objective=point("j1", "0")["objective"]), "bad": plain("j2"),
            "s-1": point("j3", "0.1")}
    with pytest.raises(RecordedFailure) as err:
        provider(client).create({"jobs": jobs})
    assert str(err.value).splitlines()[0] == "1 of 3 awaited training jobs did not reach their target: bad"
    assert err.value.resource_id.startswith("jobs-await-")
    st = err.value.outs["statuses"]
    assert st["one"]["reached"] is True and st["one"]["objective"] == 0.9
    assert st["s-1"]["objective"] == 0.7
    assert st["bad"]["reached"] is False and st["bad"]["failure"] == CAUSE and "tolerated" not in st["bad"]
    runs = err.value.outs["runs"]
    assert [r["phase"] for r in runs["one"]] == ["Completed"] and runs["one"][0]["objective"] == 0.9
    assert runs["bad"] == [{**runs["bad"][0], "phase": "Failed", "note": "exit code 3: boom"}]
    # the failed job is not settled: the next up (nothing changed) judges it again, and only it
    assert JobsAwaitProvider._changed(err.value.outs, jobs) == ["bad"]
    assert JobsAwaitProvider().diff("id", err.value.outs, {"jobs": jobs}).changes is True
    assert not any(line.startswith("warning:") for line in env.said)


def test_an_accepted_failure_is_recorded_as_failed_and_the_up_succeeds(env):  # noqa: F811
    client = sweep_client({"j1": "Completed", "j2": "Failed"}, {"j1": 0.9})
    jobs = {"one": plain("j1"), "bad": plain("j2", accept_failed=True)}
    res = provider(client).create({"jobs": jobs})
    bad = res.outs["statuses"]["bad"]
    assert bad["reached"] is False and bad["tolerated"] is True and bad["failure"] == CAUSE
    said = "\n".join(env.said)
    assert "accepted (acceptFailed): bad, recorded as failed and not waited for again" in said
    assert (f"warning: bad failed, accepted (acceptFailed): {CAUSE}; re-run it: replaceFailed: true, or pulumi up "
            "--replace <its URN>") in env.said
    # later ups with nothing changed: no wait, no call, and the warning again (diff runs at every preview and up)
    env.said.clear()
    calls = len(client.log)
    again = JobsAwaitProvider().diff("id", res.outs, {"jobs": jobs})
    assert again.changes is False and len(client.log) == calls
    assert env.said == [f"warning: bad failed, accepted (acceptFailed): {CAUSE}; re-run it: replaceFailed: true, or "
                        "pulumi up --replace <its URN>"]
    # no longer accepted: judged again; re-run (a new job id): waited for again
    assert JobsAwaitProvider._changed(res.outs, {**jobs, "bad": plain("j2")}) == ["bad"]
    assert JobsAwaitProvider._changed(res.outs, {**jobs, "bad": plain("j9", accept_failed=True)}) == ["bad"]


def test_an_accepted_failure_is_settled_even_when_another_job_fails_the_up(env):  # noqa: F811
    client = sweep_client({"j1": "Failed", "j2": "Failed"}, {})
    jobs = {"ok": plain("j1", accept_failed=True), "bad": plain("j2")}
    with pytest.raises(RecordedFailure) as err:
        provider(client).create({"jobs": jobs})
    lines = str(err.value).splitlines()
    assert lines[0] == "2 of 2 awaited training jobs did not reach their target: ok, bad"
    assert lines[1] == "accepted (acceptFailed): ok, recorded as failed and not waited for again"
    st = err.value.outs["statuses"]
    assert st["ok"]["tolerated"] is True and "tolerated" not in st["bad"]
    assert JobsAwaitProvider._changed(err.value.outs, jobs) == ["bad"]


def test_a_sweep_that_accepts_failures_never_crowns_a_failed_point(env):  # noqa: F811
    client = sweep_client({"j1": "Failed", "j2": "Failed", "j3": "Completed"}, {"j1": 0.99, "j3": 0.5})
    jobs = {"s-1": point("j1", "1", accept_failed=True), "s-2": point("j2", "2", accept_failed=True),
            "s-3": point("j3", "3", accept_failed=True)}
    res = provider(client).create({"jobs": jobs})  # no maxFailures: acceptFailed settles every point's failure
    st = res.outs["statuses"]
    assert st["s-1"]["tolerated"] and st["s-2"]["tolerated"] and "objective" not in st["s-1"]
    assert client.calls("log") == {"j3": 1}  # a failed point's log is never read for a value
    said = "\n".join(env.said)
    assert "s: 3 points, 2 failed; best s-3 (acc 0.5, max)" in said
    assert f"warning: sweep s: 2 failed points on record (acceptFailed), never its best: s-1 ({CAUSE}), s-2 ({CAUSE})" \
        in env.said


def test_settled_lines_name_a_few_keys_a_sweep_and_mask_each_jobs_own_secrets() -> None:
    jobs = {f"p{i}": {"group": "g"} for i in range(8)} | {"solo": {"accept_failed": True}}
    statuses = {k: {"tolerated": True, "failure": "Failed; exit code 1: token hunter2"} for k in jobs}
    statuses["p0"]["failure"] = "Failed; exit code 1: token s3cr3t-value"
    lines = settled_lines(jobs, statuses, {"g": 8}, {"p0": Secrets.of(["s3cr3t-value"]),
                                                     "solo": Secrets.of(["hunter2"])})
    assert lines[0] == ("warning: solo failed, accepted (acceptFailed): Failed; exit code 1: token ******; re-run it: "
                        "replaceFailed: true, or pulumi up --replace <its URN>")
    assert lines[1].startswith("warning: sweep g: 8 failed points on record (maxFailures 8), never its best: "
                               "p0 (Failed; exit code 1: token ******), p1 (")
    assert lines[1].endswith(" and 3 more") and "p5" not in lines[1] and len(lines) == 2
    # a failure not settled (the up failed on it) is no warning: the error said it
    assert settled_lines({"a": {}}, {"a": {"failure": "Failed"}}) == []


def test_the_diffs_warning_masks_a_jobs_own_secret_and_costs_nothing_without_settled_failures(env):  # noqa: F811
    jobs = {"bad": plain("j2", accept_failed=True), "ok": plain("j1")}
    statuses = {"bad": {"job_id": "j2", "wait_for": "completed", "phase": "Failed", "reached": False,
                        "tolerated": True, "failure": "Failed; exit code 1: token hunter2-not-for-logs"},
                "ok": {"job_id": "j1", "wait_for": "completed", "phase": "Completed", "reached": True,
                       "failure": "hunter2-not-for-logs"}}
    olds = {"jobs": jobs, "statuses": statuses,
            "secrets": {"bad": {"algorithm.environments.TOKEN": "hunter2-not-for-logs"}}}
    assert JobsAwaitProvider().diff("id", olds, {"jobs": jobs}).changes is False
    assert env.said == ["warning: bad failed, accepted (acceptFailed): Failed; exit code 1: token ******; re-run it: "
                        "replaceFailed: true, or pulumi up --replace <its URN>"]
    env.said.clear()
    settled_free = {**olds, "statuses": {**statuses, "bad": {**statuses["bad"], "tolerated": False}}}
    assert JobsAwaitProvider._settled(settled_free, []) == []


def test_a_recorded_failure_reaches_the_engine_as_an_init_error_with_its_outputs_and_the_provider() -> None:
    from google.protobuf import struct_pb2
    from pulumi.runtime.proto import provider_pb2, status_pb2

    from modelarts_provider.core.provider_server import _recorded
    from modelarts_provider.core.recorded_failure import init_failed_status

    err = RecordedFailure("1 of 2 awaited training jobs did not reach their target: bad", "jobs-await-abc",
                          {"statuses": {"bad": {"phase": "Failed", "reached": False}}, "phases": {"bad": "Failed"}})
    given = struct_pb2.Struct()
    given.update({"__provider": "pickled-provider", "jobs": {}})
    for request in (provider_pb2.CreateRequest(properties=given), provider_pb2.UpdateRequest(news=given)):
        status = init_failed_status(str(err), err.resource_id, _recorded(request, err))
        (key, blob), = status.trailing_metadata
        assert key == "grpc-status-details-bin" and status.details == str(err)
        detail = provider_pb2.ErrorResourceInitFailed()
        assert status_pb2.Status.FromString(blob).details[0].Unpack(detail)
        assert detail.id == "jobs-await-abc" and list(detail.reasons) == [str(err)]
        recorded = dict(detail.properties)
        assert recorded["__provider"] == "pickled-provider"  # the dynamic provider is found again next time
        assert recorded["phases"]["bad"] == "Failed" and recorded["statuses"]["bad"]["reached"] is False


def test_the_stack_configs_accept_failed_reaches_the_jobsawait_entries_of_the_job_and_of_every_point() -> None:
    from modelarts_provider.stack.config import StackConfigError, parse
    from modelarts_provider.stack.declare import scoring
    from modelarts_provider.stack.program import plan

    raw: dict[str, Any] = {"pools": {"gpu": {"flavor": "modelarts.p3.large.public"}},
                           "obs": {"main": {"bucket": "bucket-b"}},
                           "jobs": {"bad": {"pool": "gpu", "algorithmId": "x", "acceptFailed": True},
                                    "ok": {"pool": "gpu", "algorithmId": "x"}},
                           "sweeps": {"g": {"pool": "gpu", "algorithmId": "x", "grid": {"lr": [0.1, 0.2]},
                                            "acceptFailed": True}}}
    entries = scoring(plan(parse(raw, [])))
    assert entries["bad"] == {"accept_failed": True} and "ok" not in entries
    points = {k: v for k, v in entries.items() if k.startswith("g-")}
    assert len(points) == 2 and all(v["accept_failed"] is True and v["group"] == "g" for v in points.values())
    raw["jobs"]["bad"]["acceptFailed"] = "maybe"
    with pytest.raises(StackConfigError, match=r"^invalid stack config: modelarts-jobs:jobs\.bad\.acceptFailed: must be "
                                               r"a boolean \(true or false\), not a string 'maybe'$"):
        parse(raw, [])

"""The JobsAwait with objectives and maxFailures (issue 23), on the replay client and a virtual clock:
objectives read once per newly completed job, tolerated failures, the tables said at the end."""

from __future__ import annotations

from typing import Any

import pytest

from modelarts_provider.awaiting.provider import JobsAwaitProvider
from modelarts_provider.client.models import RunningRecord, TaskLogPreview
from modelarts_provider.core.provider_error import ProviderError
from modelarts_provider.core.recorded_failure import RecordedFailure
from tests.awaiting.replay import ReplayClient
from tests.awaiting.test_provider import env, provider, replay_job  # noqa: F401 - env is a fixture

OBJ = {"name": "acc", "regex": r"val_accuracy=([0-9.]+)", "goal": "max"}
FAIL = [{"task": "worker-0", "exit_code": 3, "message": "boom"}]


class ScoredClient(ReplayClient):
    """Replays job phases, and answers log previews with `logs[job id]`."""

    def __init__(self, jobs: list[dict[str, Any]], logs: dict[str, str]) -> None:
        super().__init__(jobs)
        self.logs = logs

    def get_task_log_preview(self, job_id: str, task: str) -> TaskLogPreview:
        with self._lock:
            self.log.append(("log", job_id))
        text = self.logs.get(job_id, "")
        return TaskLogPreview.model_validate({"content": text, "current_size": len(text), "full_size": len(text)})


def point(job_id: str, lr: str, **over: Any) -> dict[str, Any]:
    return {"job_id": job_id, "job_name": f"name-{job_id}", "wait_for": "completed", "timeout_seconds": 600,
            "poll_seconds": 5, "workspace_id": None, "objective": OBJ, "group": "s", "parameters": {"lr": lr},
            **over}


def sweep_client(phases: dict[str, str], values: dict[str, float | None]) -> ScoredClient:
    jobs = [replay_job(j, [p], task_statuses=FAIL) for j, p in phases.items()]
    logs = {j: "epoch 1 accuracy=0.1\n" + (f"validation: val_accuracy={v}\n" if v is not None else "no metrics\n")
            for j, v in values.items()}
    return ScoredClient(jobs, logs)


def test_objectives_are_read_once_per_completed_point_and_the_table_is_said(env):  # noqa: F811
    client = sweep_client({"j1": "Completed", "j2": "Completed", "j3": "Completed"},
                          {"j1": 0.8, "j2": 0.95, "j3": None})
    res = provider(client).create({"jobs": {"s-1": point("j1", "0.1"), "s-2": point("j2", "0.01"),
                                            "s-3": point("j3", "0.001")}})
    st = res.outs["statuses"]
    assert st["s-1"]["objective"] == 0.8 and st["s-2"]["objective"] == 0.95
    assert "objective" not in st["s-3"] and st["s-3"]["objective_note"].startswith("no match for")
    assert client.calls("log") == {"j1": 1, "j2": 1, "j3": 1}
    head = next(line for line in env.said if line.startswith("s: "))
    assert head == "s: 3 points, 1 completed with no value; best s-2 (acc 0.95, max)"
    rows = env.said[env.said.index(head) + 2:]
    assert rows[2] == "  not ranked (1: failed, no value or not done):", rows
    order = [next(k for k in ("s-1", "s-2", "s-3") if f" {k} " in row + " ") for row in rows if "not ranked" not in row]
    assert order == ["s-2", "s-1", "s-3"], rows


def test_a_failed_point_within_max_failures_is_tolerated_and_recorded(env):  # noqa: F811
    client = sweep_client({"j1": "Completed", "j2": "Failed"}, {"j1": 0.9})
    res = provider(client).create({"jobs": {"s-1": point("j1", "0.1"), "s-2": point("j2", "0.01")},
                                   "max_failures": {"s": 1}})
    bad = res.outs["statuses"]["s-2"]
    assert bad["reached"] is False and bad["tolerated"] is True and bad["failure"] == "Failed; exit code 3: boom"
    assert client.calls("log") == {"j1": 1}  # the failed point's objective is not read
    said = "\n".join(env.said)
    assert "tolerated: sweep s has 1 failed point, within its maxFailures (1)" in said
    assert "s: 2 points, 1 failed; best s-1 (acc 0.9, max)" in said
    # settled: the next up neither waits for it nor reads a log
    assert JobsAwaitProvider().diff("id", res.outs, {"jobs": {"s-1": point("j1", "0.1"), "s-2": point("j2", "0.01")},
                                                     "max_failures": {"s": 1}}).changes is False
    # a lower bound judges it again
    assert JobsAwaitProvider().diff("id", res.outs, {"jobs": {"s-1": point("j1", "0.1"), "s-2": point("j2", "0.01")},
                                                     "max_failures": {}}).changes is True


def test_more_failures_than_max_failures_fail_the_up_saying_so(env):  # noqa: F811
    client = sweep_client({"j1": "Failed", "j2": "Failed", "j3": "Completed"}, {"j3": 0.5})
    with pytest.raises(ProviderError) as err:
        provider(client).create({"jobs": {"s-1": point("j1", "1"), "s-2": point("j2", "2"), "s-3": point("j3", "3")},
                                 "max_failures": {"s": 1}})
    lines = str(err.value).splitlines()
    assert lines[0] == "2 of 3 awaited training jobs did not reach their target: s-1, s-2"
    assert lines[1] == "sweep s: 2 failed points, more than its maxFailures (1)"
    assert "- 2 jobs: Failed; exit code 3: boom" in lines


def test_by_default_a_failed_point_fails_the_up_and_the_completed_one_is_scored_on_record(env):  # noqa: F811
    client = sweep_client({"j1": "Failed", "j2": "Completed"}, {"j2": 0.5})
    with pytest.raises(RecordedFailure) as err:
        provider(client).create({"jobs": {"s-1": point("j1", "1"), "s-2": point("j2", "2")}})
    assert isinstance(err.value, ProviderError)
    assert str(err.value).splitlines()[1].startswith("- s-1: training job name-j1 (j1) is Failed")
    # issue 56: the point that completed is scored (one log read) and recorded with the failure, never its best
    assert client.calls("log") == {"j2": 1}
    statuses = err.value.outs["statuses"]
    assert statuses["s-2"]["objective"] == 0.5 and statuses["s-2"]["reached"] is True
    assert statuses["s-1"]["reached"] is False and "tolerated" not in statuses["s-1"]
    assert statuses["s-1"]["failure"] == "Failed; exit code 3: boom"
    assert [r["phase"] for r in err.value.outs["runs"]["s-1"]] == ["Failed"]
    assert "s: 2 points, 1 failed; best s-2 (acc 0.5, max)" in "\n".join(env.said)


def test_an_unchanged_scored_state_has_no_diff_and_a_new_objective_has_one(env):  # noqa: F811
    client = sweep_client({"j1": "Completed"}, {"j1": 0.7})
    jobs = {"s-1": point("j1", "0.1")}
    outs = provider(client).create({"jobs": jobs}).outs
    assert JobsAwaitProvider().diff("id", outs, {"jobs": jobs}).changes is False
    other = {"s-1": point("j1", "0.1", objective={**OBJ, "goal": "min"})}
    assert JobsAwaitProvider().diff("id", outs, {"jobs": other}).changes is True


def test_update_reads_only_the_new_points_log_and_keeps_the_others_values(env):  # noqa: F811
    client = sweep_client({"j1": "Completed", "j2": "Completed"}, {"j1": 0.7, "j2": 0.75})
    first = provider(client).create({"jobs": {"s-1": point("j1", "0.1")}}).outs
    client.log.clear()
    env.said.clear()
    res = provider(client).update("id", first, {"jobs": {"s-1": point("j1", "0.1"), "s-2": point("j2", "0.2")}})
    assert client.calls("log") == {"j2": 1} and "j1" not in {d for _, d in client.log}
    assert res.outs["statuses"]["s-1"]["objective"] == 0.7 and res.outs["statuses"]["s-2"]["objective"] == 0.75
    assert "s: 2 points; best s-2 (acc 0.75, max)" in env.said


class RetriedClient(ScoredClient):
    """Completed views carrying two running records: the service restarted the job once."""

    def _view(self, job_id: str, phase: str) -> Any:
        view = super()._view(job_id, phase)
        view.status.running_records = [RunningRecord(start_at=1, end_at=2, end_reason="node fault"),
                                        RunningRecord(start_at=3, start_type="init_or_rescheduled")]
        view.status.duration = 42_000
        return view


def test_a_retried_point_is_shown_as_such(env):  # noqa: F811
    client = RetriedClient([replay_job("j1", ["Completed"])], {"j1": "val_accuracy=0.5\n"})
    res = provider(client).create({"jobs": {"s-1": point("j1", "0.1")}})
    assert res.outs["statuses"]["s-1"]["retries"] == 1 and res.outs["statuses"]["s-1"]["duration_s"] == 42
    row = env.said[env.said.index("s: 1 point; best s-1 (acc 0.5, max)") + 2]
    assert row.split()[-2:] == ["retried", "1x"] and "42s" in row.split()


LOSS = {"name": "loss", "regex": r"epoch (?P<epoch>[0-9]+) loss=([0-9.]+)", "goal": "min"}


def test_metric_curves_come_from_the_same_one_read_and_show_in_the_table(env):  # noqa: F811
    client = sweep_client({"j1": "Completed", "j2": "Completed"}, {"j1": 0.8, "j2": 0.9})
    client.logs = {j: "".join(f"epoch {k} loss={v / k:.4g}\n" for k in (1, 2, 3)) + f"validation: val_accuracy={a}\n"
                   for j, v, a in (("j1", 1.2, 0.8), ("j2", 0.9, 0.9))}
    res = provider(client).create({"jobs": {"s-1": point("j1", "0.1", metrics=[LOSS]),
                                            "s-2": point("j2", "0.01", metrics=[LOSS])}})
    st = res.outs["statuses"]
    assert client.calls("log") == {"j1": 1, "j2": 1}  # objective and curves: one read per job
    assert st["s-1"]["metrics"]["loss"]["points"] == [[1.0, 1.2], [2.0, 0.6], [3.0, 0.4]]
    assert st["s-2"]["metrics"]["loss"]["last"] == 0.3 and st["s-2"]["metrics"]["acc"]["points"] == [[1.0, 0.9]]
    head = next(line for line in env.said if line.startswith("s: "))
    table = env.said[env.said.index(head) + 1:]
    assert table[0].split() == ["#", "lr", "phase", "acc", "loss", "duration", "key"]
    assert table[1].split()[:5] == ["1", "0.01", "Completed", "0.9", "0.3"]


def test_changed_metrics_read_the_logs_again_and_unchanged_ones_nothing() -> None:
    olds = {"jobs": {"a": point("j1", "0.1", metrics=[LOSS])},
            "statuses": {"a": {"job_id": "j1", "wait_for": "completed", "phase": "Completed", "reached": True}}}
    assert JobsAwaitProvider._changed(olds, {"a": point("j1", "0.1", metrics=[LOSS])}) == []
    assert JobsAwaitProvider._changed(olds, {"a": point("j1", "0.1", metrics=[{**LOSS, "goal": "max"}])}) == ["a"]
    assert JobsAwaitProvider._changed(olds, {"a": point("j1", "0.1")}) == ["a"]


def test_a_bad_metric_is_refused_at_check_naming_the_field() -> None:
    bad = point("j1", "0.1", metrics=[{"name": "loss", "regex": r"(\d+) loss=([0-9.]+)"}])
    result = JobsAwaitProvider().check({}, {"jobs": {"a": bad}})
    assert [(f.property, f.reason) for f in result.failures] == [
        ("jobs.a.metrics[0].regex", "needs exactly one group around the number (besides a step or epoch group), "
                                    "e.g. loss=([0-9.]+); it has 2")], result.failures

"""failure_log_tail: the failing tasks' last lines, indented and labelled; never raises, never leaks."""

from __future__ import annotations

from typing import Any

import pytest

from modelarts_provider.client import ModelArtsError, TrainingJob
from modelarts_provider.client.models import TaskLogPreview
from modelarts_provider.core.job_logs import INDENT, failing_tasks, failure_log_tail, safe_line

from tests.emulator.helpers import wait_phase

from .conftest import SECRET_ENV_VALUE, client_for, finished, started

pytestmark = pytest.mark.timeout(120)


def test_tail_of_a_failed_job(emu, client, make_job) -> None:
    created = make_job("boom", outcome="fail", exit_code=3, epochs=40)
    finished(emu)
    job = wait_phase(client, created.id, {"Failed"})
    tail = failure_log_tail(client, job)
    full = client.get_task_log_preview(job.id, "worker-0").text.splitlines()
    assert len(full) > 20
    head, *lines = tail.split("\n")[1:]
    assert tail.startswith("\n") and head == "last 20 lines of worker-0:"
    assert lines == [INDENT + line for line in full[-20:]]
    assert lines[-1].endswith(f"ERROR exit code 3: {job.task_statuses[0].message}")
    assert emu.counters()["logs"] == 2  # one fetch for the tail (the other is this test's)
    assert failure_log_tail(client, job, lines=5).count("\n" + INDENT) == 5


def test_only_failing_tasks_and_short_logs(emu, client, make_job) -> None:
    created = make_job("pair", outcome="fail", exit_code=2, nodes=2, epochs=2)
    finished(emu)
    job = wait_phase(client, created.id, {"Failed"})
    statuses = job.to_wire()["status"]["task_statuses"]
    statuses[0]["exit_code"] = 0  # as if only worker-1 failed
    one_failed = TrainingJob.model_validate({**job.to_wire(), "status": {**job.to_wire()["status"],
                                                                         "task_statuses": statuses}})
    assert failing_tasks(one_failed) == ["worker-1"] and failing_tasks(job) == ["worker-0", "worker-1"]
    tail = failure_log_tail(client, one_failed)
    assert "last 20 lines of worker-1:" in tail and "worker-0:" not in tail
    full = client.get_task_log_preview(job.id, "worker-1").text.splitlines()
    boilerplate = [line for line in full if "[ModelArts Service Log] env MA_" in line
                   or "[ModelArts Service Log] env VC_" in line]
    assert boilerplate, "the service lists its environment in the log"
    assert tail.count("\n" + INDENT) == len(full) - len(boilerplate)  # every line but the environment listing
    assert "env MA_" not in tail and "env VC_" not in tail


def test_running_or_timed_out_job_shows_every_task(emu, client, make_job) -> None:
    created = make_job("slow", outcome="hang", nodes=2)
    started(emu)
    job = wait_phase(client, created.id, {"Running"})
    tail = failure_log_tail(client, job, lines=3)
    assert "last 3 lines of worker-0:" in tail and "last 3 lines of worker-1:" in tail
    client.terminate_job(job.id)


def test_no_secret_from_the_environment_or_the_credentials(emu, client, make_job) -> None:
    env = {"HW_SECRET_KEY": SECRET_ENV_VALUE, "DB_PASSWORD": "pw-" + SECRET_ENV_VALUE, "MY_AK": "AKVALUE0001",
           "PLAIN": emu.secret_key}  # a credential value under an innocent name: redacted by value
    created = make_job("leaky", outcome="fail", env=env, epochs=1)
    finished(emu)
    job = wait_phase(client, created.id, {"Failed"})
    tail = failure_log_tail(client, job, lines=100)
    assert "HW_SECRET_KEY=******" in tail and "MY_AK=******" in tail and "PLAIN=***" in tail
    for secret in (SECRET_ENV_VALUE, "AKVALUE0001", emu.secret_key):
        assert secret not in tail


def test_fetch_failure_is_one_line_and_never_raises(emu, client, make_job) -> None:
    created = make_job("unreachable", outcome="fail")
    finished(emu)
    job = wait_phase(client, created.id, {"Failed"})
    emu.set_faults([{"operation": "any", "kind": "status", "status": 500, "times": 50}])
    tail = failure_log_tail(client, job)
    emu.clear_faults()
    assert tail.startswith("\n(logs of worker-0 unavailable: ") and tail.endswith(")")
    assert tail.count("\n") == 1 and "ModelArts.0010" in tail

    with client_for(emu, credentials={"access_key": emu.access_key, "secret_key": "wrong-secret-999"}) as bad:
        tail = failure_log_tail(bad, job)
    assert "unavailable" in tail and "APIGW.0301" in tail and "wrong-secret-999" not in tail
    assert tail.count("\n") == 1

    with client_for(emu, endpoint="http://127.0.0.1:9", retry_total_s=0.5, max_retries=0) as gone:
        tail = failure_log_tail(gone, job)
    assert tail.startswith("\n(logs of worker-0 unavailable: ") and tail.count("\n") == 1


class Exploding:
    """Not even a ModelArtsError: a bug, a broken proxy; the secret is in the exception text."""

    def _secret_values(self) -> list[str]:
        return ["hunter2-very-secret"]

    def get_task_log_preview(self, job_id: str, task_id: str) -> TaskLogPreview:
        raise RuntimeError("proxy said:\n  bad gateway for key hunter2-very-secret\n")


def job_of(status: dict[str, Any], job_id: str | None = "j-1") -> TrainingJob:
    return TrainingJob.model_validate({"metadata": {"id": job_id, "name": "n"}, "status": status})


def test_unexpected_errors_and_odd_jobs() -> None:
    tail = failure_log_tail(Exploding(), job_of({"phase": "Failed"}))
    assert tail == "\n(logs of worker-0 unavailable: RuntimeError: proxy said: bad gateway for key ******)"
    assert failure_log_tail(Exploding(), job_of({}, job_id=None)) == "\n(logs unavailable: the job has no id)"

    class Empty(Exploding):
        def get_task_log_preview(self, job_id: str, task_id: str) -> TaskLogPreview:
            return TaskLogPreview(content="\n\n")

    assert failure_log_tail(Empty(), job_of({"tasks": ["worker-0"]})) == "\n(the log of worker-0 is empty)"

    class Many(Empty):
        def get_task_log_preview(self, job_id: str, task_id: str) -> TaskLogPreview:
            return TaskLogPreview(content=f"{task_id} failed\n")

    statuses = [{"task": f"worker-{i}", "exit_code": 1} for i in range(6)]
    tail = failure_log_tail(Many(), job_of({"task_statuses": statuses}))
    assert tail.count("last 20 lines of") == 4 and tail.endswith("\n(2 more failing tasks not shown)")

    # an unreachable service is not asked again for each task (the client already retried)
    calls: list[str] = []

    class Down(Empty):
        def get_task_log_preview(self, job_id: str, task_id: str) -> TaskLogPreview:
            calls.append(task_id)
            raise ModelArtsError("connection refused", error_code="Client.ConnectionError")

    tail = failure_log_tail(Down(), job_of({"task_statuses": statuses[:3]}))
    assert calls == ["worker-0"]
    assert tail == ("\n(logs of worker-0 unavailable: Client.ConnectionError connection refused)"
                    "\n(2 more failing tasks not fetched)")

    class OneBadTask(Many):  # a refusal about one task (4xx) does not stop the others
        def get_task_log_preview(self, job_id: str, task_id: str) -> TaskLogPreview:
            if task_id == "worker-0":
                raise ModelArtsError("no such task", status=400, error_code="ModelArts.2788")
            return super().get_task_log_preview(job_id, task_id)

    tail = failure_log_tail(OneBadTask(), job_of({"task_statuses": statuses[:2]}))
    assert tail == ("\n(logs of worker-0 unavailable: ModelArts.2788 no such task (HTTP 400))"
                    "\nlast 20 lines of worker-1:\n    worker-1 failed")


def test_safe_line() -> None:
    assert safe_line("export AWS_SECRET_ACCESS_KEY=abc123 x=1") == "export AWS_SECRET_ACCESS_KEY=****** x=1"
    assert safe_line('token: "a b c" next') == 'token: "******" next'
    assert safe_line("Authorization: Bearer abcdefgh12345") == "Authorization: ******"
    assert safe_line("curl -H 'x' bearer abcdefgh12345") == "curl -H 'x' bearer ******"
    assert safe_line("KeyError: 'epochs'") == "KeyError: 'epochs'"  # a traceback stays readable
    assert safe_line("MA_TASK_NAME=worker-0 loss=0.1") == "MA_TASK_NAME=worker-0 loss=0.1"
    assert safe_line("\x1b[31mred\x1b[0m\tdone\r") == "red    done"
    assert safe_line("x" * 1000).endswith("…") and len(safe_line("x" * 1000)) == 400
    assert safe_line("uses the-sk-value here", ["the-sk-value"]) == "uses ****** here"


class PrintsSecrets:
    """A task log with the shapes a training script prints, and a job secret input (not from config)."""

    LOG = ("ERROR: HF_TOKEN=hf_abcdefghij123\n"
           "WARNING:root:API_KEY=sk-live-zyxwvu987\n"
           "{'api_key': 'py-dict-secret-55', 'lr': 0.1}\n"
           '{"token": "json-secret-66", "epoch": 3}\n'
           "launching python train.py --hf-token x --lr 0.1\n"
           "connecting with pin 9Q\n"
           "epoch 3/4 loss=0.2 accuracy=0.91\n")

    def get_task_log_preview(self, job_id: str, task_id: str) -> TaskLogPreview:
        return TaskLogPreview.model_validate({"content": self.LOG})


def test_the_failure_report_masks_secret_shapes_and_the_jobs_secret_inputs() -> None:
    from modelarts_provider.core.job_secrets import of_props

    # The job's own secrets, from its inputs: a secret input at a recorded path (handed in, never learnt).
    secrets = of_props({"algorithm": {"environments": {"PIN": "9Q"}}, "secret_paths": ["algorithm.environments.PIN"]})
    job = job_of({"phase": "Failed", "task_statuses": [{"task": "worker-0", "exit_code": 1}]})
    tail = failure_log_tail(PrintsSecrets(), job, known=secrets)
    for secret in ("hf_abcdefghij123", "sk-live-zyxwvu987", "py-dict-secret-55", "json-secret-66", "--hf-token x",
                   "pin 9Q"):
        assert secret not in tail, tail
    assert "ERROR: HF_TOKEN=******" in tail and "--hf-token ******" in tail and "pin ******" in tail
    assert "epoch 3/4 loss=0.2 accuracy=0.91" in tail  # the rest stays readable

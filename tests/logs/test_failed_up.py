"""A failed `pulumi up` says why: its error carries the failing task's last log lines.

The waiting code (awaiting/report.py) appends failure_log_tail(client, job) to the error of a job
that failed or timed out.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from modelarts_provider.client.models import TrainingJob
from tests.e2e.test_training_jobs import job, make_stack
from testkit.faults import up_advancing

from .conftest import FINISHED, SECRET_ENV_VALUE, client_for
from .test_logs_cli import logs

pytestmark = [pytest.mark.timeout(300), pytest.mark.engine]


def test_failed_up_shows_the_failing_tasks_last_log_lines(tmp_path: Path, emu: Any) -> None:
    fail = {"emulator/outcome": "fail", "emulator/exit-code": "3", "emulator/run-seconds": "0.5"}
    st = make_stack(tmp_path, emu, {"bad": job(name="bad-job", waitFor="completed", annotations=fail,
                                               environments={"HW_SECRET_KEY": SECRET_ENV_VALUE})})
    up = up_advancing(st, emu, FINISHED, log=tmp_path / "up.log", check=False)  # the job fails once let go
    assert up.returncode != 0
    text = up.stdout + up.stderr
    (live,) = emu.jobs()
    with client_for(emu) as client:
        log = client.get_task_log_preview(TrainingJob.model_validate(live).id, "worker-0").text
    last = log.splitlines()[-1]
    assert last.endswith("ERROR exit code 3: Training process of worker-0 exited with code 3.")
    assert "last 20 lines of worker-0:" in text
    # it reads well: which job failed and why first, one line; no grpc prefix; no environment listing
    lines = [line.strip() for line in text.splitlines()]
    heads = [i for i, line in enumerate(lines) if line.endswith("awaited training jobs did not reach their target: bad")]
    assert any(lines[i + 1].startswith("- bad: training job bad-job") for i in heads), text  # the diagnostics
    assert "Exception calling application" not in text, text
    assert "env MA_" not in text and "env VC_" not in text, text
    assert last in text  # the emulator's last log line, as it is
    for secret in (SECRET_ENV_VALUE, emu.secret_key):
        assert secret not in text

    # the failed up exported nothing: the logs command finds the job in the state
    assert "jobs" not in st.outputs()
    shown = logs(st, "bad")
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout == log.replace(SECRET_ENV_VALUE, "******") and shown.stdout.endswith(last + "\n")
    assert SECRET_ENV_VALUE not in shown.stdout + shown.stderr

"""Fixtures of the log tests: one emulator per module (reset per test), a client, jobs.

The emulator's phases outlast any test (HELD): a test moves its jobs on with the clock (`started`,
`finished`), so what it sees never depends on how fast the machine is.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Callable

import pytest

from modelarts_emulator.testing import RunningEmulator
from tests.emulator.helpers import HELD
from modelarts_provider.client import AkSkCredentials, ClientSettings, ModelArtsClient, TrainingJob

ALGORITHM_ID = "8d1b2f4c-5a6e-4f70-9b81-c2d3e4f5a6b7"  # in the emulator catalog
CPU = "modelarts.vm.cpu.2u"
SECRET_ENV_VALUE = "sk-live-do-not-print-4242"  # a secret-looking env var's value: never shown
STARTED = 2 * HELD["phase_seconds"]  # a clock step from Creating to Running
FINISHED = STARTED + HELD["run_seconds"] + 1  # a clock step that ends every job (but hanging ones)


# `module_emu` and `emu` (one emulator per module, HELD times, reset per test) come from tests/conftest.py.


def client_for(emu: RunningEmulator, **over: Any) -> ModelArtsClient:
    settings = dict(region="cn-north-4", project_id=emu.project_id, endpoint=emu.url,
                    credentials=AkSkCredentials(access_key=emu.access_key, secret_key=emu.secret_key),
                    backoff_factor=0.05, backoff_max=0.2, retry_total_s=5)
    settings.update(over)
    return ModelArtsClient(ClientSettings(**settings))


@pytest.fixture
def client(emu: RunningEmulator) -> Iterator[ModelArtsClient]:
    with client_for(emu) as c:
        yield c


def job_body(name: str, *, outcome: str = "complete", exit_code: int | None = None,
             run_seconds: float | None = None, epochs: int = 3, nodes: int = 1,
             env: dict[str, str] | None = None) -> dict[str, Any]:
    annotations = {"emulator/outcome": outcome}
    if exit_code is not None:
        annotations["emulator/exit-code"] = str(exit_code)
    if run_seconds is not None:
        annotations["emulator/run-seconds"] = str(run_seconds)
    return {
        "kind": "job",
        "metadata": {"name": name, "annotations": annotations},
        "algorithm": {"id": ALGORITHM_ID, "parameters": [{"name": "epochs", "value": str(epochs)}],
                      "environments": env if env is not None else {"HW_SECRET_KEY": SECRET_ENV_VALUE,
                                                                   "NCCL_DEBUG": "INFO"}},
        "spec": {"resource": {"flavor_id": CPU, "node_count": nodes}},
    }


@pytest.fixture
def make_job(client: ModelArtsClient) -> Callable[..., TrainingJob]:
    def make(name: str, **kw: Any) -> TrainingJob:
        return client.create_job(job_body(name, **kw))  # type: ignore[arg-type]
    return make


def started(emu: RunningEmulator) -> None:
    """Every job created so far is Running (or past it)."""
    emu.advance(STARTED)


def finished(emu: RunningEmulator) -> None:
    """Every job created so far (with the default run time) has ended."""
    emu.advance(FINISHED)

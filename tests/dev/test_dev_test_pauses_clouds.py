"""`./dev test` after the README's `./dev up`: the local clouds that `./dev up` left running hold the fixed ports the
suite tests ./dev on (tests/team_state/test_dev_obs_backend.py). ./dev test pauses this checkout's clouds for the run
and starts them again after it with the flags they had, their state kept; while a job still runs in the local
ModelArts, it waits for it up to a minute (MODELARTS_TEST_JOB_WAIT_S), then leaves them alone and says why.

Runs ./dev's clouds on their fixed ports (8780-8782), with their state in a temporary MODELARTS_STATE; a nested
`./dev test` of one small test stands for the suite.
"""

from __future__ import annotations

import json
import os
import urllib.request
from pathlib import Path

import pytest

from tests.team_state.test_dev_obs_backend import PORTS, _busy, _dev, require_free_ports

CLOUDS = ("emulator", "obs", "billing")
SMALL_TEST = "tests/docs/test_doc_links.py::test_every_key_of_a_job_and_a_sweep_is_documented"
ALGORITHM_ID = "8d1b2f4c-5a6e-4f70-9b81-c2d3e4f5a6b7"  # in the emulator catalog: simulated, not executed
# The full tier's: `./dev test --fast` (the edit loop, often beside a running ./dev up) pauses nothing, and this
# test needs the ports those clouds hold; the nested ./dev test also runs the set-up, engine included.
pytestmark = [pytest.mark.fixed_ports, pytest.mark.engine]


def _pids(state: Path) -> dict[str, str]:
    return {c: (state / f"{c}.pid").read_text().strip() for c in CLOUDS if (state / f"{c}.pid").exists()}


def _argv(pid: str) -> list[str]:
    return Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")


def _jobs() -> list[dict]:
    with urllib.request.urlopen("http://127.0.0.1:8780/_emulator/jobs", timeout=5) as r:
        return json.load(r)["items"]


def _submit_job() -> None:
    """One simulated job through the API, signed as a client signs: it runs as long as the emulator's --run-seconds."""
    import requests

    from modelarts_emulator.config import DEFAULT_ACCESS_KEY, DEFAULT_PROJECT_ID, DEFAULT_SECRET_KEY
    from modelarts_provider.client.signer import SdkHmacAuth

    body = {"kind": "job", "metadata": {"name": "still-running", "description": "paused clouds test"},
            "algorithm": {"id": ALGORITHM_ID}, "spec": {"resource": {"flavor_id": "modelarts.vm.cpu.2u"}}}
    r = requests.post(f"http://127.0.0.1:8780/v2/{DEFAULT_PROJECT_ID}/training-jobs", json=body, timeout=10,
                      auth=SdkHmacAuth(DEFAULT_ACCESS_KEY, DEFAULT_SECRET_KEY, None, project_id=DEFAULT_PROJECT_ID))
    assert r.status_code == 201, r.text


def test_dev_test_pauses_idle_clouds_and_starts_them_again_and_leaves_a_running_job_alone(tmp_path: Path) -> None:
    require_free_ports()
    state = tmp_path / "state"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PULUMI_", "PYTEST_"))}
    env["MODELARTS_STATE"] = str(state)
    try:
        for cloud, extra in (("emulator", ["--gpus", "none", "--run-seconds", "300"]), ("obs", []), ("billing", [])):
            started = _dev(env, cloud, "start", *extra)
            assert started.returncode == 0, started.stderr
        before = _pids(state)
        assert set(before) == set(CLOUDS)

        # Idle: paused for the run, started again after it, the emulator with the flag it had.
        run = _dev(env, "test", SMALL_TEST, "-n", "0", "-q", "-p", "no:cacheprovider")
        assert run.returncode == 0, run.stdout + run.stderr
        assert "dev: pausing the local clouds of ./dev up (emulator obs billing) for the test suite" in run.stderr
        after = _pids(state)
        assert set(after) == set(CLOUDS) and all(after[c] != before[c] for c in CLOUDS), (before, after)
        assert _argv(after["emulator"])[-5:-1] == ["--gpus", "none", "--run-seconds", "300"], _argv(after["emulator"])
        assert all(_busy(p) for p in PORTS)

        # A job still running there past the wait: nothing is stopped, and the run says why.
        _submit_job()
        assert any(j["status"]["phase"] in ("Creating", "Pending", "Running") for j in _jobs())
        run = _dev({**env, "MODELARTS_TEST_JOB_WAIT_S": "2"}, "test", SMALL_TEST, "-n", "0", "-q", "-p",
                   "no:cacheprovider")
        assert run.returncode == 0, run.stdout + run.stderr
        assert "dev: waiting up to 2 s for the 1 job(s) still running in the local ModelArts" in run.stderr
        assert "has 1 job(s) still running: its clouds stay as they are" in run.stderr, run.stderr
        assert _pids(state) == after
        assert [j["metadata"]["name"] for j in _jobs()] == ["still-running"]  # the emulator's data is its own
    finally:
        for cloud in CLOUDS:
            _dev(env, cloud, "stop", timeout=60)

"""`pulumi up --replace <job urn>` re-runs the job (issue 43, finding 1), under the real engine, through the
repository's stack program and a YAML program, against the local ModelArts.

The engine replaces a targeted resource without asking its provider (no diff) and checks the replacement with no
old inputs: the replacement derives the name and owner token of the job it replaces, as after a killed `up`.
It must never take that job over (the engine then deletes "the old one", i.e. the same job, while the state says
it exists): the state still holds it, so the replacement is a new run under the next generation of the name, and
the old run goes by the run-history rules (docs/run-history.md): deleted only after its successor was accepted,
recorded in the `runs` history."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from testkit.faults import job, job_stack, output_of, phase_of, state_job_ids, wait_until

pytestmark = pytest.mark.engine

RUNNING = {}  # the emulator's run_seconds: longer than the test
COMPLETES = {"emulator/run-seconds": "0"}
FAILS = {"emulator/outcome": "fail", "emulator/run-seconds": "0"}
WANTED = {"run": "Running", "done": "Completed", "bad": "Failed"}


@pytest.fixture
def emu(tmp_path: Path, pulumi_engine: Path) -> Any:
    from modelarts_emulator.testing import running_emulator

    with running_emulator(tmp_path / "emulator", phase_seconds=0.2, run_seconds=600) as e:
        yield e


def _phases(emu: Any) -> dict[str, str]:
    return {j["metadata"]["annotations"]["modelarts-pulumi/owner"].rsplit("::", 1)[-1]: phase_of(j)
            for j in emu.jobs()}


def _urn(st: Any, key: str, type_suffix: str = ":TrainingJob") -> str:
    (urn,) = [r["urn"] for r in st.resources()
              if r.get("type", "").endswith(type_suffix) and r["urn"].endswith(f"::{key}") and not r.get("delete")]
    return urn


def _assert_replaced(st: Any, emu: Any, before: dict[str, str], text: str, *, lines: bool = True) -> None:
    held = set(state_job_ids(st).values())  # the state holds one job per key: the new runs
    live = {j["metadata"]["id"]: j for j in emu.jobs()}
    assert len(held) == 3 and held <= set(live), (held, sorted(live))
    after = {j["metadata"]["annotations"]["modelarts-pulumi/owner"].rsplit("::", 1)[-1]: j
             for i, j in live.items() if i in held}
    assert set(after) == set(WANTED)
    for key, old_id in before.items():
        new = after[key]
        assert new["metadata"]["id"] != old_id, (key, text)  # a new run, not the old job taken over
        assert "taking over" not in text, text
        old = live.get(old_id)  # issue 41: a finished old run stays in the service as a record (kept by default)
        assert old is None or phase_of(old) in ("Completed", "Failed", "Terminated", "Abnormal"), (key, old)
    assert phase_of(live[before["done"]]) == "Completed" and phase_of(live[before["bad"]]) == "Failed"
    assert not [j for i, j in live.items() if i not in held and phase_of(j) in ("Running", "Pending", "Creating")]
    for key in before if lines else ():  # the provider's lines (the plugin's go to the engine's log)
        gone = max(text.rfind(": deleted"), text.rfind(": kept in the service"))
        assert text.index(f"submitted {after[key]['metadata']['id']}") < gone, text
    # The state and the service agree and stay so: the next preview plans nothing.
    st.preview("--expect-no-changes")


def test_up_replace_reruns_running_failed_and_completed_jobs(tmp_path: Path, emu: Any) -> None:
    st = job_stack(tmp_path, emu, jobs={
        "run": job(waitFor="created"),
        "done": job(waitFor="created", annotations=COMPLETES, parameters={"lr": 0.02}),
        "bad": job(waitFor="none", annotations=FAILS, parameters={"lr": 0.03}),  # no wait: it fails again
    })
    st.up()
    wait_until(lambda: _phases(emu) == WANTED, 60, what="a running, a completed and a failed job")
    before = {j["metadata"]["annotations"]["modelarts-pulumi/owner"].rsplit("::", 1)[-1]: j["metadata"]["id"]
              for j in emu.jobs()}
    names_before = set(state_job_ids(st))

    up = st.up(*[arg for key in WANTED for arg in ("--replace", _urn(st, key))])
    text = output_of(up)
    _assert_replaced(st, emu, before, text)
    assert not names_before & set(state_job_ids(st)), text  # each run has a name of its own
    runs = st.outputs()["runs"]
    for key, old_id in before.items():  # the old runs stay on record (the waited ones)
        if key == "bad":
            continue
        assert old_id in [r["jobId"] for r in runs.get(key, [])], (key, runs)


# --- the same through the provider plugin (a Pulumi YAML program) ----------------------------------------------

ALGORITHM_ID = "8d1b2f4c-5a6e-4f70-9b81-c2d3e4f5a6b7"  # in the emulator catalog


def _yaml_job(lr: str, annotations: dict[str, str]) -> dict[str, Any]:
    props: dict[str, Any] = {"algorithm": {"id": ALGORITHM_ID, "parameters": [{"name": "lr", "value": lr}]},
                             "flavorId": "modelarts.vm.cpu.2u", "pollIntervalSeconds": 0.2}
    if annotations:
        props["annotations"] = annotations
    return {"type": "modelarts:index:TrainingJob", "properties": props}


def test_plugin_up_replace_reruns_running_failed_and_completed_jobs(tmp_path: Path, emu: Any) -> None:
    from testkit.plugin_program import yaml_stack

    resources = {"run": _yaml_job("0.1", RUNNING), "done": _yaml_job("0.2", COMPLETES),
                 "bad": _yaml_job("0.3", FAILS)}
    st = yaml_stack(tmp_path, emu, resources, {k: f"${{{k}.jobId}}" for k in resources})
    st.up()
    wait_until(lambda: _phases(emu) == WANTED, 60, what="a running, a completed and a failed job")
    before = {k: st.outputs()[k] for k in WANTED}

    up = st.up(*[arg for key in WANTED for arg in ("--replace", _urn(st, key))])
    text = output_of(up)
    _assert_replaced(st, emu, before, text, lines=False)
    assert {k: st.outputs()[k] for k in WANTED} == {
        k: j["metadata"]["id"] for k, j in
        ((j["metadata"]["annotations"]["modelarts-pulumi/owner"].rsplit("::", 1)[-1], j) for j in emu.jobs())}

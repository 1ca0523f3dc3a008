"""Issue 54 under the real engine: an owner mark that proves itself (core/ownership.py). Each case broke the promise
"never touch what is not ours" before the proof, and each runs through both front doors (the stack program and a
YAML program) on a local ModelArts that answers normally and on one that drops annotations, as the service may:

1. an edit of a finished job whose stack declares no tags keeps the finished run (its proof is in the tags, always);
2. a colleague's job carrying a copy of our job's tags is never stopped or deleted (the proof names our job);
3. a copied stack (export, URNs renamed, import) never deletes the original's runs (keepRuns: 1) nor its running job
   at destroy (the proof names the original stack).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from testkit.emulators import fresh_emulator
from testkit.faults import PROJECT, copied_stack, job, job_stack, output_of, phase_of, state_job_ids, update_config
from testkit.harness import Stack
from testkit.plugin_program import write_program, yaml_stack
from tests.e2e.test_plugin_yaml import ALGORITHM_ID, CPU, _create_outside
from tests.e2e.test_sweep_results import client_of

pytestmark = pytest.mark.engine

answering_emu = fresh_emulator("answering_emu", phase_seconds=0.2, run_seconds=600)
dropping_emu = fresh_emulator("dropping_emu", phase_seconds=0.2, run_seconds=600, drop_annotations=True)
SERVICES = ["answering_emu", "dropping_emu"]


def _yaml_job(epochs: int, **extra: Any) -> dict[str, Any]:
    return {"type": "modelarts:index:TrainingJob",
            "properties": {"algorithm": {"id": ALGORITHM_ID, "parameters": [{"name": "epochs", "value": str(epochs)}]},
                           "flavorId": CPU, "pollIntervalSeconds": 0.2, "deleteTimeoutSeconds": 60, **extra}}


class Door:
    """One front door's way to declare job `key` (derived name, no tags) and to edit it."""

    def __init__(self, make: Callable[[Path, Any, dict[str, Any]], Stack],
                 edit: Callable[[Stack, dict[str, Any], int], None]) -> None:
        self.make, self.edit = make, edit


def _python_make(tmp_path: Path, emu: Any, extra: dict[str, Any]) -> Stack:
    return job_stack(tmp_path, emu, jobs={"a": job(name=None, waitFor="none", **extra)})


def _python_edit(st: Stack, extra: dict[str, Any], n: int = 2) -> None:
    update_config(st, {f"{PROJECT}:jobs": {"a": job(name=None, waitFor="none", parameters={"lr": n / 100}, **extra)}})


def _yaml_extra(extra: dict[str, Any]) -> dict[str, Any]:
    return {"keepRuns": extra["keepRuns"]} if "keepRuns" in extra else {}


def _yaml_make(tmp_path: Path, emu: Any, extra: dict[str, Any]) -> Stack:
    return yaml_stack(tmp_path, emu, {"a": _yaml_job(1, **_yaml_extra(extra))})


def _yaml_edit(st: Stack, extra: dict[str, Any], n: int = 2) -> None:
    write_program(st.workdir, {"a": _yaml_job(n, **_yaml_extra(extra))})


DOORS = {"python": Door(_python_make, _python_edit), "yaml": Door(_yaml_make, _yaml_edit)}


def _job_ids(st: Stack) -> set[str]:
    return {r["id"] for r in st.resources() if r["type"].endswith("TrainingJob")}


def _live(emu: Any) -> dict[str, str]:
    """{job id: phase} of every job the service holds."""
    return {j["metadata"]["id"]: phase_of(j) for j in emu.jobs()}


def _up_one_job(tmp_path: Path, door: str, service: str, request: pytest.FixtureRequest) -> tuple[Any, Stack, str]:
    """The service's local ModelArts, the door's stack of one job (derived name, no tags) after its first up, and
    that job's id."""
    emu = request.getfixturevalue(service)
    st = DOORS[door].make(tmp_path, emu, {})
    st.up()
    (job_id,) = _job_ids(st)
    return emu, st, job_id


@pytest.mark.parametrize("service", SERVICES)
@pytest.mark.parametrize("door", sorted(DOORS))
def test_an_edit_keeps_the_finished_run_with_no_tags_declared(tmp_path: Path, door: str, service: str,
                                                               request: pytest.FixtureRequest) -> None:
    emu = request.getfixturevalue(service)
    st = DOORS[door].make(tmp_path, emu, {})
    st.up()
    (first,) = _job_ids(st)
    emu.advance(3600)  # the run completes
    assert _live(emu) == {first: "Completed"}
    DOORS[door].edit(st, {})
    text = output_of(st.up())
    (second,) = _job_ids(st)
    assert second != first, text
    live = _live(emu)
    assert live[first] == "Completed" and second in live, text  # the finished run stays, with its logs
    assert emu.counters()["delete"] == 0


@pytest.mark.parametrize("service", SERVICES)
@pytest.mark.parametrize("door", sorted(DOORS))
def test_a_colleagues_job_with_a_copy_of_our_tags_is_never_stopped_or_deleted(
        tmp_path: Path, door: str, service: str, request: pytest.FixtureRequest) -> None:
    emu, st, ours = _up_one_job(tmp_path, door, service, request)
    colleague = _create_outside(emu, "colleague-job")
    with client_of(emu) as c:
        tags = c.get_job_tags(ours)
        assert "modelarts-pulumi.mark" in tags, tags  # the proof sits in the tags, no tags declared
        c.create_job_tags(colleague, tags)  # a copy of every tag of our job, the proof among them
    DOORS[door].edit(st, {})
    up = st.up(check=False)
    text = output_of(up)
    assert "colleague-job: ours" not in text, text
    live = _live(emu)
    assert live.get(colleague) in ("Pending", "Running", "Creating"), (live, text)
    st.destroy()
    assert set(_live(emu)) >= {colleague} and _live(emu)[colleague] != "Terminated", text


@pytest.mark.parametrize("service", SERVICES)
@pytest.mark.parametrize("door", sorted(DOORS))
def test_a_copied_stack_never_deletes_the_originals_runs_or_jobs(tmp_path: Path, door: str, service: str,
                                                                  request: pytest.FixtureRequest) -> None:
    emu = request.getfixturevalue(service)
    st = DOORS[door].make(tmp_path, emu, {"keepRuns": 1})
    st.up()
    (original,) = _job_ids(st)
    emu.advance(3600)  # the original's run completes
    copy = copied_stack(st, tmp_path)
    DOORS[door].edit(copy, {"keepRuns": 1})
    text = output_of(copy.up(check=False))
    # keepRuns: 1 counts only the copy's own runs: the original's Completed run is neither pruned nor deleted
    assert _live(emu)[original] == "Completed", text
    assert "run older than the 1 kept" not in text and emu.counters()["delete"] == 0, text
    assert _job_ids(st) == {original}

    # The original runs again (another spec: the copy holds the seed, so the same spec would derive the copy's
    # job's name, held by the service); the copy's destroy must not stop or delete that running job.
    DOORS[door].edit(st, {"keepRuns": 1}, 3)
    st.up()
    (running_id,) = _job_ids(st) - {original}  # (keepRuns: 1, the original's own: its finished run goes)
    copy.destroy(check=False)
    live = _live(emu)
    assert live[running_id] in ("Pending", "Running", "Creating"), live
    assert _job_ids(st) == {running_id}


def _renamed(st: Stack, name: str) -> Stack:
    """`pulumi stack rename` (the state's URNs and the stack's config file move to the new name)."""
    st.run("stack", "rename", name)
    return type(st)(workdir=st.workdir, name=name, env=st.env)


@pytest.mark.parametrize("service", SERVICES)
@pytest.mark.parametrize("door", sorted(DOORS))
def test_a_renamed_stack_manages_its_job_once_its_config_names_the_former_name_a_copy_never(
        tmp_path: Path, door: str, service: str, request: pytest.FixtureRequest) -> None:
    emu, st, job_id = _up_one_job(tmp_path, door, service, request)
    original = st.name

    # A copy that claims to be the original renamed: the original is still a stack of this backend, so the claim
    # is refused in one line before anything is done, and the original's running job is untouched.
    copy = copied_stack(st, tmp_path)
    update_config(copy, {"modelarts:renamedFrom": original})
    DOORS[door].edit(copy, {})
    refused = output_of(copy.up(check=False))
    assert f"modelarts:renamedFrom names {original}, a stack of this project" in refused, refused
    assert _live(emu)[job_id] in ("Pending", "Running", "Creating"), refused
    copy.run("stack", "rm", "--force", "--yes")

    # Renamed: the proofs name the former stack, which nothing says is this one: refused, the job left running.
    renamed = _renamed(st, "renamed")
    text = output_of(renamed.destroy(check=False))
    assert "modelarts:renamedFrom" in text, text  # the refusal says how to manage it again
    assert _live(emu)[job_id] in ("Pending", "Running", "Creating"), text

    # Its config names the former name (no longer a stack of this backend): its own job is managed again, from the
    # next `up` on (a destroy alone configures the providers as the last `up` recorded them).
    update_config(renamed, {"modelarts:renamedFrom": original})
    # (The YAML program is the copy's too, edited above: there its job runs again, the running one stopped as ours.)
    text = output_of(renamed.up())
    assert "not this resource's" not in text and _job_ids(renamed), text
    text = output_of(renamed.destroy())
    active = {j: p for j, p in _live(emu).items() if p in ("Pending", "Running", "Creating")}
    assert not active and not _job_ids(renamed), (active, text)  # every job it made, the first one among them

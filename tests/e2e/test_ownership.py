"""Issue 19 under the real engine and the local ModelArts: what is this stack's is recorded on it (owner
token, place), and nothing else is ever taken over, stopped or deleted. Each test is a user's scenario and
asserts on what the service holds afterwards. The rules themselves, case by case, are unit tests
(tests/provider/test_lifecycle.py, test_ownership_and_place.py); these show them end to end."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from modelarts_provider.client.models import CreateTrainingJobRequest
from modelarts_provider.core.ownership import OwnerMark
from modelarts_provider.stack.sweep import point_names
from tests.e2e.test_never_touch import SEED_URN, client_of, declared, owner_mark, owner_token
from testkit.faults import (PROJECT, assert_converged, copied_stack, job, job_stack, output_of, owner_key, phase_of,
                              state_job_ids, sweep, update_config)

GRID = {"lr": [0.1, 0.2]}
ACTIVE = ("Creating", "Pending", "Running")


@pytest.fixture(params=[False, True], ids=["annotations-answered", "annotations-dropped"])
def emu(request: pytest.FixtureRequest, tmp_path: Path, pulumi_engine: Path) -> Any:
    """The service may leave annotations out of its answers (issue 54): every case holds both ways."""
    from modelarts_emulator.testing import running_emulator

    # Jobs run far longer than any test: they stay active unless something stops them.
    with running_emulator(tmp_path / "emulator", phase_seconds=0.2, run_seconds=600,
                          drop_annotations=request.param) as e:
        yield e


def ids(jobs: list[dict[str, Any]]) -> set[str]:
    return {j["metadata"]["id"] for j in jobs}


def test_two_teammates_dev_stacks_never_touch_each_others_jobs(tmp_path: Path, emu: Any) -> None:
    # Two backends, the same project and stack name ("dev"), the same sweep: the owner text is equal,
    # the owner tokens are not.
    alice = job_stack(tmp_path / "alice", emu, stack="dev", sweeps={"s": sweep(GRID)},
                      jobs={"x": job(name="team-x")})
    alice.up()
    alices = assert_converged(emu, alice, {"team-x", *(k for k, _ in point_names("s", GRID))})

    bob = job_stack(tmp_path / "bob", emu, stack="dev", sweeps={"s": sweep(GRID)})
    up = bob.up()
    assert "taking over" not in output_of(up), output_of(up)
    everyone = emu.jobs()
    assert len(everyone) == 3 + 2 and ids(alices) < ids(everyone)  # Bob's two points are his own jobs
    assert set(state_job_ids(bob).values()) == ids(everyone) - ids(alices)

    bob.destroy()
    left = emu.jobs()
    assert ids(left) == ids(alices) and all(phase_of(j) in ACTIVE for j in left)  # Alice's still run
    assert emu.counters()["terminate"] == 2 and emu.counters()["delete"] == 2  # Bob's two, nothing else

    # (Bob declaring Alice's explicitly named job is refused naming her resource: tests/provider/test_lifecycle.py)


def test_a_changed_region_is_refused_never_taken_for_gone(tmp_path: Path, emu: Any) -> None:
    # (a changed project or endpoint: the same check, tests/provider/test_ownership_and_place.py)
    st = job_stack(tmp_path, emu, jobs={"a": job(name="placed")})
    st.up()
    (job_id,) = state_job_ids(st).values()
    st.run("config", "set", "modelarts:region", "cn-east-3")
    # --run-program: the providers take the changed config (as `./dev refresh` and a new shell's env do)
    for command in (("refresh", "--yes", "--skip-preview", "--run-program"),
                    ("destroy", "--yes", "--skip-preview", "--run-program")):
        proc = st.run(*command, check=False)
        text = output_of(proc)
        assert proc.returncode != 0, text
        assert f"training job placed ({job_id}) lives in huaweicloud region cn-north-4, project " in text, text
        assert "region cn-east-3" in text and "nothing was read, changed or deleted" in text, text
        assert "gone, dropping it" not in text and "already gone" not in text, text
    # Nothing stopped, deleted or dropped (the job's own calls never left; JobsAwait's refresh only reads)
    assert emu.counters()["terminate"] == 0 and emu.counters()["delete"] == 0
    assert state_job_ids(st) == {"placed": job_id} and phase_of(emu.jobs()[0]) in ACTIVE
    # Pointed back, everything works again.
    st.run("config", "set", "modelarts:region", "cn-north-4")
    st.destroy("--run-program")
    assert emu.jobs() == []


def test_a_moved_job_is_kept_with_moved_from(tmp_path: Path, emu: Any) -> None:
    st = job_stack(tmp_path, emu, jobs={"old": job(name="mover")})
    st.up()
    (job_id,) = state_job_ids(st).values()
    # Without movedFrom: refused before any change, with the hint (the name can be held only once).
    update_config(st, {f"{PROJECT}:jobs": {"new": job(name="mover")}})
    refused = st.up(check=False)
    assert refused.returncode != 0
    assert "if the job moved from old, declare movedFrom: [old] to keep it" in output_of(refused), output_of(refused)
    assert ids(emu.jobs()) == {job_id} and emu.counters()["terminate"] == 0
    # With it: the same job, now under the new key; nothing created, stopped or deleted.
    update_config(st, {f"{PROJECT}:jobs": {"new": job(name="mover", movedFrom=["old"])}})
    st.up()
    assert state_job_ids(st) == {"mover": job_id} and ids(emu.jobs()) == {job_id}
    assert emu.counters()["create"] == 1 and emu.counters()["delete"] == 0
    assert set(st.outputs()["jobs"]) == {"new"}


def test_a_killed_up_then_an_edit_leaves_nothing_of_ours_running_untracked(tmp_path: Path, emu: Any,
                                                                          request: pytest.FixtureRequest) -> None:
    # The killed `up` created the stack's seed and then the job (lr 0.5), and died before recording it;
    # the user then edits lr. The job of the earlier spec (another derived name) is ours by its token.
    st = job_stack(tmp_path, emu, jobs={"a": job(parameters={"lr": 0.5})})
    st.run("up", "--yes", "--skip-preview", "--target",
           SEED_URN.format(stack=st.name, project=PROJECT))
    mark = OwnerMark.model_validate(owner_mark(st, "a"))
    spec = declared({"a": job(name="a-killed", parameters={"lr": 0.5})})["a"].model_copy(update={"owner": mark})
    with client_of(emu) as c:
        orphan = c.create_job(CreateTrainingJobRequest.model_validate(spec.to_wire())).id

    update_config(st, {f"{PROJECT}:jobs": {"a": job(parameters={"lr": 0.01})}})
    up = st.up()
    text = output_of(up)
    if "annotations-dropped" in request.node.name:
        # The service answers no annotation and the killed `up` set no tag: nothing proves the job ours, so it is
        # never stopped, but it is named, with what to do (it has the shape of this resource's derived names).
        assert f"a-killed ({orphan}, " in text and "carries no owner mark the service answers" in text, text
        assert "not stopped or deleted" in text and emu.counters()["delete"] == 0, text
        assert {j["metadata"]["id"] for j in emu.jobs()} >= {orphan}
        return
    assert f"a-killed: ours from an earlier `up` ({orphan}," in text and "stopping and deleting it" in text, text
    (live,) = assert_converged(emu, st, 1)
    assert live["metadata"]["id"] != orphan and owner_key(live) == "a"
    assert [(p["name"], p["value"]) for p in live["algorithm"]["parameters"]] == [("lr", "0.01")]
    assert json.dumps(emu.jobs()).count(orphan or "-") == 0  # stopped and deleted


def test_our_same_named_orphan_is_gone_before_its_successor_is_created(tmp_path: Path, pulumi_engine: Path) -> None:
    """Deletes are asynchronous (as the service's: Terraform's provider polls for ModelArts.2775): the killed
    `up`'s job of the earlier spec holds the explicit name for a while after its DELETE, so the new job is
    created only once the old one is gone, not refused as a duplicate name (ModelArts.2751)."""
    from modelarts_emulator.testing import running_emulator

    # a deleted job holds its name for 1.5 s: longer than the create that follows its delete ever takes
    with running_emulator(tmp_path / "emulator", phase_seconds=0.2, run_seconds=600, delete_seconds=1.5) as emu:
        st = job_stack(tmp_path, emu, jobs={"a": job(name="a-named", parameters={"lr": 0.5})})
        st.run("up", "--yes", "--skip-preview", "--target", SEED_URN.format(stack=st.name, project=PROJECT))
        mark = OwnerMark.model_validate(owner_mark(st, "a"))
        spec = declared({"a": job(name="a-named", parameters={"lr": 0.5})})["a"].model_copy(update={"owner": mark})
        with client_of(emu) as c:
            orphan = c.create_job(CreateTrainingJobRequest.model_validate(spec.to_wire())).id

        update_config(st, {f"{PROJECT}:jobs": {"a": job(name="a-named", parameters={"lr": 0.01})}})
        text = output_of(st.up())
        assert f"a-named: ours from an earlier `up` ({orphan}," in text and "stopping and deleting it" in text, text
        (live,) = assert_converged(emu, st, 1)
        assert live["metadata"]["name"] == "a-named" and live["metadata"]["id"] != orphan
        assert [(p["name"], p["value"]) for p in live["algorithm"]["parameters"]] == [("lr", "0.01")]
        assert emu.counters()["create"] == 2  # the orphan's and its successor's: none refused and retried


def test_a_finished_run_is_never_deleted_before_its_successor_is_accepted(tmp_path: Path, emu: Any) -> None:
    # Issue 21: a completed job, then an edit with a flavor typo. The successor is created first (the
    # finished run is not running, so nothing forces the old one out first): the service refuses the typo,
    # and the finished run is still there, still tracked. Fixed, the successor replaces it.
    st = job_stack(tmp_path, emu, jobs={"a": job(parameters={"lr": 0.1})})
    st.up()
    emu.advance(3600)  # the run completes
    (done,) = emu.jobs()
    assert phase_of(done) == "Completed"

    update_config(st, {f"{PROJECT}:pools": {"gpu": {"flavor": "modelarts.p3.largee.public", "maxNodes": 4}},
                       f"{PROJECT}:jobs": {"a": job(parameters={"lr": 0.2})}})
    typo = st.up("--refresh", check=False)  # the refresh records Completed before the diff
    assert typo.returncode != 0, output_of(typo)
    assert ids(emu.jobs()) == {done["metadata"]["id"]} and emu.counters()["delete"] == 0
    assert set(state_job_ids(st).values()) == {done["metadata"]["id"]}

    update_config(st, {f"{PROJECT}:pools": {"gpu": {"flavor": "modelarts.p3.large.public", "maxNodes": 4}}})
    fixed = st.up()
    text = output_of(fixed)
    # Issue 41: the replaced finished run stays in the service as a record (kept by default), out of the state.
    (new,) = [j for j in emu.jobs() if j["metadata"]["id"] != done["metadata"]["id"]]
    assert set(state_job_ids(st).values()) == {new["metadata"]["id"]}
    assert phase_of(next(j for j in emu.jobs() if j["metadata"]["id"] == done["metadata"]["id"])) == "Completed"
    assert emu.counters()["delete"] == 0
    assert text.index(f"submitted {new['metadata']['id']}") < text.index(f"{done['metadata']['name']}: kept"), text


def test_a_copied_stack_never_takes_over_or_destroys_the_originals_jobs(tmp_path: Path, emu: Any) -> None:
    # Issue 43, finding 6: `stack export`, the URNs renamed, `stack import` into another stack (Pulumi allows an
    # edited file): the copy holds the original's seed, hence its owner tokens. The jobs' owner text names the
    # original stack, and the copy's calls name the copy: never taken over, stopped or deleted by the copy.
    st = job_stack(tmp_path, emu, jobs={"a": job(name=None)})
    st.up()
    (original,) = emu.jobs()
    copy = copied_stack(st, tmp_path)

    copy.up()  # the recorded mark is updated to the copy's: no call changes anything
    refused = copy.destroy(check=False)
    text = output_of(refused)
    assert refused.returncode != 0, text
    assert f"is not this resource's (it belongs to organization/{PROJECT}/{st.name}::a" in text, text
    # Its state forgotten, the copy declares the job again: the original's job is not taken over.
    (job_urn,) = [r["urn"] for r in copy.resources() if r["type"].endswith(":TrainingJob")]
    copy.run("state", "delete", job_urn, "--yes", "--target-dependents")
    again = copy.up(check=False)
    text = output_of(again)
    assert again.returncode != 0 and "taking over" not in text, text
    assert f"it belongs to organization/{PROJECT}/{st.name}::a" in text, text
    assert [(j["metadata"]["id"], phase_of(j)) for j in emu.jobs()] == [(original["metadata"]["id"], "Running")]
    assert emu.counters()["terminate"] == 0 and emu.counters()["delete"] == 0 and emu.counters()["create"] == 1
    assert set(state_job_ids(st).values()) == {original["metadata"]["id"]}


def test_plugin_a_copied_stack_never_destroys_the_originals_job(tmp_path: Path, emu: Any) -> None:
    # The same through the provider plugin (a YAML program): the copy's calls name the copy (their URNs).
    from testkit.plugin_program import yaml_stack

    resources = {"a": {"type": "modelarts:index:TrainingJob", "properties": {
        "algorithm": {"id": "8d1b2f4c-5a6e-4f70-9b81-c2d3e4f5a6b7"}, "flavorId": "modelarts.vm.cpu.2u"}}}
    st = yaml_stack(tmp_path, emu, resources)
    st.up()
    (original,) = emu.jobs()
    (tmp_path / "copy.json").write_text(json.dumps(st.export()).replace("urn:pulumi:test::", "urn:pulumi:copy::"))
    config = (st.workdir / "Pulumi.test.yaml").read_text()
    st.run("stack", "init", "copy", stack_flag=False)
    (st.workdir / "Pulumi.copy.yaml").write_text(config)
    copy = type(st)(workdir=st.workdir, name="copy", env=st.env)
    copy.run("stack", "import", "--file", str(tmp_path / "copy.json"))
    copy.up()
    refused = copy.destroy(check=False)
    text = output_of(refused)
    assert refused.returncode != 0, text
    assert "is not this resource's (it belongs to organization/yaml-jobs/test::a" in text, text
    assert [(j["metadata"]["id"], phase_of(j)) for j in emu.jobs()] == [(original["metadata"]["id"], "Running")]
    assert emu.counters()["terminate"] == 0 and emu.counters()["delete"] == 0

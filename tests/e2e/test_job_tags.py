"""Issue 42: job tags end to end, under the real engine and the local ModelArts, through both front doors.

A stack's `defaultTags` lie under each job's and sweep's own `tags` (Terraform's default_tags); the service holds
them (its tag API) beside the owner mark's tags, `status` shows them, and a change is an update in place through
the tag API: the same job, no create. The YAML program runs on a ModelArts that answers without annotations, as
the service may: its owner mark is in the tags, import and destroy go by them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from modelarts_provider.stack.sweep import point_names
from testkit.emulators import fresh_emulator
from testkit.faults import PROJECT, job, job_stack, state_job_ids, sweep, update_config
from testkit.plugin_program import write_program, yaml_stack
from tests.e2e.test_plugin_yaml import ALGORITHM_ID, CPU, _create_outside
from tests.e2e.test_sweep_results import cli, client_of

pytestmark = pytest.mark.engine
OWNER_TAGS = ("modelarts-pulumi.token", "modelarts-pulumi.owner", "modelarts-pulumi.mark")


emu = fresh_emulator(phase_seconds=0.2, run_seconds=600)


def declared_tags(emu: Any, job_ids: dict[str, str]) -> dict[str, dict[str, str]]:
    """{job name: its tags in the service, less the owner mark's}"""
    with client_of(emu) as c:
        out = {}
        for name, job_id in job_ids.items():
            tags = c.get_job_tags(job_id)
            assert set(OWNER_TAGS) <= set(tags), tags  # every job carries the owner mark's tags
            out[name] = {k: v for k, v in tags.items() if k not in OWNER_TAGS}
        return out


def test_tags_of_a_job_a_sweep_and_stack_defaults_reach_the_service_and_status_and_update_in_place(
        tmp_path: Path, emu: Any) -> None:
    grid = {"lr": [0.1, 0.2]}
    st = job_stack(tmp_path, emu, jobs={"a": job(name="tagged-a", tags={"team": "vision"})},
                   sweeps={"s": sweep(grid, tags={"sweep": "lr"})})
    update_config(st, {f"{PROJECT}:defaultTags": {"costCenter": "ml-42", "team": "research"}})
    st.up()
    ids = state_job_ids(st)
    points = sorted(n for n in ids if n != "tagged-a")  # derived names: <point key>-<suffix>
    assert [p.rsplit("-", 1)[0] for p in points] == sorted(n for n, _ in point_names("s", grid)), ids
    assert declared_tags(emu, ids) == {
        "tagged-a": {"costCenter": "ml-42", "team": "vision"},  # the job's own tag wins over the default
        **{p: {"costCenter": "ml-42", "team": "research", "sweep": "lr"} for p in points}}
    status = cli(st, "status")
    assert status.returncode == 0, status.stderr
    assert "costCenter=ml-42,team=vision" in status.stdout, status.stdout
    assert status.stdout.count("costCenter=ml-42,sweep=lr,team=research") == 2, status.stdout

    # A tag change (the job's own, and a default dropped) is an update in place: the same jobs, no create, no
    # delete (the up proves it; a preview before it would run the same diff again)
    # The provider's own modelarts:defaultTags (both doors' setting) lie under the stack config's.
    update_config(st, {f"{PROJECT}:jobs": {"a": job(name="tagged-a", tags={"team": "speech"})},
                       f"{PROJECT}:defaultTags": {"team": "research"},
                       "modelarts:defaultTags": {"owner": "platform", "team": "infra"}})
    before = emu.counters()
    up = st.up()
    assert state_job_ids(st) == ids  # every job id unchanged
    assert emu.counters()["create"] == before["create"] and emu.counters()["delete"] == before["delete"]
    assert declared_tags(emu, ids) == {"tagged-a": {"team": "speech", "owner": "platform"},
                                       **{p: {"team": "research", "sweep": "lr", "owner": "platform"}
                                          for p in points}}
    assert "tagged-a: tags updated" in up.stdout + up.stderr
    st.preview("--expect-no-changes")
    st.destroy()
    assert emu.jobs() == []


def test_bad_tags_are_refused_naming_the_key_before_any_call(tmp_path: Path, emu: Any) -> None:
    st = job_stack(tmp_path, emu, jobs={"a": job(name="bad-tags", tags={"a/b": "x"})})
    proc = st.up(check=False)
    text = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "modelarts-jobs:jobs.a.tags" in text and "is not a valid tag key" in text, text
    assert emu.counters()["create"] == 0 and emu.jobs() == []


# --- the plugin's door, on a ModelArts that answers without annotations ----------------------------------------


dropping_emu = fresh_emulator("dropping_emu", phase_seconds=0.2, run_seconds=600, drop_annotations=True)


def _yaml_job(**extra: Any) -> dict[str, Any]:
    return {"type": "modelarts:index:TrainingJob",
            "properties": {"algorithm": {"id": ALGORITHM_ID, "parameters": [{"name": "epochs", "value": "1"}]},
                           "flavorId": CPU, "pollIntervalSeconds": 0.2, **extra}}


def test_yaml_tags_update_in_place_and_import_and_destroy_go_by_the_tags(tmp_path: Path, dropping_emu: Any) -> None:
    emu = dropping_emu
    resources = {"tagged": _yaml_job(tags={"team": "vision"})}
    st = yaml_stack(tmp_path, emu, resources)
    st.up()
    (state,) = [r for r in st.resources() if r["type"] == "modelarts:index:TrainingJob"]
    job_id = state["id"]
    assert declared_tags(emu, {"tagged": job_id}) == {"tagged": {"team": "vision"}}

    resources["tagged"]["properties"]["tags"] = {"team": "speech", "stage": "dev"}
    write_program(st.workdir, resources)
    # the provider's defaultTags, under the job's own tags (as the Python door: test above)
    update_config(st, {"modelarts:defaultTags": {"costCenter": "ml-42", "team": "research"}})
    before = emu.counters()["create"]
    st.up()
    (state,) = [r for r in st.resources() if r["type"] == "modelarts:index:TrainingJob"]
    assert state["id"] == job_id and emu.counters()["create"] == before  # in place
    assert declared_tags(emu, {"tagged": job_id}) == {"tagged": {"team": "speech", "stage": "dev",
                                                                 "costCenter": "ml-42"}}
    st.preview("--expect-no-changes")

    # import: a job made outside (no mark anywhere) is imported; a job tagged with another stack's token is not
    outside = _create_outside(emu, "outside-job")
    st.run("import", "modelarts:index:TrainingJob", "adopted", outside, "--yes", "--protect=false")
    theirs = _create_outside(emu, "their-job")
    with client_of(emu) as c:
        c.create_job_tags(theirs, {"modelarts-pulumi.token": "0123456789abcdef",
                                   "modelarts-pulumi.owner": "organization/other/dev::x"})
    refused = st.run("import", "modelarts:index:TrainingJob", "theirs", theirs, "--yes", "--protect=false",
                     check=False)
    text = refused.stdout + refused.stderr
    assert refused.returncode != 0 and "it belongs to organization/other/dev::x" in text, text

    st.destroy()
    left = [j["metadata"]["id"] for j in emu.jobs()]
    assert left == [theirs]  # ours (created and imported) gone, the other stack's job untouched


def test_jobs_left_untagged_are_ours_by_their_derived_name_an_explicit_name_is_refused(
        tmp_path: Path, dropping_emu: Any) -> None:
    # The service answers without annotations and every tag request is refused (the gateway's 404, as the tag API
    # answered Terraform before it was emulated): no mark can be read anywhere. Every job is POSTed and left
    # untagged (the proof is always written where the service returns it: core/ownership.py). A derived name
    # carries a mark of its own (an HMAC of the stack's seed and the spec), so the sweep's points are taken over
    # and tagged by the next `up`; an explicit name proves nothing. `waitFor: none`: a job no JobsAwait waits for
    # is tagged in its own create, whose failure leaves it out of the state, as a killed `up` does (an awaited
    # job's tag call leaves its create: the next test).
    emu = dropping_emu
    grid = {"lr": [0.1, 0.2]}
    st = job_stack(tmp_path, emu, sweeps={"s": sweep(grid, waitFor="none")},
                   jobs={"named": job(name="explicit-name", waitFor="none")})
    emu.set_faults([{"operation": "tags_create", "kind": "status", "status": 404, "times": 1000}])
    first = st.up(check=False)
    text = first.stdout + first.stderr
    assert first.returncode != 0 and "explicit-name" in text and "was created but its tags were not set" in text, text
    assert len(emu.jobs()) == 3 and state_job_ids(st) == {}, text
    assert emu.counters()["tags_create"] == 3  # one per job, each refused
    posted = {j["metadata"]["name"]: j["metadata"]["id"] for j in emu.jobs()}
    emu.clear_faults()

    # --continue-on-error: the engine goes on past the explicit name's refusal (without it, it may stop scheduling
    # there before it reached the sweep's points, which then prove nothing either way)
    again = st.up("--continue-on-error", check=False)
    text = again.stdout + again.stderr
    # the sweep's points are this stack's by their names: taken over (and tagged), nothing created again
    points = {n: i for n, i in state_job_ids(st).items() if n != "explicit-name"}
    assert len(points) == 2 and all(posted[n] == i for n, i in points.items()), text
    assert emu.counters()["create"] == 3, text
    # an explicit name proves nothing: refused, untouched
    assert again.returncode != 0 and "a training job named explicit-name already exists" in text, text
    assert "carries no owner mark" in text and len(emu.jobs()) == 3 and emu.counters()["delete"] == 0


def test_an_awaited_jobs_refused_tag_call_fails_the_up_naming_it_and_the_next_up_writes_the_tags(
        tmp_path: Path, dropping_emu: Any) -> None:
    # Issue 59: an awaited job's create returns after its POST and hands its tag call over; the JobsAwait joins the
    # calls of the jobs it waits for and fails the `up` naming every job left untagged. The jobs are in the state
    # (their creates succeeded) and the JobsAwait records them, so the next `up` writes their tags: no create again,
    # every job carries the owner mark's tags, and nothing is left to change.
    emu = dropping_emu
    st = job_stack(tmp_path, emu, sweeps={"s": sweep({"lr": [0.1, 0.2]})}, jobs={"named": job(name="explicit-name")})
    emu.set_faults([{"operation": "tags_create", "kind": "status", "status": 404, "times": 1000}])
    first = st.up(check=False)
    text = first.stdout + first.stderr
    assert first.returncode != 0 and "the owner tags of 3 training jobs were not written (" in text, text
    assert "explicit-name (" in text and "run `pulumi up` again to write the tags" in text, text
    ids = state_job_ids(st)
    assert len(ids) == 3 and emu.counters()["tags_create"] == 3, text
    emu.clear_faults()

    again = st.up()
    assert state_job_ids(st) == ids and emu.counters()["create"] == 3, again.stdout
    with client_of(emu) as c:
        for job_id in ids.values():
            assert set(OWNER_TAGS) <= set(c.get_job_tags(job_id))
    st.preview("--expect-no-changes")

"""lifecycle.submit / adopt / stop / stop_and_delete with the fake client and a NameIndex.

Ownership is recorded (modelarts_provider.core.ownership): only a job carrying this resource's owner token is
ever taken over (same name and spec) or stopped and deleted (our orphan: another spec or name). A job
that carries another owner, or none, is named in the refusal and never terminated, deleted or updated.
In these tests each job name is one resource with its own token (tests/provider/common.owner_of).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from modelarts_provider.client.errors import ModelArtsError
from modelarts_provider.client.models import TrainingJob
from modelarts_provider.core.ownership import OwnerMark
from modelarts_provider.training_job import lifecycle
from modelarts_provider.training_job.args import TrainingJobArgs
from modelarts_provider.training_job.lifecycle import TrainingJobError, submit
from modelarts_provider.training_job.name_index import NameIndex
from modelarts_provider.wait_engine import FakeClock

from .common import job_inputs, owner_of
from .fakes import FakeClient

ALL_PHASES = ["Creating", "Pending", "Running", "Completed", "Failed", "Abnormal", "Terminating", "Terminated"]


class Said(list):
    """A printer that keeps every line and refuses merged lines."""

    def __call__(self, message: str) -> None:
        assert "\n" not in message, message
        self.append(message)


def args(**over) -> TrainingJobArgs:
    """One resource per job name here, each with its own owner token."""
    over.setdefault("owner", owner_of(str(over.get("name", "job-a"))))
    return TrainingJobArgs.model_validate(job_inputs(**over))


COLLEAGUE_STACK = "organization/proj/colleague-dev"


def theirs(**over) -> dict:
    """The create body of a colleague's stack's job (another owner token), same name unless told."""
    return args(owner=owner_of("job-a", COLLEAGUE_STACK), **over).to_wire()


def unmarked(**over) -> dict:
    """A job made outside this tool (or before owners were recorded): no owner mark."""
    return args(**over).model_copy(update={"owner": None}).to_wire()


COLLEAGUE = (f"it belongs to {COLLEAGUE_STACK}::job-a (owner token "
             f"{owner_of('job-a', COLLEAGUE_STACK)['token'][:8]}...)")
NO_MARK = "it carries no owner mark (not created by this stack tool, or before owners were recorded)"


def not_ours_message(job: TrainingJob, phase: str, why: str, owner: str = COLLEAGUE, name: str = "job-a") -> str:
    return (f"a training job named {name} already exists ({job.id}, {phase}) and is not this resource's: {owner}"
            + (f" ({why})" if why else "")
            + "; nothing was changed: rename the declared job, adopt the existing one with adopt_job_id, or remove "
            "it yourself")


def taking_over(job: TrainingJob, phase: str, name: str = "job-a") -> str:
    return f"{name}: taking over existing job {job.id} ({phase}): ours, from an earlier `up`"


# --- one listing, one POST ----------------------------------------------------------------------


def test_n_creates_through_one_index_list_once_and_post_once_each():
    c = FakeClient()
    for i in range(3):
        c.add(args(name=f"someone-else-{i}").to_wire())
    index, said = NameIndex(c), Said()
    jobs = [submit(c, args(name=f"job-{i}"), index, said) for i in range(7)]
    # one POST and one tag request (the owner mark's tags: the create API takes none) per job; the listed jobs
    # carry no proof in their annotations: one tag search reads theirs (core/ownership.py)
    assert c.calls == ["list", "tags_filter"] + ["create", "tags_create"] * 7
    assert c.details("list") == [{"name_like": None, "phases": None, "limit": 501, "workspace_id": None}]
    assert [j.name for j in jobs] == [f"job-{i}" for i in range(7)] and len({j.id for j in jobs}) == 7
    assert said == [f"job-{i}: submitted {j.id}" for i, j in enumerate(jobs)]
    assert all(j.phase == "Creating" for j in jobs)  # submitted, not waited for


def test_concurrent_creates_share_the_one_listing():
    c = FakeClient()
    index = NameIndex(c)
    with ThreadPoolExecutor(4) as pool:
        jobs = list(pool.map(lambda i: submit(c, args(name=f"job-{i}"), index, Said()), range(12)))
    assert c.count("list") == 1 and c.count("create") == 12 and len({j.id for j in jobs}) == 12


def test_a_submitted_job_is_in_the_listing_for_the_next_create_of_the_process():
    c = FakeClient()
    index = NameIndex(c)
    first = submit(c, args(), index, Said())
    said = Said()
    again = submit(c, args(), index, said)
    assert again.id == first.id and c.job_calls == ["list", "create"]
    assert said == [taking_over(first, "Creating")]


def test_each_workspace_is_listed_once_with_its_own_key():
    c = FakeClient()
    index = NameIndex(c)
    for ws in (None, "ws-1", None, "ws-1", "ws-2"):
        submit(c, args(name=f"job-{ws}-{c.count('create')}", workspace_id=ws), index, Said())
    assert [d["workspace_id"] for d in c.details("list")] == [None, "ws-1", "ws-2"]
    assert c.count("create") == 5


# --- takeover: only our job, in any phase ------------------------------------------------------


@pytest.mark.parametrize("phase", ALL_PHASES)
def test_our_job_is_taken_over_in_any_phase_and_never_touched(phase):
    c = FakeClient()
    ours = c.add(args().to_wire(), phase)
    said = Said()
    job = submit(c, args(), NameIndex(c), said)
    assert job.id == ours.id and job.phase == phase
    assert c.job_calls == ["list"]  # no POST, no terminate, no delete, no update
    assert c.phase_of(ours.id) == phase and list(c.jobs) == [ours.id]
    assert said == [taking_over(ours, phase)]


def test_takeover_updates_a_changed_description_only():
    c = FakeClient()
    ours = c.add(args(description="old").to_wire(), "Running")
    said = Said()
    job = submit(c, args(description="new"), NameIndex(c), said)
    assert job.id == ours.id and job.description == "new"
    assert [entry for entry in c.log if not entry[0].startswith("tags_")] == [("list", c.details("list")[0]),
                                                                             ("update", ours.id)]
    assert said == [taking_over(ours, "Running"), "job-a: updating description"]


def test_takeover_compares_obs_paths_in_either_spelling():
    c = FakeClient()
    # The service answers /bucket/key; the declaration says obs://bucket/key.
    ours = c.add(args().to_wire(), "Running")
    assert c.jobs[ours.id]["algorithm"]["code_dir"] == "/bkt/code/"
    assert submit(c, args(), NameIndex(c), Said()).id == ours.id and c.count("create") == 0


def test_takeover_reads_numbers_in_either_json_type():
    # The client keeps a number sent as a string (and the reverse) as received (tolerance rule).
    c = FakeClient()
    ours = c.add(args(node_count=2, auto_stop={"duration": 3}).to_wire(), "Running")
    wire = c.jobs[ours.id]
    wire["spec"]["resource"]["node_count"] = "2"
    wire["spec"]["auto_stop"]["duration"] = "3"
    wire["algorithm"]["parameters"] = [{"name": "lr", "value": 0.1}]
    assert submit(c, args(node_count=2, auto_stop={"duration": 3}), NameIndex(c), Said()).id == ours.id
    assert c.touched() == set()


@pytest.mark.parametrize("phase", ["Running", "Failed", "Completed", "Terminated"])
def test_a_same_named_job_of_another_owner_is_refused_naming_it_and_nothing_is_touched(phase):
    c = FakeClient(allow_duplicate_names=True)
    other = c.add(theirs(flavor_id="modelarts.vm.cpu.8u", node_count=2), phase)
    with pytest.raises(TrainingJobError) as e:
        submit(c, args(), NameIndex(c), Said())
    assert str(e.value) == not_ours_message(
        other, phase, "flavor_id: declared 'modelarts.vm.cpu.2u', live 'modelarts.vm.cpu.8u'; "
                      "node_count: declared 1, live 2")
    assert c.job_calls == ["list"] and c.touched() == set()
    assert c.phase_of(other.id) == phase and list(c.jobs) == [other.id]


@pytest.mark.parametrize("maker, owner", [(theirs, COLLEAGUE), (unmarked, NO_MARK)], ids=["other-owner", "no-mark"])
def test_same_name_and_spec_is_not_enough_to_be_ours(maker, owner):
    # Two stacks declaring the same job, or a job made by hand with our spec: never taken over.
    c = FakeClient(allow_duplicate_names=True)
    other = c.add(maker(), "Running")
    with pytest.raises(TrainingJobError) as e:
        submit(c, args(), NameIndex(c), Said())
    assert str(e.value) == not_ours_message(other, "Running", "", owner)
    assert c.job_calls == ["list"] and c.touched() == set()


def test_our_orphan_of_another_spec_is_stopped_and_deleted_then_ours_is_created():
    # A killed `up`, then an edit: the job of the earlier spec carries our token.
    c = FakeClient(script=["Creating", "Running"], allow_duplicate_names=True)
    orphan = c.add(args(node_count=2).to_wire(), "Running")
    said = Said()
    job = submit(c, args(node_count=3), NameIndex(c), said)
    assert job.id != orphan.id and list(c.jobs) == [job.id]
    assert c.job_calls[:2] == ["list", "get"] and c.job_calls[-1] == "create" and "terminate" in c.calls and "delete" in c.calls
    assert said[0] == (f"job-a: ours from an earlier `up` ({orphan.id}, Running) but no longer declared so: "
                       "stopping and deleting it")
    assert said[-1] == f"job-a: submitted {job.id}"


def test_a_same_named_successor_is_created_only_once_the_deleted_orphan_is_gone():
    """Deletes are asynchronous (the job is still answered, its name held, until GET says ModelArts.2775):
    the create waits for the orphan to be gone, or the service would refuse the name (ModelArts.2751)."""
    c = FakeClient(script=["Creating", "Running"])
    c.deleting_polls = 3
    orphan = c.add(args(node_count=2).to_wire(), "Completed")
    job = submit(c, args(node_count=3), NameIndex(c), Said())
    assert list(c.jobs) == [job.id] and job.id != orphan.id
    after_delete = c.job_calls[c.job_calls.index("delete") + 1:]
    assert after_delete == ["get"] * 4 + ["create"]  # three answers while deleting, then gone


def test_a_deleted_job_that_stays_fails_the_delete_naming_it():
    c = FakeClient()
    c.deleting_polls = 1_000_000
    job = c.add(args().to_wire(), "Completed")
    with pytest.raises(TrainingJobError) as ei:
        lifecycle.stop_and_delete(c, job.id, 0.05, 0.01, Said())
    assert str(ei.value) == (f"training job job-a ({job.id}) was deleted but is still there after 0.05s; "
                             "run the command again to wait for it")


def test_a_job_of_another_key_of_this_stack_suggests_moved_from():
    c = FakeClient()
    other = c.add(args(owner=owner_of("old-key")).to_wire(), "Completed")
    with pytest.raises(TrainingJobError) as e:
        submit(c, args(owner=owner_of("new-key")), NameIndex(c), Said())
    assert str(e.value).endswith(
        "; nothing was changed: if the job moved from old-key, declare movedFrom: [old-key] to keep it; or remove "
        "old-key in one up and declare the new key in the next")
    assert f"({other.id}, Completed)" in str(e.value) and c.touched() == set()


def test_our_orphan_under_another_name_is_found_by_its_token():
    # A derived name changes with the spec: the orphan of a killed `up` has another name but our token.
    c = FakeClient(script=["Creating", "Running"])
    orphan = c.add(args(name="job-a-old", owner=owner_of("job-a")).to_wire(), "Pending")
    job = submit(c, args(), NameIndex(c), Said())
    assert list(c.jobs) == [job.id] and job.name == "job-a" and orphan.id not in c.jobs


def test_a_refusal_never_quotes_secret_looking_values():
    c = FakeClient()
    other = c.add(theirs(annotations={"api_token": "their-token-value"},
                         algorithm={"code_dir": "obs://bkt/code/", "boot_file": "obs://bkt/code/train.py",
                                    "engine": {"engine_name": "PyTorch", "engine_version": "1.8"},
                                    "environments": {"DB_PASSWORD": "their-password"}}))
    mine = args(annotations={"api_token": "my-token-value"},
                algorithm={"code_dir": "obs://bkt/code/", "boot_file": "obs://bkt/code/train.py",
                           "engine": {"engine_name": "PyTorch", "engine_version": "1.8"},
                           "environments": {"DB_PASSWORD": "my-password"}})
    with pytest.raises(TrainingJobError) as e:
        submit(c, mine, NameIndex(c), Said())
    msg = str(e.value)
    assert msg == not_ours_message(other, "Running", "annotations[api_token]: differs (values not shown); "
                                   "algorithm.environments: declared 'values of DB_PASSWORD (not shown)', "
                                   "live 'different values'")
    for secret in ("their-token-value", "my-token-value", "their-password", "my-password"):
        assert secret not in msg
    assert c.touched() == set()


def test_same_spec_in_another_workspace_is_never_listed_never_touched():
    # The list API lists one workspace: theirs (ws-colleague) is not in ours ("0").
    c = FakeClient(allow_duplicate_names=True)
    other = c.add(theirs(), "Running", workspace_id="ws-colleague")
    job = submit(c, args(), NameIndex(c), Said())
    assert job.id != other.id and c.workspace_of(job.id) == "0"
    assert c.job_calls == ["list", "create"] and c.details("list")[0]["workspace_id"] is None
    assert c.phase_of(other.id) == "Running"


def test_same_spec_in_another_workspace_refused_by_the_service_is_not_retried():
    c = FakeClient(allow_duplicate_names=False)  # the service may refuse the name project-wide
    other = c.add(theirs(), "Running", workspace_id="ws-colleague")
    with pytest.raises(ModelArtsError) as e:
        submit(c, args(), NameIndex(c), Said())
    assert e.value.error_code == "ModelArts.2751" and "job-a" in str(e.value)
    assert c.job_calls == ["list", "create"] and list(c.jobs) == [other.id] and c.phase_of(other.id) == "Running"


def test_same_spec_in_another_workspace_listed_anyway_is_refused_naming_it():
    # A service (or the emulator's switch) that lists every workspace: the workspace decides.
    c = FakeClient(search_all_workspaces=True)
    other = c.add(theirs(), "Running", workspace_id="ws-colleague")
    with pytest.raises(TrainingJobError) as e:
        submit(c, args(), NameIndex(c), Said())
    assert str(e.value) == not_ours_message(other, "Running", "workspace_id: declared '0', live 'ws-colleague'")
    assert c.job_calls == ["list"] and c.touched() == set()


def test_our_job_declared_in_a_workspace_is_taken_over_there():
    c = FakeClient(search_all_workspaces=True)
    default = c.add(theirs(), "Running")  # same name + spec, default workspace, a colleague's: not ours
    ours = c.add(args(workspace_id="ws-1").to_wire(), "Pending")
    job = submit(c, args(workspace_id="ws-1"), NameIndex(c), Said())
    assert job.id == ours.id and c.job_calls == ["list"] and c.phase_of(default.id) == "Running"


@pytest.mark.parametrize("ours_is_newest", [True, False])
def test_duplicate_names_the_one_that_is_ours_is_taken_over(ours_is_newest):
    c = FakeClient(allow_duplicate_names=True)
    other = theirs(flavor_id="modelarts.vm.cpu.8u")
    if ours_is_newest:
        colleague, ours = c.add(other, "Failed"), c.add(args().to_wire(), "Running")
    else:
        ours, colleague = c.add(args().to_wire(), "Running"), c.add(other, "Failed")
    said = Said()
    job = submit(c, args(), NameIndex(c), said)
    assert job.id == ours.id and c.job_calls == ["list"]
    assert c.phase_of(colleague.id) == "Failed" and set(c.jobs) == {ours.id, colleague.id}
    assert said == [taking_over(ours, "Running")]


def test_two_of_ours_the_newest_is_taken_over_and_the_other_deleted():
    c = FakeClient(allow_duplicate_names=True)
    older = c.add(args().to_wire(), "Completed")
    newest = c.add(args().to_wire(), "Running")
    assert submit(c, args(), NameIndex(c), Said()).id == newest.id
    assert list(c.jobs) == [newest.id] and older.id not in c.jobs and c.count("create") == 0


def test_two_not_ours_the_refusal_names_the_newest():
    c = FakeClient(allow_duplicate_names=True)
    c.add(theirs(flavor_id="f-old"), "Completed")
    newest = c.add(theirs(flavor_id="f-new"), "Running")
    with pytest.raises(TrainingJobError) as e:
        submit(c, args(), NameIndex(c), Said())
    assert str(e.value) == not_ours_message(newest, "Running",
                                            "flavor_id: declared 'modelarts.vm.cpu.2u', live 'f-new'")
    assert c.touched() == set()


def test_a_name_that_only_contains_ours_is_not_a_match():
    c = FakeClient(allow_duplicate_names=True)
    c.add(args(name="job-a-2", flavor_id="other").to_wire(), "Running")
    job = submit(c, args(), NameIndex(c), Said())
    assert job.name == "job-a" and c.job_calls == ["list", "create"]


# --- deleting and reusing a name in one process ------------------------------------------------


def test_a_replacement_reusing_the_name_after_delete_is_not_refused():
    c = FakeClient(script=["Creating", "Running"])
    index = NameIndex(c)
    old = submit(c, args(), index, Said())
    lifecycle.stop_and_delete(c, old.id, 5, 0.01, Said())
    index.forget(old.id)
    new = submit(c, args(flavor_id="modelarts.vm.cpu.8u"), index, Said())
    assert new.id != old.id and list(c.jobs) == [new.id]
    assert c.count("list") == 1 and c.count("create") == 2


def test_a_job_this_process_deleted_is_never_taken_over_even_if_still_listed():
    # DELETE answers 202 and the service may still list the job: a replacement under the same name and
    # spec (--replace, replaceFailed) must create a new job, not take over the one being deleted.
    c = FakeClient(script=["Creating", "Running"], allow_duplicate_names=True)
    index = NameIndex(c)
    old = submit(c, args(), index, Said())
    index.forget(old.id)  # what delete does; the fake service still holds (and lists) the job
    new = submit(c, args(), index, Said())
    assert new.id != old.id and c.count("create") == 2 and set(c.jobs) == {old.id, new.id}


# --- projects bigger than the listing cap -------------------------------------------------------


def test_a_project_bigger_than_max_pages_falls_back_to_a_search_per_name():
    c = FakeClient()
    ours = c.add(args().to_wire(), "Running")  # the oldest: beyond the first page
    for i in range(60):
        c.add(args(name=f"other-{i}").to_wire())
    index = NameIndex(c, max_pages=1)
    taken = submit(c, args(), index, Said())
    created = submit(c, args(name="job-new"), index, Said())
    again = submit(c, args(name="job-new"), index, Said())
    assert taken.id == ours.id and again.id == created.id and c.count("create") == 1
    assert [(d["name_like"], d["limit"]) for d in c.details("list")] == [
        (None, 51), ("job-a", 50), ("job-new", 50), ("job-new", 50)]


def test_a_project_of_exactly_max_pages_is_listed_whole():
    c = FakeClient()
    for i in range(50):
        c.add(args(name=f"other-{i}").to_wire())
    index = NameIndex(c, max_pages=1)
    submit(c, args(), index, Said())
    submit(c, args(name="job-b"), index, Said())
    assert [(d["name_like"], d["limit"]) for d in c.details("list")] == [(None, 51)]


# --- create outcomes ----------------------------------------------------------------------------


def test_ambiguous_create_resolved_by_the_client_is_one_job():
    c = FakeClient()
    c.fail_create_after_commit = True
    job = submit(c, args(), NameIndex(c), Said())
    assert list(c.jobs) == [job.id] and c.job_calls == ["list", "create", "search"]


def test_unresolvable_ambiguous_create_says_rerun_and_the_rerun_takes_over():
    c = FakeClient()
    c.ambiguous_create_unresolved = True  # committed, but the client's lookup failed
    with pytest.raises(TrainingJobError) as e:
        submit(c, args(), NameIndex(c), Said())
    assert str(e.value) == (
        "could not tell whether training job job-a was created (create of training job job-a had an ambiguous "
        "outcome and the lookup by name failed: Service Unavailable); run `pulumi up` again: it finds the job by "
        "its owner mark and takes it over if it was created, or creates it")
    assert c.job_calls == ["list", "create"]  # nothing resent, no guess

    c.ambiguous_create_unresolved = False
    (committed,) = c.jobs
    again = submit(c, args(), NameIndex(c), Said())  # the next `up`: a new provider process
    assert again.id == committed and c.count("create") == 1


def test_definitive_create_rejection_propagates_unchanged():
    c = FakeClient()
    c.create_error = ModelArtsError("flavor not found", status=400, error_code="ModelArts.2763")
    with pytest.raises(ModelArtsError) as e:
        submit(c, args(), NameIndex(c), Said())
    assert e.value is c.create_error and c.job_calls == ["list", "create"] and c.jobs == {}


def test_a_failing_listing_stops_the_create_before_any_post():
    c = FakeClient()
    c.list_faults = [ModelArtsError("forbidden", status=403)]
    with pytest.raises(ModelArtsError, match="forbidden"):
        submit(c, args(), NameIndex(c), Said())
    assert c.count("create") == 0


# --- adoption -----------------------------------------------------------------------------------


def test_adopt_a_matching_job():
    c = FakeClient(script=["Creating", "Running"])
    live = c.add(args().to_wire(), "Running")
    said = Said()
    job = submit(c, args(name=None, adopt_job_id=live.id), NameIndex(c), said)
    assert job.id == live.id and c.job_calls == ["get"]  # no listing, no POST
    assert said == [f"job-a: adopted {live.id} (Running)"]


def test_adopt_syncs_the_description():
    c = FakeClient()
    live = c.add(args(description="theirs").to_wire(), "Completed")
    job = submit(c, args(name=None, adopt_job_id=live.id, description="mine"), NameIndex(c), Said())
    assert job.description == "mine" and c.job_calls == ["get", "update"]


def test_adopt_mismatch_lists_every_differing_field():
    c = FakeClient()
    live = c.add(args().to_wire(), "Running")
    with pytest.raises(TrainingJobError) as e:
        submit(c, args(adopt_job_id=live.id, name="job-b", flavor_id="f2",
                       algorithm={"code_dir": "obs://bkt/other/", "boot_file": "obs://bkt/other/t.py",
                                  "engine": {"engine_name": "PyTorch", "engine_version": "1.8"}}),
               NameIndex(c), Said())
    assert str(e.value) == (
        f"cannot adopt training job job-a ({live.id}): the declaration differs: "
        "name: declared 'job-b', live 'job-a'; "
        "algorithm.code_dir: declared 'obs://bkt/other/', live 'obs://bkt/code/'; "  # both in one spelling
        "algorithm.boot_file: declared 'obs://bkt/other/t.py', live 'obs://bkt/code/train.py'; "
        "flavor_id: declared 'f2', live 'modelarts.vm.cpu.2u'")
    assert c.touched() == set()


def test_adopt_missing_job():
    c = FakeClient()
    with pytest.raises(TrainingJobError) as e:
        submit(c, args(adopt_job_id="zzz"), NameIndex(c), Said())
    assert str(e.value) == "adopt_job_id zzz: no such training job" and c.job_calls == ["get"]


# --- stop and delete ----------------------------------------------------------------------------


def test_delete_terminates_an_active_job_waits_and_deletes():
    c = FakeClient(script=["Creating", "Running"])
    job = c.add(args().to_wire(), "Running")
    c.terminating_polls = 2
    said = Said()
    lifecycle.stop_and_delete(c, job.id, 5, 0.01, said)
    assert c.jobs == {} and c.job_calls == ["get", "terminate", "get", "get", "get", "delete", "get"]
    assert said == ["job-a: terminating (Running)", "job-a: Running -> Terminating",
                    "job-a: Terminating -> Terminated", "job-a: deleted"]


@pytest.mark.parametrize("phase", ["Completed", "Failed", "Terminated"])
def test_delete_of_an_ended_job_does_not_terminate(phase):
    c = FakeClient()
    job = c.add(args().to_wire(), phase)
    lifecycle.stop_and_delete(c, job.id, 5, 0.01, Said())
    assert c.jobs == {} and "terminate" not in c.calls and c.count("delete") == 1


def test_delete_of_a_gone_job_succeeds():
    c = FakeClient()
    said = Said()
    lifecycle.stop_and_delete(c, "nope", 5, 0.01, said)
    assert c.job_calls == ["get"] and said == ["job nope: already gone"]


def test_stop_that_does_not_take_effect_times_out_naming_the_job():
    c = FakeClient()
    job = c.add(args().to_wire(), "Running")
    c.terminating_polls = 10**6
    clock = FakeClock()
    with pytest.raises(TrainingJobError) as e:
        lifecycle.stop(c, job, 10, 2, Said(), clock=clock)
    assert str(e.value) == f"training job job-a ({job.id}) did not stop within 10s: it is Terminating"
    assert clock.t == 10 and c.count("terminate") == 1 and job.id in c.jobs


def test_stop_terminates_again_a_job_that_moved_on_before_terminate_took():
    c = FakeClient()
    job = c.add(args().to_wire(), "Creating")
    calls = []
    real_terminate = c.terminate_job

    def terminate(job_id: str) -> TrainingJob:  # the first terminate is lost: the job moves on
        calls.append(job_id)
        if len(calls) == 1:
            c._record("terminate", job_id)
            return c._job(job_id)
        return real_terminate(job_id)

    c.terminate_job = terminate
    stopped = lifecycle.stop(c, job, 5, 0.01, Said())
    assert stopped is not None and stopped.phase == "Terminated" and len(calls) == 2


def test_the_job_a_replacement_replaces_is_not_an_orphan():
    # Create-before-delete: the engine showed this process the old job (diff); it deletes it after the create.
    c = FakeClient(allow_duplicate_names=True)
    old = c.add(args(name="job-a-old", owner=owner_of("job-a")).to_wire(), "Completed")
    new = submit(c, args(), NameIndex(c), Said(), tracked=frozenset({old.id}))
    assert set(c.jobs) == {old.id, new.id} and c.count("delete") == 0 and c.count("terminate") == 0


# --- the service answers without annotations (issue 42): the mark in the tags, a derived name proves itself ---


def _dropping(*seeded: tuple[dict, dict[str, str] | None]) -> tuple[FakeClient, list[TrainingJob]]:
    """A client answering without annotations, seeded with (create body, its tags or None)."""
    c = FakeClient()
    jobs = []
    for body, tags in seeded:
        job = c.add(body)
        if tags is not None:
            c.tags[job.id or ""] = dict(tags)
        jobs.append(job)
    c.drop_annotations = True
    return c, jobs


def test_without_annotations_our_tagged_job_is_taken_over_and_a_tagged_foreign_one_refused():
    mine = args(name="job-a")
    c, (ours,) = _dropping((mine.to_wire(), mine.owner.tags()))
    job = submit(c, mine, NameIndex(c), Said())
    assert job.id == ours.id and c.count("create") == 0 and c.count("tags_filter") == 1

    other = args(owner=owner_of("job-a", COLLEAGUE_STACK))
    c, (foreign,) = _dropping((other.to_wire(), other.owner.tags()))
    with pytest.raises(TrainingJobError) as e:
        submit(c, args(name="job-a"), NameIndex(c), Said())
    assert f"it belongs to {COLLEAGUE_STACK}::job-a" in str(e.value) and c.touched() == set()


def test_without_annotations_an_untagged_job_of_our_derived_name_and_spec_is_ours_and_gets_tagged():
    # A killed `up`: POSTed, killed before the tag request. The derived name is an HMAC of the stack's seed.
    mine = args(name="job-a-k3x9q2", derived_name=True, owner=owner_of("job-a"))
    c, (left,) = _dropping((mine.to_wire(), None))
    job = submit(c, mine, NameIndex(c), Said())
    assert job.id == left.id and c.count("create") == 0
    assert c.tags[left.id or ""] == mine.owner.tags()  # tagged now: found by its token from here on

    # Another spec under that name is not proved ours: refused, untouched.
    c, _ = _dropping((args(name="job-a-k3x9q2", description="other", derived_name=True,
                           algorithm={"id": "other-algorithm"}).to_wire(), None))
    with pytest.raises(TrainingJobError, match="carries no owner mark"):
        submit(c, mine, NameIndex(c), Said())
    assert c.touched() == set()


def test_without_annotations_an_untagged_job_of_an_explicit_name_is_refused():
    mine = args(name="job-a")
    c, _ = _dropping((mine.to_wire(), None))
    with pytest.raises(TrainingJobError, match="carries no owner mark"):
        submit(c, mine, NameIndex(c), Said())
    assert c.touched() == set()


def test_without_annotations_a_delete_reads_the_tags_and_spares_another_owners_job():
    other = args(owner=owner_of("job-a", COLLEAGUE_STACK))
    c, (foreign,) = _dropping((other.to_wire(), other.owner.tags()))
    mark = args(name="job-a").owner
    with pytest.raises(TrainingJobError, match="is not this resource's"):
        lifecycle.stop_and_delete(c, foreign.id or "", 5, 0.01, Said(), mark)
    assert c.touched() == set() and c.count("tags_get") == 1


def test_a_created_job_carries_the_declared_tags_and_the_owner_marks():
    c = FakeClient()
    mine = args(name="job-a", tags={"team": "vision"})
    job = submit(c, mine, NameIndex(c), Said())
    assert c.tags[job.id or ""] == {"team": "vision", **mine.owner.tags()}


# --- finished runs kept, keepRuns -------------------------------------------------------------------


def test_finished_runs_are_kept_by_default_and_pruned_beyond_keep_runs_oldest_first():
    """Every run of a key carries its owner token: the kept ones are found by it. A new run keeps the newest
    keep_runs - 1 finished runs beside it; older finished runs of ours are deleted; a running predecessor
    (the engine's to stop), a foreign job and an explicit opt-out are never touched."""
    c = FakeClient()
    mark = owner_of("a")

    def run(name: str, phase: str, owner: dict = mark) -> TrainingJob:
        return c.add(args(name=name, owner=owner, derived_name=True).to_wire(), phase)

    oldest = [run("a-r1", "Completed"), run("a-r2", "Failed")]
    kept = [run("a-r3", "Terminated"), run("a-r4", "Completed")]
    running = run("a-r5", "Running")
    foreign = run("b-r1", "Completed", owner_of("b"))
    said = Said()
    new = submit(c, args(name="a-r6", owner=mark, derived_name=True, keep_runs=3), NameIndex(c), said,
                 frozenset({running.id or ""}))
    assert set(c.jobs) == {j.id for j in [*kept, running, foreign, new]}
    assert [line for line in said if "keepRuns" in line] == [
        "a-r1: deleted (Completed, run older than the 3 kept, keepRuns); its OBS outputs stay",
        "a-r2: deleted (Failed, run older than the 3 kept, keepRuns); its OBS outputs stay"]


def test_a_removed_keys_kept_runs_are_waited_for_until_the_service_no_longer_has_them():
    """Deletes are asynchronous: a destroy (or a removed key) that deletes the kept runs waits until each is gone,
    as it does for the key's current run, so nothing of ours is left when it ends; all are deleted first, then
    waited for together. Retention at a create does not wait (its runs hold other names)."""
    c = FakeClient()
    c.deleting_polls = 2  # each deleted job is still answered twice after its DELETE
    mark = owner_of("a")
    runs = [c.add(args(name=f"a-r{n}", owner=mark, derived_name=True).to_wire(), "Completed") for n in (1, 2)]
    said = Said()
    deleted = lifecycle.delete_runs(c, OwnerMark.model_validate(mark), None, NameIndex(c), said, keep=0, besides="",
                                    why="kept run of a removed key", gone_within=(30.0, 0.01))
    assert sorted(deleted) == sorted(j.id for j in runs)
    assert not c.jobs  # gone when it returns
    calls = [op for op in c.calls if op in ("delete", "get")]
    second_delete = calls.index("delete", calls.index("delete") + 1)
    assert calls[second_delete + 1:].count("get") >= 4  # both deleted first, then each waited for (2 polls each)


def test_the_opt_out_keeps_the_old_behaviour_no_finished_run_kept():
    c = FakeClient()
    mark = owner_of("a")
    orphan = c.add(args(name="a-r1", owner=mark, derived_name=True).to_wire(), "Completed")
    submit(c, args(name="a-r2", owner=mark, derived_name=True, keep_finished_runs=False), NameIndex(c), Said())
    assert orphan.id not in c.jobs


@pytest.mark.parametrize("over, keeps, per_run", [
    ({"derived_name": True}, True, True),            # the default with a derived name
    ({}, False, False),                              # an explicit name: the service holds it once
    ({"derived_name": True, "keep_finished_runs": False, "output_per_run": False}, False, False),
])
def test_what_unset_run_options_come_to(over, keeps, per_run):
    from modelarts_provider.training_job.args import writes_per_run

    a = args(**over)
    assert a.keeps_finished_runs is keeps and writes_per_run(a.model_dump()) is per_run
    assert a.runs_kept == 10


# --- a job the stack's state holds (pulumi up --replace), a copied stack (issue 43) ---------------------------


def test_a_job_the_state_holds_is_neither_taken_over_nor_deleted_by_a_replacement():
    # `pulumi up --replace`: never diffed, so nothing is tracked; the state (held_by_state) holds the job. The
    # replacement's name is the next generation (naming.py); the engine deletes the old job after this create.
    c = FakeClient()
    old = c.add(args(name="job-a-gen0").model_copy(update={"owner": args().owner}).to_wire(), "Completed")
    asked: list[int] = []

    def held() -> frozenset[str]:
        asked.append(1)
        return frozenset({old.id or ""})

    new = submit(c, args(), NameIndex(c), Said(), held_by_state=held)
    assert new.id != old.id and asked == [1] and set(c.jobs) == {old.id, new.id}
    assert c.count("terminate") == 0 and c.count("delete") == 0


def test_the_same_job_not_in_the_state_is_taken_over_as_after_a_killed_up():
    c = FakeClient()
    mine = c.add(args().to_wire(), "Running")
    said = Said()
    job = submit(c, args(), NameIndex(c), said, held_by_state=lambda: frozenset())
    assert job.id == mine.id and said == [taking_over(mine, "Running")] and c.touched() == set()


def test_a_replacement_keeping_an_explicit_name_the_state_holds_is_refused_before_any_change():
    c = FakeClient()
    old = c.add(args().to_wire(), "Completed")
    with pytest.raises(TrainingJobError) as e:
        submit(c, args(), NameIndex(c), Said(), held_by_state=lambda: frozenset({old.id or ""}))
    assert str(e.value).startswith(f"training job job-a ({old.id}, Completed) is recorded in this stack's state")
    assert "set the resource option deleteBeforeReplace" in str(e.value) and c.touched() == set()


def test_an_unreadable_state_leaves_every_job_of_ours_alone():
    c = FakeClient()
    orphan = c.add(args(name="job-a-old", flavor_id="modelarts.vm.cpu.8u").model_copy(
        update={"owner": args().owner}).to_wire(), "Running")
    said = Said()
    new = submit(c, args(), NameIndex(c), said, held_by_state=lambda: None)
    assert new.id != orphan.id and c.count("terminate") == 0 and c.count("delete") == 0
    assert any("the stack's state could not be read" in line and orphan.id in line for line in said), said


def test_a_job_with_our_token_marked_by_another_stack_is_never_taken_over_or_deleted():
    # A stack copied with `stack export` / `stack import` shares the seed, hence the tokens, of the original.
    c = FakeClient()
    original = args(owner={**args().owner.model_dump(), "stack": "organization/proj/original"})
    theirs_job = c.add(original.to_wire(), "Running")
    copy = args(owner={**args().owner.model_dump(), "stack": "organization/proj/copy"})
    with pytest.raises(TrainingJobError) as e:
        submit(c, copy, NameIndex(c), Said())
    assert "it belongs to organization/proj/original::job-a" in str(e.value) and c.touched() == set()
    with pytest.raises(TrainingJobError) as e:
        lifecycle.stop_and_delete(c, theirs_job.id or "", 5, 0.01, Said(), copy.owner)
    assert "is not this resource's (it belongs to organization/proj/original::job-a" in str(e.value)
    # The copy's state records the original's mark: the stack deleting is the one the call's URN names.
    from modelarts_provider.core.call_urn import CURRENT_URN

    reset = CURRENT_URN.set("urn:pulumi:copy::proj::pulumi-python:dynamic/modelarts:TrainingJob::job-a")
    try:
        with pytest.raises(TrainingJobError):
            lifecycle.stop_and_delete(c, theirs_job.id or "", 5, 0.01, Said(), original.owner)
    finally:
        CURRENT_URN.reset(reset)
    assert c.touched() == set() and set(c.jobs) == {theirs_job.id}


def test_a_running_job_the_state_holds_is_stopped_first_when_its_replacement_writes_where_it_does():
    # `pulumi up --replace` of a running job: never diffed, so the replacement's create keeps the rule that two
    # runs never write to one OBS path at once; the engine deletes the stopped job after this create.
    c = FakeClient(script=["Running", "Terminated"])
    old = c.add(args(name="job-a-gen0").model_copy(update={"owner": args().owner}).to_wire(), "Running")
    said = Said()
    new = submit(c, args(), NameIndex(c), said, held_by_state=lambda: frozenset({old.id or ""}))
    assert c.calls.index("terminate") < c.calls.index("create") and c.count("delete") == 0
    assert new.id != old.id and any("stopping it first" in line for line in said), said
    # Each run in its own folder (output_per_run): nothing shared, nothing stopped.
    c2 = FakeClient()
    old2 = c2.add(args(name="job-a-gen0").model_copy(update={"owner": args().owner}).to_wire(), "Running")
    submit(c2, args(output_per_run=True, derived_name=True), NameIndex(c2), Said(),
           held_by_state=lambda: frozenset({old2.id or ""}))
    assert c2.count("terminate") == 0

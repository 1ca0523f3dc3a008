"""Each field of a job is declared once (core/fields.py): these tests hold the declarations complete and the
rules derived from them equal to the ones written by hand before (the diff's sets, the payload, the read-back)."""

from __future__ import annotations

import pytest

from modelarts_provider.core.fields import Change, Declared, declarations, fields_changing
from modelarts_provider.training_job import args as ARGS
from modelarts_provider.training_job.args import TrainingJobArgs


def test_every_job_field_has_one_complete_declaration() -> None:
    for f in declarations(TrainingJobArgs):  # raises for a field without exactly one Declared
        assert isinstance(f.declared, Declared)
        assert f.info.description and len(f.info.description) > 10, f"{f.name}: no description"
        assert isinstance(f.declared.change, Change)
        if f.declared.api is not None:
            assert f.declared.api.split(".")[0] in ("metadata", "spec", "algorithm", "kind"), f.name
            assert f.declared.change in (Change.REPLACE, Change.IN_PLACE), f"{f.name}: sent, yet {f.declared.change}"


# The diff's rules as they were written by hand before the declarations (training_job/args.py at 9615b31).
BEFORE_PROVIDER_ONLY = {"wait_for", "wait_timeout_seconds", "poll_interval_seconds", "delete_timeout_seconds",
                        "delete_before_replace", "replace_failed", "adopt_job_id", "derived_name", "owner",
                        "keep_finished_runs", "output_per_run", "keep_runs", "secret_paths"}
BEFORE_UPDATABLE = {"description", "tags"}
BEFORE_MESSAGE_ONLY = {"config_keys", "retries"}  # retries: carried by its annotation (args.py)


def test_derived_diff_rules_equal_the_hand_written_ones() -> None:
    assert ARGS.PROVIDER_ONLY_FIELDS == BEFORE_PROVIDER_ONLY
    assert ARGS.UPDATABLE_FIELDS == BEFORE_UPDATABLE
    assert ARGS.MESSAGE_ONLY_FIELDS == BEFORE_MESSAGE_ONLY
    replaced = fields_changing(TrainingJobArgs, Change.REPLACE)
    assert replaced == set(TrainingJobArgs.model_fields) - BEFORE_PROVIDER_ONLY - BEFORE_UPDATABLE - BEFORE_MESSAGE_ONLY


@pytest.mark.parametrize("model", [m for m in vars(ARGS).values()
                                   if isinstance(m, type) and issubclass(m, ARGS._ArgModel)
                                   and m not in (ARGS._ArgModel, TrainingJobArgs)])
def test_every_nested_model_says_where_it_sits_in_the_request(model: type) -> None:
    # the schema describes its fields without a description of their own by this path (plugin/schema.py)
    assert model.API_PATH and model.API_PATH.split(".")[0] in ("algorithm", "spec"), model.__name__


def test_a_config_name_is_the_job_entry_key_that_sets_the_argument_as_it_is() -> None:
    # the job entry (stack/config.py) declares its own keys for the arguments it shapes; every argument (or part of
    # one: algorithm.command) with a config name is derived into it (stack/job_fields.with_declared) with the
    # argument's type, rules, default and description: the key maps to the argument, and a direct key is declared
    # nowhere else
    from pydantic.alias_generators import to_snake

    from modelarts_provider.core.fields import configured
    from modelarts_provider.stack.config import JobEntry
    from modelarts_provider.stack.job_fields import maps_of

    table = maps_of(JobEntry)
    found = configured(TrainingJobArgs)
    assert {c.path for c in found} >= {"node_count", "description", "wait_for", "adopt_job_id", "algorithm.id",
                                       "algorithm.command", "algorithm.working_dir", "algorithm.local_code_dir"}
    for c in found:
        row = table.row(c.key)
        assert row.maps.direct and row.maps.paths == (c.path,), f"{c.path}: {row}"
        assert (c.path.split(".")[0],) in table.sent or not c.declared.sent, f"{c.path}: sent, yet not in a job's data"
        assert row.maps.secret == (c.declared.secret or c.declared.sent), f"{c.path}: a secret set on {c.key} is lost"
        entry = JobEntry.model_fields[to_snake(c.key)]
        assert entry.annotation == c.info.annotation and entry.metadata[:len(c.info.metadata)] == c.info.metadata
        assert entry.get_default(call_default_factory=True) == c.info.get_default(call_default_factory=True)
        assert entry.description == c.info.description, c.path
    assert {r.key for r in table.rows if r.maps.direct} == {c.key for c in found}


def test_what_to_wire_and_from_wire_do_along_a_path() -> None:
    from pydantic import BaseModel, Field
    from typing import Annotated

    from modelarts_provider.core.fields import from_wire, to_wire

    class Probe(BaseModel):
        a: Annotated[int, Declared(api="spec.x.a")] = 1
        b: Annotated[list[int], Declared(api="spec.b", wire=lambda v: [i * 2 for i in v],
                                         read=lambda v: [i // 2 for i in v or []])] = Field(default_factory=list)
        c: Annotated[str | None, Declared(change=Change.PROVIDER)] = None

    body = to_wire(Probe(a=3, b=[1, 2], c="x"))
    assert body == {"spec": {"x": {"a": 3}, "b": [2, 4]}}  # c: never sent
    assert from_wire(Probe, body) == {"a": 3, "b": [1, 2]}
    assert to_wire(Probe()) == {"spec": {"x": {"a": 1}}}  # an empty list is left out
    assert from_wire(Probe, {"spec": {"x": {"a": 1}}}) == {}  # the default is what a declaration leaves unset


def test_what_changes_in_place_is_found_patched_and_read_back_from_the_declarations() -> None:
    """A field declared Change.IN_PLACE gets its change found, its merge patch and its drift from its declaration
    alone (core/fields.py): what a pool's update and read use (resource_pool/provider.py)."""
    from typing import Annotated

    from pydantic import BaseModel

    from modelarts_provider.core.fields import changed_in_place, drifted, patch_body

    class Probe(BaseModel):
        name: Annotated[str, Declared(api="metadata.name")]  # replaces: never patched
        version: Annotated[str | None, Declared(change=Change.IN_PLACE, api="spec.driver.version")] = None
        note: Annotated[str | None, Declared(change=Change.IN_PLACE, api="metadata.annotations[x.io/note]")] = None
        nodes: Annotated[list[int], Declared(change=Change.IN_PLACE, api="spec.nodes", wire=sorted,
                                             patch=lambda v: [{"n": i} for i in sorted(v)],
                                             drift=lambda declared, live: [n["n"] for n in live or []])] = [1]
        poll: Annotated[float, Declared(change=Change.PROVIDER)] = 5.0

    old = Probe(name="a", version="470", note="x", nodes=[2, 1])
    new = Probe(name="b", version="535", note=None, nodes=[1, 2], poll=1.0)
    changed = changed_in_place(old, new)
    assert [f.name for f in changed] == ["version", "note"]  # nodes: the same in the form sent; name, poll: not here
    assert patch_body(new, changed) == {"spec": {"driver": {"version": "535"}},
                                        "metadata": {"annotations": {"x.io/note": None}}}  # null removes it
    assert patch_body(new, [f for f in declarations(Probe) if f.name == "nodes"]) == \
        {"spec": {"nodes": [{"n": 1}, {"n": 2}]}}  # its update form
    live = {"metadata": {"name": "a", "annotations": {"x.io/note": "edited"}}, "spec": {"driver": {"version": "470"},
                                                                                        "nodes": [{"n": 3}]}}
    recorded = {"name": "a", "version": "470", "note": "x", "nodes": [1, 2], "poll": 5.0}
    assert drifted(Probe, recorded, live) == {**recorded, "note": "edited", "nodes": [3]}  # what was changed outside
    assert drifted(Probe, {**recorded, "note": None}, {"metadata": {}, "spec": {"driver": {"version": "470"},
                                                                                "nodes": [{"n": 1}, {"n": 2}]}}) \
        == {**recorded, "note": None}  # nothing drifted: nothing replaced ("" and None are both unset)


def test_pools_and_networks_declare_each_field_and_their_diff_follows() -> None:
    from modelarts_provider.network import args as network
    from modelarts_provider.resource_pool import args as pool, diff as pool_diff

    for model in (network.NetworkArgs, pool.ResourcePoolArgs):
        for f in declarations(model):
            assert f.info.description, f"{model.__name__}.{f.name}: no description"
    # as written by hand before the declarations
    assert network.REPLACING == ("name", "cidr", "workspace_id")
    assert network.OPTIONS == ("timeout_seconds", "poll_interval_seconds", "force_delete")  # as h4 added it
    assert pool_diff.REPLACING == ("name", "network", "workspace_id")
    assert pool_diff.OPTIONS == ("timeout_seconds", "poll_interval_seconds", "force_delete")


@pytest.mark.parametrize("declared", [
    {"name": "j1", "description": "d", "workspace_id": "ws", "annotations": {"a": "b"}, "flavor_id": "f",
     "node_count": 3, "volumes": [{"nfs_server_path": "h:/x", "local_path": "/mnt", "read_only": True}],
     "log_export_path": {"obs_url": "obs://bkt/logs/"}, "auto_stop": {"duration": 4},
     "algorithm": {"code_dir": "obs://bkt/code/", "boot_file": "/bkt/code/t.py", "engine": {"engine_id": "e1"},
                   "parameters": {"lr": 0.1}, "environments": {"A": "1"},
                   "inputs": [{"name": "data", "obs_url": "obs://bkt/data/"}],
                   "outputs": [{"name": "out", "obs_url": "obs://bkt/out/", "local_dir": "/home/o"}]}},
    {"name": "j2", "pool_id": "p1", "log_export_path": {"host_path": "/var/log"},
     "algorithm": {"engine": {"image_url": "swr/x:1"}, "command": "python x.py"}},
])
def test_every_sent_field_reads_back_as_declared(declared: dict) -> None:
    # the payload and the read-back follow the same declared paths: a job created from a declaration reads back
    # as that declaration (what `pulumi import` records), field by field
    from modelarts_provider.client.models import TrainingJob
    from modelarts_provider.training_job.from_live import declaration_of
    from modelarts_provider.training_job.normalize import canonical

    args = TrainingJobArgs.model_validate(declared)
    wire = args.to_wire()
    live = TrainingJob.model_validate({**wire, "metadata": {**wire["metadata"], "id": "id-1"}})
    sent = {f.name for f in declarations(TrainingJobArgs) if f.declared.sent}
    assert {k: v for k, v in canonical(declaration_of(live)).items() if k in sent} == \
        {k: v for k, v in canonical(declared).items() if k in sent}


def test_resource_output_attributes_come_from_the_outputs_models_with_nested_models_as_plain_dicts() -> None:
    """The SDK translates what it resolves by these annotations: a pydantic model there fails every `up` that
    reads the output (only an SDK output type could be built), so nested models are spelt as dicts."""
    import typing

    from pydantic import BaseModel

    from modelarts_provider.code_upload.resource import CodeUpload
    from modelarts_provider.network.resource import Network
    from modelarts_provider.resource_pool.resource import ResourcePool
    from modelarts_provider.training_job.outputs import JobStatusOutputs
    from modelarts_provider.training_job.resource import TrainingJob

    def models_in(tp: typing.Any) -> list[type]:
        if isinstance(tp, type) and issubclass(tp, BaseModel):
            return [tp]
        return [m for a in typing.get_args(tp) for m in models_in(a)]

    for cls in (TrainingJob, Network, ResourcePool, CodeUpload):
        assert cls.__annotations__, cls
        assert not [k for k, v in cls.__annotations__.items() if models_in(v)], cls
    assert set(TrainingJob.__annotations__) == set(JobStatusOutputs.model_fields)
    assert typing.get_args(TrainingJob.__annotations__["task_statuses"]) == (list[dict[str, typing.Any]],)

"""One row per job field (stack/job_fields.py): a field in one layer and not in the table fails here."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from modelarts_provider.client.models import CreateTrainingJobRequest
from modelarts_provider.core.fields import declarations
from modelarts_provider.stack import program, secrets
from modelarts_provider.stack.config import JobEntry, parse
from modelarts_provider.stack.job_fields import maps_of
from modelarts_provider.training_job.args import AlgorithmArg, TrainingJobArgs
from modelarts_provider.training_job.diff import WRITTEN_INPUTS
from testkit.faults import OBS, POOLS, job

TABLE = maps_of(JobEntry)
# TrainingJobArgs fields no job entry key stands for: filled by the program or the provider itself.
PROGRAM_OWN = {"workspace_id", "kind", "tasks", "derived_name", "secret_paths", "config_keys", "owner", "algorithm"}
ALGORITHM_OWN = {"name", "autosearch_config_path", "autosearch_framework_path", "policies"}


def _args_paths() -> set[str]:
    top = set(TrainingJobArgs.model_fields) - PROGRAM_OWN
    return top | {f"algorithm.{f}" for f in set(AlgorithmArg.model_fields) - ALGORITHM_OWN}


def _field_exists(model: type[BaseModel], dotted: str) -> bool:
    head, _, rest = dotted.partition(".")
    if head not in model.model_fields:
        return False
    return not rest or _field_exists(AlgorithmArg, rest)


def test_every_job_entry_field_is_a_row() -> None:
    assert [r.attr for r in TABLE.rows] == list(JobEntry.model_fields)


def test_a_field_without_a_row_is_refused() -> None:
    class Entry(BaseModel):
        a: int = 1

    with pytest.raises(TypeError, match=r"Entry\.a: needs exactly one Maps"):
        maps_of(Entry)


def test_every_args_path_of_a_row_exists() -> None:
    for r in TABLE.rows:
        for p in (*r.maps.paths, *r.maps.carries):
            assert _field_exists(TrainingJobArgs, p), f"{r.key}: {p} is not a TrainingJobArgs field"


def test_every_args_field_has_a_row() -> None:
    covered = {p for r in TABLE.rows for p in (*r.maps.paths, *r.maps.carries)}
    assert _args_paths() - covered == set()


def test_what_a_job_sends_is_in_the_create_request() -> None:
    # the args fields sent in the create request are those declared with an API path (core/fields.py), every
    # path inside the request's model
    sent = {f.name: f.declared.api for f in declarations(TrainingJobArgs) if f.declared.api is not None}
    assert {str(api).split(".")[0] for api in sent.values()} <= set(CreateTrainingJobRequest.model_fields)
    # tags: sent by the tag API right after the create (the create request has no tags); retries: written into the
    # annotations (training_job/args.py), sent with them
    wire = set(sent) | {"tags", "retries"}
    assert {p[0] for p in TABLE.sent} <= wire


def test_the_written_paths_are_the_rows_that_write() -> None:
    assert [".".join(p) for p in TABLE.obs_paths("writes")] == list(WRITTEN_INPUTS)


def test_the_derived_maps_name_config_keys() -> None:
    assert program._CONFIG_NAMES["algorithm.code_dir"] == "codeDir"
    assert program._CONFIG_NAMES["algorithm.item_version_id"] == "subscription.versionId"
    assert program._config_words("code_dir must be set with boot_file") == "codeDir must be set with bootFile"
    assert secrets._JOB_FIELDS["codeDir"] == [("algorithm", "code_dir"), ("algorithm", "boot_file")]
    assert ("name",) not in secrets._JOB_DATA  # a job's name is its identity, never hidden as data
    assert ("algorithm", "environments") in secrets._KEYED


def test_direct_fields_reach_the_args_unchanged() -> None:
    """Every `direct` row's value lands, unchanged, at its args path (nested ones left out when unset)."""
    values: dict[str, Any] = {"command": "python x.py", "workingDir": "/w", "description": "d", "nodes": 3,
                              "replaceFailed": True, "waitFor": "completed", "waitTimeoutSeconds": 7,
                              "pollIntervalSeconds": 1, "deleteTimeoutSeconds": 9, "deleteBeforeReplace": True,
                              "keepFinishedRuns": True, "outputPerRun": True, "adoptJobId": "job-1",
                              "localCodeDir": "/l"}
    cfg = parse({"obs": OBS, "pools": POOLS, "jobs": {"a": job(**values)}})
    got = program.job_args(cfg, cfg.jobs["a"], "a", name=None)
    for attr, path in TABLE.direct:
        head, _, rest = path.partition(".")
        landed = got[head] if not rest else got["algorithm"].get(rest)
        assert landed == getattr(cfg.jobs["a"], attr), path
    assert {TABLE.row(k).attr for k in values} <= {a for a, _ in TABLE.direct} | {"algorithm_id"}
    bare = program.job_args(cfg, parse({"obs": OBS, "pools": POOLS, "jobs": {"a": job()}}).jobs["a"], "a", name=None)
    assert "working_dir" not in bare["algorithm"] and "command" not in bare["algorithm"]


# A job entry with every key whose value is the argument as it is set (stack/job_fields.with_declared), and what
# the stack program made of it when JobEntry still declared those keys by hand (93c25a8): the same inputs, the same
# secret paths, so an existing stack sees no diff.
EVERY_DIRECT_KEY = {"nodes": 2, "description": "a description", "command": "python train.py --x",
                    "workingDir": "/home/w", "localCodeDir": "/home/ma-user/code", "workspaceId": "ws-1234",
                    "waitFor": "running", "waitTimeoutSeconds": 600, "pollIntervalSeconds": 0.5,
                    "deleteTimeoutSeconds": 300, "deleteBeforeReplace": True, "keepFinishedRuns": False,
                    "outputPerRun": False, "keepRuns": 3, "replaceFailed": True, "adoptJobId": "job-0001",
                    "environments": {"HF_TOKEN": "hf-secret-token"}}
ENGINE_AS_BEFORE = {"engine_name": "PyTorch", "engine_version": "pytorch_1.8.0-cuda_10.2-py_3.7-ubuntu_18.04-x86_64"}
INPUTS_AS_BEFORE = {
    "full": {"description": "a description", "workspace_id": "ws-1234",
             "algorithm": {"code_dir": "obs://emulator-bucket/code/mnist/",
                           "boot_file": "obs://emulator-bucket/code/mnist/train.py", "command": "python train.py --x",
                           "parameters": [{"name": "lr", "value": "0.01"}],
                           "outputs": [{"name": "train_url", "obs_url": "obs://emulator-bucket/outputs/full/"}],
                           "engine": ENGINE_AS_BEFORE, "local_code_dir": "/home/ma-user/code",
                           "working_dir": "/home/w", "environments": {"HF_TOKEN": "hf-secret-token"}},
             "flavor_id": "modelarts.p3.large.public", "node_count": 2,
             "log_export_path": {"obs_url": "obs://emulator-bucket/logs/full/"}, "wait_for": "running",
             "wait_timeout_seconds": 600.0, "poll_interval_seconds": 0.5, "delete_timeout_seconds": 300.0,
             "delete_before_replace": True, "output_per_run": False, "keep_finished_runs": False, "keep_runs": 3,
             "replace_failed": True, "adopt_job_id": "job-0001",
             "config_keys": {"flavor_id": "modelarts-jobs:pools.gpu.flavor",
                             "algorithm.engine": "modelarts-jobs:jobs.full.engine",
                             "algorithm.environments": "modelarts-jobs:jobs.full.environments"}},
    "byid": {"algorithm": {"id": "alg-0001", "parameters": [{"name": "lr", "value": "0.01"}],
                           "outputs": [{"name": "train_url", "obs_url": "obs://emulator-bucket/outputs/byid/"}]},
             "flavor_id": "modelarts.p3.large.public",
             "log_export_path": {"obs_url": "obs://emulator-bucket/logs/byid/"},
             "wait_timeout_seconds": 120.0, "poll_interval_seconds": 0.2, "delete_timeout_seconds": 120.0,
             "config_keys": {"flavor_id": "modelarts-jobs:pools.gpu.flavor",
                             "algorithm.engine": "modelarts-jobs:jobs.byid.engine",
                             "algorithm.environments": "modelarts-jobs:jobs.byid.environments",
                             "algorithm.id": "modelarts-jobs:jobs.byid.algorithmId"}},
}
# A key set with --secret --path -> the inputs marked secret. workspaceId was [] (a provider option's rule, though
# the service receives it): a secret shorter than 4 characters then reached the state in plaintext.
SECRET_INPUTS_AS_BEFORE = {
    "nodes": [("node_count",)], "description": [("description",)], "command": [("algorithm", "command")],
    "workingDir": [("algorithm", "working_dir")], "localCodeDir": [("algorithm", "local_code_dir")],
    "workspaceId": [("workspace_id",)], "algorithmId": [("algorithm", "id")],
    "waitFor": [], "waitTimeoutSeconds": [], "adoptJobId": [], "keepRuns": [],  # the provider's own options
}
WHOLE_ENTRY_AS_BEFORE = {("flavor_id",), ("pool_id",), ("node_count",), ("description",), ("algorithm",),
                         ("log_export_path",), ("auto_stop",), ("volumes",), ("annotations",), ("tags",),
                         ("workspace_id",), ("retries",)}  # retries: now the TrainingJob's own argument


def test_the_derived_keys_give_the_inputs_the_hand_written_ones_gave() -> None:
    by_id = {"codeDir": None, "bootFile": None, "engine": None, "algorithmId": "alg-0001"}
    cfg = parse({"obs": OBS, "pools": POOLS, "jobs": {"full": job(**EVERY_DIRECT_KEY), "byid": job(**by_id)}})
    got = {p.config_path.rpartition(".")[2]: p.args.model_dump(exclude_none=True, exclude_defaults=True)
           for p in program.plan(cfg)}
    assert got == INPUTS_AS_BEFORE
    for key, inputs in SECRET_INPUTS_AS_BEFORE.items():
        entry = "byid" if key == "algorithmId" else "full"
        at = secrets.SecretPaths(paths=(("jobs", entry, key),))
        assert secrets.job_selectors(at, "jobs", entry, "main", "gpu") == inputs, key
    whole = secrets.job_selectors(secrets.SecretPaths(paths=(("jobs", "full"),)), "jobs", "full", "main", "gpu")
    assert len(whole) == len(WHOLE_ENTRY_AS_BEFORE) and set(whole) == WHOLE_ENTRY_AS_BEFORE  # disjoint: order is moot

"""TrainingJob: a ModelArts training job as a Pulumi dynamic resource.

    job = TrainingJob("resnet", {
        "algorithm": {"code_dir": "obs://bucket/code/", "boot_file": "obs://bucket/code/train.py",
                      "engine": {"engine_name": "PyTorch", "engine_version": "pytorch_1.8.0-..."},
                      "parameters": {"lr": "0.01"},
                      "outputs": [{"name": "train_url", "obs_url": "obs://bucket/out/"}]},
        "flavor_id": "modelarts.p3.large.public",
        "wait_for": "completed",
    })

Args: see TrainingJobInputs (and modelarts_provider.args.TrainingJobArgs for the rules). Every value
may be a Pulumi Input. Outputs: job_id, job_name, phase, secondary_phase, create_time, start_time,
duration_ms, flavor_name, task_names, task_statuses, output_paths, output_path, console_url.

Naming: `name` if given; otherwise "<resource name>-<6 random chars>" from a pulumi-random
RandomString whose keepers hash the canonical replace-triggering spec (normalize.py), so the suffix
is stable across updates and equivalent declarations, and renewed when the job is replaced.

Creating a TrainingJob submits the job and returns once the service accepted it. `wait_for` is
honoured by the awaiting resource: pass the jobs to `modelarts_provider.JobsAwait` (the stack program
does it for every job whose wait_for is not "none").
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Optional, TypedDict

import pulumi
import pulumi_random as random
from pulumi.dynamic import Resource

from .args import TrainingJobArgs, WaitFor
from .normalize import spec_hash
from .outputs import OUTPUT_KEYS
from .provider import TrainingJobProvider

# One provider object for every job: identical pickles, one configured instance per provider process.
PROVIDER = TrainingJobProvider()
SUFFIX_LENGTH = 6


class EngineInputs(TypedDict, total=False):
    engine_id: pulumi.Input[str]
    engine_name: pulumi.Input[str]
    engine_version: pulumi.Input[str]
    image_url: pulumi.Input[str]


class InputChannelInputs(TypedDict, total=False):
    name: pulumi.Input[str]
    obs_url: pulumi.Input[str]
    dataset: pulumi.Input[Mapping[str, pulumi.Input[str]]]  # {id, version_id, obs_url?}
    local_dir: pulumi.Input[str]
    description: pulumi.Input[str]
    remote_constraint: pulumi.Input[list[Mapping[str, Any]]]


class OutputChannelInputs(TypedDict, total=False):
    name: pulumi.Input[str]
    obs_url: pulumi.Input[str]
    local_dir: pulumi.Input[str]
    description: pulumi.Input[str]


class AlgorithmInputs(TypedDict, total=False):
    """Exactly one form: id | subscription_id + item_version_id | code_dir + boot_file (+ engine) |
    engine.image_url (+ command)."""

    id: pulumi.Input[str]
    name: pulumi.Input[str]
    subscription_id: pulumi.Input[str]
    item_version_id: pulumi.Input[str]
    code_dir: pulumi.Input[str]
    boot_file: pulumi.Input[str]
    autosearch_config_path: pulumi.Input[str]
    autosearch_framework_path: pulumi.Input[str]
    command: pulumi.Input[str]
    parameters: pulumi.Input[list[Mapping[str, Any]] | Mapping[str, Any]]  # [{name, value}] or {name: value}
    policies: pulumi.Input[Mapping[str, Any]]  # {auto_search: {...}}
    inputs: pulumi.Input[list[InputChannelInputs]]
    outputs: pulumi.Input[list[OutputChannelInputs]]
    engine: pulumi.Input[EngineInputs]
    local_code_dir: pulumi.Input[str]
    working_dir: pulumi.Input[str]
    environments: pulumi.Input[Mapping[str, pulumi.Input[str]]]


class TrainingJobInputs(TypedDict, total=False):
    # metadata
    name: pulumi.Input[str]
    description: pulumi.Input[str]
    workspace_id: pulumi.Input[str]
    annotations: pulumi.Input[Mapping[str, pulumi.Input[str]]]
    kind: pulumi.Input[str]
    # body
    algorithm: pulumi.Input[AlgorithmInputs]
    tasks: pulumi.Input[list[Mapping[str, Any]]]
    # spec
    flavor_id: pulumi.Input[str]
    pool_id: pulumi.Input[str]
    node_count: pulumi.Input[int]
    volumes: pulumi.Input[list[Mapping[str, Any]]]  # [{nfs_server_path, local_path, read_only}]
    log_export_path: pulumi.Input[Mapping[str, pulumi.Input[str]]]  # {obs_url?, host_path?}
    auto_stop: pulumi.Input[Mapping[str, Any]]  # {duration: hours, time_unit: "HOURS"}
    # provider options
    wait_for: pulumi.Input[WaitFor]
    wait_timeout_seconds: pulumi.Input[float]
    poll_interval_seconds: pulumi.Input[float]
    delete_timeout_seconds: pulumi.Input[float]
    delete_before_replace: pulumi.Input[bool]
    keep_finished_runs: pulumi.Input[bool]
    output_per_run: pulumi.Input[bool]
    replace_failed: pulumi.Input[bool]
    adopt_job_id: pulumi.Input[str]
    secret_paths: pulumi.Input[list[str]]  # set by the stack program: the dotted paths of secret inputs
    owner: pulumi.Input[Mapping[str, pulumi.Input[str]]]  # {stack, resource, token}: set by the resource
    config_keys: pulumi.Input[Mapping[str, str]]  # where checked values were declared (stack program)


def name_prefix(resource_name: str) -> str:
    """A job-name-safe prefix of the resource name, leaving room for '-' + suffix."""
    safe = re.sub(r"[^A-Za-z0-9_-]+", "-", resource_name).strip("-") or "job"
    return safe[: 64 - SUFFIX_LENGTH - 1]


def replacement_keepers(props: Mapping[str, Any]) -> pulumi.Output[dict[str, str]]:
    """keepers for the name suffix: a hash of the canonical spec (every input whose change replaces)."""
    return pulumi.Output.from_input(dict(props)).apply(lambda p: {"spec": spec_hash(p)})


def _in_run_folder(url: Any, run: pulumi.Output[str]) -> Any:
    return pulumi.Output.concat(pulumi.Output.from_input(url).apply(lambda u: u.rstrip("/") + "/"), run, "/")


def with_run_folders(props: dict[str, Any], run: Any, in_folder: Any = _in_run_folder) -> dict[str, Any]:
    """output_per_run: every output channel and the log export path get a folder named after the run (the
    derived job name, renewed with each replacement), so a new run never writes over an earlier one.
    `in_folder(url, run)`: Outputs here; plain strings in the provider plugin's check."""
    out = dict(props)
    alg = out.get("algorithm")
    if isinstance(alg, Mapping) and alg.get("outputs"):
        out["algorithm"] = {**alg, "outputs": [{**ch, "obs_url": in_folder(ch["obs_url"], run)}
                                               if isinstance(ch, Mapping) and ch.get("obs_url") else ch
                                               for ch in alg["outputs"]]}
    log = out.get("log_export_path")
    if isinstance(log, Mapping) and log.get("obs_url"):
        out["log_export_path"] = {**log, "obs_url": in_folder(log["obs_url"], run)}
    return out


def companion_opts(opts: pulumi.ResourceOptions, suffix: str) -> pulumi.ResourceOptions:
    """Options of a resource that belongs to this one (`<name><suffix>`): same parent, and the aliases
    of this one's earlier names, so a moved job keeps its name suffix and owner token."""
    aliases = [pulumi.Alias(name=f"{a.name}{suffix}") for a in (opts.aliases or [])
               if isinstance(a, pulumi.Alias) and isinstance(a.name, str)]
    return pulumi.ResourceOptions(parent=opts.parent, provider=None, aliases=aliases or None)


def owner_mark(resource_name: str, opts: pulumi.ResourceOptions) -> dict[str, Any]:
    """This resource's owner mark (modelarts_provider.core.ownership): its token is a RandomId created before
    the job, so it is in the state before the job's POST, and stays the same across edits."""
    token = random.RandomId(f"{resource_name}-owner", byte_length=8, opts=companion_opts(opts, "-owner"))
    stack = f"{pulumi.get_organization()}/{pulumi.get_project()}/{pulumi.get_stack()}"
    return {"stack": stack, "resource": resource_name, "token": token.hex}


def owned_props(resource_name: str, args: Mapping[str, Any], opts: pulumi.ResourceOptions,
                output_keys: Any) -> dict[str, Any]:
    """The props of a resource that carries an owner mark (a network, a pool): the args, this resource's mark
    unless given, and its outputs declared (None) so the engine knows them at preview."""
    props: dict[str, Any] = dict(args)
    if props.get("owner") is None:
        props["owner"] = owner_mark(resource_name, opts)
    for key in output_keys:
        props.setdefault(key, None)
    return props


class TrainingJob(Resource, module="modelarts", name="TrainingJob"):
    job_id: pulumi.Output[str]
    job_name: pulumi.Output[str]
    phase: pulumi.Output[str]
    secondary_phase: pulumi.Output[Optional[str]]
    create_time: pulumi.Output[Optional[str]]
    start_time: pulumi.Output[Optional[str]]
    duration_ms: pulumi.Output[int]
    flavor_name: pulumi.Output[Optional[str]]
    task_names: pulumi.Output[list[str]]
    task_statuses: pulumi.Output[list[dict[str, Any]]]
    output_paths: pulumi.Output[dict[str, str]]
    output_path: pulumi.Output[Optional[str]]
    console_url: pulumi.Output[Optional[str]]
    location: pulumi.Output[Optional[dict[str, str]]]

    def __init__(self, resource_name: str, args: TrainingJobInputs | TrainingJobArgs | Mapping[str, Any] | None = None,
                 opts: Optional[pulumi.ResourceOptions] = None, **kwargs: Any) -> None:
        if isinstance(args, TrainingJobArgs):
            props: dict[str, Any] = args.model_dump(exclude_none=True)
        else:
            props = dict(args or {})
        props.update(kwargs)
        opts = opts or pulumi.ResourceOptions()

        # What the awaiting resource needs to watch this job (JobsAwait reads it); a plain attribute,
        # not a resource output, so it is known at preview.
        self.await_spec: dict[str, Any] = {
            "wait_for": props.get("wait_for", "created"),
            "timeout_seconds": props.get("wait_timeout_seconds", 3600),
            "poll_seconds": props.get("poll_interval_seconds", 5.0),
            "workspace_id": props.get("workspace_id"),
        }

        if props.get("name") is None and props.get("adopt_job_id") is None:
            suffix = random.RandomString(
                f"{resource_name}-name",
                length=SUFFIX_LENGTH, special=False, upper=False,
                keepers=replacement_keepers(props),
                opts=companion_opts(opts, "-name"),
            )
            props["name"] = pulumi.Output.concat(name_prefix(resource_name), "-", suffix.result)
            props["derived_name"] = True
            if props.get("output_per_run"):
                props = with_run_folders(props, props["name"])

        if props.get("owner") is None:
            props["owner"] = owner_mark(resource_name, opts)

        for key in OUTPUT_KEYS:
            props.setdefault(key, None)
        super().__init__(PROVIDER, resource_name, props, opts)

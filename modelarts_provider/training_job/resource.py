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

Naming and ownership: `name` if given; otherwise "<resource name>-<6 chars>", and the owner token, both derived
in the provider's check from the stack's one secret seed (a RandomPassword shared by every job, see
training_job/naming.py): the name is stable across updates and equivalent declarations, renewed when the job
is replaced, and the same again after a killed `up`.

Creating a TrainingJob submits the job and returns once the service accepted it. `wait_for` is
honoured by the awaiting resource: pass the jobs to `modelarts_provider.JobsAwait` (the stack program
does it for every job whose wait_for is not "none").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

import pulumi
from pulumi.dynamic import Resource

from .args import AlgorithmArg, EngineArg, InputChannel, OutputChannel, TrainingJobArgs
from .naming import SEED_INPUT
from ..core.job_secrets import at_path
from ..core.marks import inputs_of, outputs_of, stack_label, stack_seed
from ..core.registration_wait import await_registrations_first
from ..core.short_stack_trace import runtime_frames_dropped
from .outputs import OUTPUT_KEYS, JobStatusOutputs
from .provider import TrainingJobProvider

# One provider object for every job: identical pickles, one configured instance per provider process.
PROVIDER = TrainingJobProvider()


# The algorithm's inputs, typed as its models take them (args.py); what a program may also write another way
# (parameters as a map, the channels and the engine as plain dicts) spelt out.
EngineInputs = inputs_of("EngineInputs", EngineArg)
InputChannelInputs = inputs_of("InputChannelInputs", InputChannel,
                               typed={"dataset": Mapping[str, pulumi.Input[str]],  # {id, version_id, obs_url?}
                                      "remote_constraint": list[Mapping[str, Any]]})
OutputChannelInputs = inputs_of("OutputChannelInputs", OutputChannel)
# Exactly one form: id | subscription_id + item_version_id | code_dir + boot_file (+ engine) | engine.image_url
# (+ command).
AlgorithmInputs = inputs_of("AlgorithmInputs", AlgorithmArg, typed={
    "parameters": list[Mapping[str, Any]] | Mapping[str, Any],  # [{name, value}] or {name: value}
    "policies": Mapping[str, Any],  # {auto_search: {...}}
    "inputs": list[InputChannelInputs], "outputs": list[OutputChannelInputs], "engine": EngineInputs,
    "environments": Mapping[str, pulumi.Input[str]]})


# Every input of a TrainingJob, typed as its declaration takes it (args.py: any value may be a pulumi.Input); the
# algorithm with its forms spelt out above. `derived_name` is the resource's own (set below).
TrainingJobInputs = inputs_of("TrainingJobInputs", TrainingJobArgs, skip=frozenset({"derived_name"}),
                              typed={"algorithm": AlgorithmInputs})




def _secret_inputs(props: Mapping[str, Any]) -> pulumi.Output[dict[str, Any]] | None:
    """{path: value} of the inputs at `secret_paths` (core/job_secrets.py), a Pulumi secret: what a JobsAwait of
    this job gets as its `secrets` entry. None when the job has no secret input."""
    paths = props.get("secret_paths")
    if not isinstance(paths, list) or not paths:
        return None
    found = {str(p): at_path(props, str(p)) for p in paths}
    return pulumi.Output.secret(pulumi.Output.all(**{p: v for p, v in found.items() if v is not None}))


class TrainingJob(Resource, module="modelarts", name="TrainingJob"):
    __annotations__ = outputs_of(JobStatusOutputs)  # its outputs, declared once (JobStatusOutputs)

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
        secrets = _secret_inputs(props)
        if secrets is not None:  # the JobsAwait masks this job's own secrets in what it prints of it
            self.await_spec["secrets"] = secrets

        if props.get("owner") is None:
            # The token and a derived name come from the stack's seed, in check (training_job/naming.py).
            props["owner"] = {"stack": stack_label(), "resource": resource_name}
            props[SEED_INPUT] = stack_seed()
        elif props.get("name") is None and props.get("adopt_job_id") is None:
            props[SEED_INPUT] = stack_seed()
        if props.get("name") is None and props.get("adopt_job_id") is None:
            props["derived_name"] = True  # check names it: <resource name>-<6 characters of its spec>

        for key in OUTPUT_KEYS:
            props.setdefault(key, None)
        await_registrations_first()  # a sweep of N jobs: the program's final wait linear in N
        with runtime_frames_dropped():  # a sweep's state: no interpreter frames in every job's record
            super().__init__(PROVIDER, resource_name, props, opts)

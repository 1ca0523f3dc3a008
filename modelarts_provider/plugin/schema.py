"""The plugin's Pulumi package schema, built from the pydantic models the providers validate with.

One source of truth: a field added to TrainingJobArgs (or any model below) is in the schema at once, with its
type; its description is the model's own (`Field(description=...)`), else the table below, else the API field it
is sent as. It is built with the providers' (python) names and published in camelCase (names.py: each SDK
generator then gives its language's convention; the plugin maps the names at its edge). Fields the provider sets
itself (the owner mark, `derived_name`) are outputs only; fields only the stack program sets for the provider
(INTERNAL) are not in it.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from ..awaiting.args import AwaitedJob, AwaitedStatus
from ..code_upload.args import CodeUploadOutputs
from ..core.ownership import OwnerMark
from ..core.provider_config import ENV_FALLBACKS, SECRET_KEYS
from ..training_job.args import TrainingJobArgs
from ..training_job.outputs import JobStatusOutputs
from .doors import DOORS, PACKAGE, Door, token
from .names import camel_schema

# Where each nested model sits in the create-training-job request (descriptions of fields without their own).
API_PATHS = {
    "AlgorithmArg": "algorithm", "EngineArg": "algorithm.engine", "InputChannel": "algorithm.inputs[]",
    "OutputChannel": "algorithm.outputs[]", "DatasetRef": "algorithm.inputs[].remote.dataset",
    "ParameterArg": "algorithm.parameters[]", "ParameterConstraintArg": "algorithm.parameters[].constraint",
    "I18nDescriptionArg": "algorithm.parameters[].i18n_description",
    "RemoteConstraintArg": "algorithm.inputs[].remote_constraint[]", "PoliciesArg": "algorithm.policies",
    "AutoSearchArg": "algorithm.policies.auto_search", "RewardAttrArg": "algorithm.policies.auto_search.reward_attrs[]",
    "SearchParamArg": "algorithm.policies.auto_search.search_params[]",
    "AlgoConfigArg": "algorithm.policies.auto_search.algo_configs[]",
    "AlgoConfigParamArg": "algorithm.policies.auto_search.algo_configs[].params[]",
    "NfsVolume": "spec.volumes[].nfs", "LogExportPathArg": "spec.log_export_path", "AutoStopArg": "spec.auto_stop",
    "TrainingJobArgs": "metadata/spec.resource", "TaskStatusOutput": "status.tasks[]",
}

DESCRIPTIONS = {
    # TrainingJob inputs
    "TrainingJobArgs.description": "Job description, at most 256 characters; updated in place.",
    "TrainingJobArgs.workspace_id": "Workspace of the job (service default \"0\").",
    "TrainingJobArgs.annotations": "metadata.annotations sent with the job (keys starting modelarts-pulumi/ are "
                                   "the owner mark this provider writes itself).",
    "TrainingJobArgs.kind": "Job kind; only \"job\".",
    "TrainingJobArgs.algorithm": "The algorithm: exactly one of id, subscription_id + item_version_id, code_dir + "
                                 "boot_file + engine, or engine.image_url + command.",
    "TrainingJobArgs.tasks": "Refused: the service documents the task list as not implemented.",
    "TrainingJobArgs.flavor_id": "Resource flavor, e.g. modelarts.vm.cpu.2u (required unless pool_id is set).",
    "TrainingJobArgs.pool_id": "Dedicated resource pool id.",
    "TrainingJobArgs.node_count": "Number of nodes, 1-1024 (default 1).",
    "TrainingJobArgs.volumes": "NFS volumes mounted into the training container.",
    "TrainingJobArgs.log_export_path": "Where the job's logs are exported (OBS URL or host path).",
    "TrainingJobArgs.auto_stop": "Stop the job after this many hours.",
    "TrainingJobArgs.wait_timeout_seconds": "A JobsAwait's deadline for this job, in seconds (default 3600): past "
                                            "it the job is terminated. customTimeouts on the JobsAwait take precedence.",
    "TrainingJobArgs.poll_interval_seconds": "How often a JobsAwait polls this job, in seconds (default 5).",
    "TrainingJobArgs.delete_timeout_seconds": "How long a delete waits for the job to stop, in seconds (default "
                                              "900). customTimeouts.delete takes precedence.",
    "TrainingJobArgs.adopt_job_id": "Take over this existing job instead of creating one (its spec must match).",
    # outputs
    "JobStatusOutputs.job_id": "The job's id.",
    "JobStatusOutputs.job_name": "The job's name as the service holds it.",
    "JobStatusOutputs.phase": "Phase last seen: Creating, Pending, Running, Completed, Failed, Terminating, "
                              "Terminated or Abnormal.",
    "JobStatusOutputs.secondary_phase": "The service's finer-grained phase.",
    "JobStatusOutputs.create_time": "When the job was created (ISO 8601, UTC).",
    "JobStatusOutputs.start_time": "When the job started running (ISO 8601, UTC).",
    "JobStatusOutputs.duration_ms": "Running time in milliseconds.",
    "JobStatusOutputs.flavor_name": "The flavor's display name.",
    "JobStatusOutputs.task_names": "The job's task names, e.g. worker-0.",
    "JobStatusOutputs.task_statuses": "Each task's exit code and message.",
    "JobStatusOutputs.output_paths": "Output channel name -> OBS URL.",
    "JobStatusOutputs.output_path": "The first output channel's OBS URL.",
    "JobStatusOutputs.console_url": "The job's page in the ModelArts console.",
    "JobStatusOutputs.location": "Where the job lives (cloud, region, project, endpoint): read, update and delete "
                                 "refuse another place.",
    "TaskStatusOutput.task": "Task name.",
    "TaskStatusOutput.exit_code": "Exit code of the task's process.",
    "TaskStatusOutput.message": "The service's message about the task.",
    # the service's own hyperparameter search (algorithm.policies.auto_search)
    "AutoSearchArg.skip_search_params": "Comma-separated fixed parameters the search leaves alone.",
    "AutoSearchArg.reward_attrs": "The objective: one entry {name, mode, regex}.",
    "AutoSearchArg.search_params": "The space: one entry per searched parameter.",
    "AutoSearchArg.algo_configs": "The search algorithm (a name of the service's catalog, GET search-algorithms) "
                                  "and its parameters, e.g. num_samples (the number of trials).",
    "RewardAttrArg.name": "Metric name, as the training script prints it.",
    "RewardAttrArg.mode": "max or min: which way is better.",
    "RewardAttrArg.regex": "Regex over the trial's log with one capture group around the number (last match).",
    "SearchParamArg.name": "The parameter's name (passed to the script as --name=value).",
    "SearchParamArg.param_type": "continuous (lower_bound..upper_bound) or discrete (discrete_values).",
    "SearchParamArg.lower_bound": "Lower bound of a continuous parameter (a number, as a string).",
    "SearchParamArg.upper_bound": "Upper bound of a continuous parameter; greater than lower_bound.",
    "SearchParamArg.discrete_points_num": "How many evenly spaced points a continuous range is cut into.",
    "SearchParamArg.discrete_values": "The values of a discrete parameter (at least one).",
    "AlgoConfigArg.name": "Search algorithm, e.g. bayes_opt_search, tpe_search, anneal_search.",
    "AlgoConfigArg.params": "The algorithm's parameters; keys as the catalog lists them.",
    "AlgoConfigParamArg.key": "Parameter key, e.g. num_samples.",
    "AlgoConfigParamArg.value": "Its value, as a string.",
    "AlgoConfigParamArg.type": "Integer, Float, String or List.",
    "AwaitedJob.search": "The job runs the service's own search scored by this objective {name, regex, goal}: "
                         "its trials are read once after the wait (one request for all of them).",
    "AwaitedJob.metrics": "Metrics [{name, regex, goal}] read from the job's log: every match a point (step, value) "
                          "(the step from a group named step or epoch, else the match's number); progress lines "
                          "of their latest values while the job runs, a curve each once it completed.",
    "AwaitedJob.objective": "What the job is scored by {name, regex, goal}: the last match in its completed log.",
    "AwaitedJob.group": "The sweep the job is a point of (its table, best point and maxFailures).",
    "AwaitedJob.parameters": "The job's grid values, for its sweep's table and chart.",
    "AwaitedStatus.metrics": "The objective's and each metric's curve by name: {points: [[step, value]], last, best, "
                             "matches, note}.",
    "AwaitedStatus.search": "A search job's trials: {trials: [{trial_id, phase, parameters, reward, early_stopped, "
                            "note}], note}.",
    "SearchStatus.trials": "Every trial the service lists.",
    "SearchStatus.note": "Why there are no trials.",
    "TrialStatus.trial_id": "The service's trial id.",
    "TrialStatus.phase": "Pending, Running, Completed or Failed.",
    "TrialStatus.parameters": "The trial's parameter values.",
    "TrialStatus.reward": "The objective value the trial scored (last regex match in its log).",
    "TrialStatus.early_stopped": "Whether the trial was stopped early.",
    "TrialStatus.note": "A failed trial's log tail.",
    # JobsAwait
    "AwaitedJob.job_id": "The job to wait for (a TrainingJob's job_id).",
    "AwaitedJob.job_name": "Its name, for progress lines and errors.",
    "AwaitedJob.wait_for": "Target: none, created (left Creating), running, or completed.",
    "AwaitedJob.timeout_seconds": "Deadline in seconds (default 3600): past it the job is terminated and the wait "
                                  "fails. customTimeouts on the JobsAwait take precedence.",
    "AwaitedJob.poll_seconds": "Poll interval in seconds (default 5).",
    "AwaitedJob.workspace_id": "The job's workspace, when not the default one.",
    "AwaitedStatus.job_id": "The job's id.",
    "AwaitedStatus.job_name": "The job's name.",
    "AwaitedStatus.wait_for": "The target waited for.",
    "AwaitedStatus.phase": "Phase last seen.",
    "AwaitedStatus.reached": "Whether the job reached its target.",
    "AwaitedStatus.workspace_id": "The job's workspace.",
    # Bucket
    "BucketArgs.bucket": "Bucket name (3-63 characters; global across OBS).",
    "BucketArgs.create": "true (default): create it (destroyed only if this stack created it); false: only check "
                         "that it exists, never delete it.",
    "BucketArgs.force_destroy": "Destroy deletes the bucket's objects first (create: true only).",
    "BucketOutputs.url": "obs://<bucket>/",
    "BucketOutputs.created": "This resource created the bucket (false: it existed and was taken over empty, or "
                             "create: false).",
    # CodeUpload outputs
    "CodeUploadOutputs.code_dir": "obs://bucket/prefix/job_key/<owner token>/<hash16>/ (for algorithm.code_dir).",
    "CodeUploadOutputs.boot_file": "The boot file's OBS URL (for algorithm.boot_file).",
    "CodeUploadOutputs.marker_key": "The completion marker's key: written last, removed first.",
    "CodeUploadOutputs.uploaded_files": "Files uploaded by the last create.",
    "CodeUploadOutputs.skipped_files": "Files already in OBS with the same content.",
}

CODE_UPLOAD_INPUTS = {
    "local_dir": ("string", "The code directory, relative to the Pulumi project or absolute (read by the provider "
                            "in the project directory: hash, size, files)."),
    "boot_file": ("string", "The boot file, relative to local_dir."),
    "bucket": ("string", "The OBS bucket to upload to (e.g. a Bucket's bucket output)."),
    "prefix": ("string", "Key prefix in the bucket (default \"code\")."),
    "job_key": ("string", "The folder under the prefix (default: the resource name)."),
    "excludes": ("array", "Extra .gitignore-style patterns of files not to upload."),
    "max_total_bytes": ("integer", "Refuse a directory larger than this (default 200 MiB)."),
    "max_files": ("integer", "Refuse a directory with more files and folders (default 1000, ModelArts' limit)."),
    "parallelism": ("integer", "Parallel transfers (default 8)."),
}
CODE_UPLOAD_OUTPUTS_EXTRA = {
    "content_hash": ("string", "sha256 of the uploaded files (names and contents)."),
    "file_count": ("integer", "Files in the upload."),
    "total_bytes": ("integer", "Bytes in the upload."),
    "owner_token": ("string", "This resource's random token: part of the upload's prefix."),
}
CONFIG_DESCRIPTIONS = {
    "region": "Region, e.g. cn-north-4 (Huawei Cloud) or eu-de (OTC).",
    "projectId": "Project id of the region.",
    "cloud": "huaweicloud or otc (default: otc for eu-* regions or OS_* credentials).",
    "endpoint": "ModelArts endpoint override, e.g. the local emulator.",
    "obsEndpoint": "OBS endpoint override, e.g. the local OBS.",
    "iamEndpoint": "IAM endpoint override (password auth).",
    "billingEndpoint": "Billing (BSS) endpoint: prices at preview, e.g. the local billing service (docs/cost.md).",
    "accessKey": "Access key (AK).",
    "secretKey": "Secret key (SK).",
    "securityToken": "Temporary security token.",
    "iamUser": "IAM user name (instead of AK/SK).",
    "iamPassword": "IAM password.",
    "iamDomain": "IAM domain (account) name.",
    "projectName": "IAM project name (defaults to the region).",
    "verifyTls": "true or false (default true).",
    "caBundle": "Path to a PEM bundle of CA certificates.",
    "retryTimeoutSeconds": "How long one API call keeps retrying throttling, 5xx and resets (default 60).",
}
BUDGET_DESCRIPTION = ("{max, currency (default CNY), poolHours}: a preview fails when the TrainingJobs about to be "
                      "submitted and the ResourcePools about to be created can bill more (docs/cost.md).")
OUTPUT_ONLY = {"owner", "derived_name"}
# Set by the stack program for the provider (where a value was declared, which paths are secret): not public.
INTERNAL = {"config_keys", "secret_paths"}


class _Builder:
    def __init__(self) -> None:
        self.types: dict[str, Any] = {}

    def _describe(self, model: str, field: str, own: str | None) -> str:
        if own:
            return own
        if f"{model}.{field}" in DESCRIPTIONS:
            return DESCRIPTIONS[f"{model}.{field}"]
        if model in API_PATHS:
            return f"{API_PATHS[model]}.{field} of the ModelArts v2 create-training-job request, as the API documents it."
        return f"{field.replace('_', ' ')} ({model})"  # a model of its own: give the field a Field(description=...)

    def spec(self, js: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
        """A JSON-schema fragment (pydantic's) -> a Pulumi type spec."""
        if "anyOf" in js:
            kinds = [s for s in js["anyOf"] if s.get("type") != "null"]
            return self.spec(kinds[0], defs) if len(kinds) == 1 else {"$ref": "pulumi.json#/Any"}
        if "$ref" in js:
            name = js["$ref"].rsplit("/", 1)[-1]
            self.object_type(name, defs[name], defs)
            return {"$ref": f"#/types/{token(name)}"}
        kind = js.get("type")
        if kind == "array":
            return {"type": "array", "items": self.spec(js.get("items") or {}, defs)}
        if kind == "object":
            values = js.get("additionalProperties") or next(iter((js.get("patternProperties") or {}).values()), {})
            return {"type": "object", "additionalProperties": self.spec(values or {}, defs)}
        if kind in ("string", "integer", "number", "boolean"):
            return {"type": kind}
        return {"$ref": "pulumi.json#/Any"}

    def properties(self, model: str, js: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
        return {name: {**self.spec(prop, defs), "description": self._describe(model, name, prop.get("description"))}
                for name, prop in js.get("properties", {}).items()}

    def object_type(self, name: str, js: dict[str, Any], defs: dict[str, Any]) -> None:
        if token(name) in self.types:
            return
        self.types[token(name)] = {}  # recursion guard
        self.types[token(name)] = {"type": "object", "description": (js.get("description") or name).split("\n")[0],
                                   "properties": self.properties(name, js, defs)}

    def of_model(self, model: type[BaseModel]) -> dict[str, Any]:
        js = model.model_json_schema()
        return self.properties(model.__name__, js, js.get("$defs", {}))


def _resource(description: str, inputs: dict[str, Any], outputs: dict[str, Any],
              required: list[str] | None = None) -> dict[str, Any]:
    return {"description": description, "inputProperties": inputs, "properties": {**inputs, **outputs},
            **({"requiredInputs": required} if required else {})}


def _from_models(b: _Builder, door: Door) -> dict[str, Any]:
    """A type described by its row's models alone (inputs without a default are required)."""
    if door.args_model is None:
        raise ValueError(f"{door.provider.__name__}: its row in DOORS names no args_model, and schema.py has no "
                         "schema of its own for it")
    required = [k for k, f in door.args_model.model_fields.items() if f.is_required()]
    outputs = b.of_model(door.outputs_model) if door.outputs_model is not None else {}
    return _resource(door.description, b.of_model(door.args_model), outputs, required)


def schema(version: str) -> dict[str, Any]:
    """The package schema the plugin serves: camelCase property names, public inputs and outputs only."""
    return camel_schema(snake_schema(version))


def snake_schema(version: str) -> dict[str, Any]:
    """The same schema in the providers' own names (the plugin's name mapping is led by it)."""
    b = _Builder()
    job_all = {k: v for k, v in b.of_model(TrainingJobArgs).items() if k not in INTERNAL}
    job_inputs = {k: v for k, v in job_all.items() if k not in OUTPUT_ONLY}
    job_outputs = {**{k: v for k, v in job_all.items() if k in OUTPUT_ONLY}, **b.of_model(JobStatusOutputs)}
    job_inputs["name"]["description"] += " Unset: <resource name>-<6 characters>, renewed when the job is replaced."

    awaited = b.of_model(AwaitedJob)  # a top-level model: its own object type, required job_id
    b.types[token("AwaitedJob")] = {"type": "object", "description": "One job a JobsAwait waits for.",
                                    "properties": awaited, "required": ["job_id"]}
    b.types[token("AwaitedStatus")] = {"type": "object", "description": "What the last wait saw of one job.",
                                       "properties": b.of_model(AwaitedStatus)}
    b.types.setdefault(token("OwnerMark"), {"type": "object", "description": "This resource's owner mark.",
                                            "properties": b.of_model(OwnerMark)})
    await_inputs = {"jobs": {"type": "object", "additionalProperties": {"$ref": f"#/types/{token('AwaitedJob')}"},
                             "description": "Key -> the job to wait for and its target."},
                    "max_failures": {"type": "object", "additionalProperties": {"type": "integer"},
                                     "description": "Group (a sweep: the jobs' group) -> how many of its jobs may "
                                                    "fail while the wait still succeeds (default 0); the failed "
                                                    "ones are recorded as tolerated."},
                    "secrets": {"type": "object", "secret": True,
                                "additionalProperties": {"type": "object", "additionalProperties": {"type": "string"}},
                                "description": "Key -> the job's secret inputs by path, e.g. {\"algorithm.environments."
                                               "HF_TOKEN\": <the secret>}: what the wait prints of that job (its "
                                               "failure, log tail, tables) masks them, and only of that job; an "
                                               "environments value whatever it is, any other when it is more "
                                               "than a count or a short word. Secret in the state."}}
    await_outputs = {
        "statuses": {"type": "object", "additionalProperties": {"$ref": f"#/types/{token('AwaitedStatus')}"},
                     "description": "Key -> what the last wait (or refresh) saw."},
        "phases": {"type": "object", "additionalProperties": {"type": "string"}, "description": "Key -> phase."},
        "runs": {"type": "object", "additionalProperties": {"type": "array", "items": {"$ref": "pulumi.json#/Any"}},
                 "description": "Key -> its runs, newest last: job_id, job_name, parameters, phase, objective, "
                                "output_path, create_time, start_time, duration_s; kept after a run is replaced."},
    }
    upload_inputs: dict[str, Any] = {
        k: ({"type": t, "items": {"type": "string"}} if t == "array" else {"type": t}) | {"description": d}
        for k, (t, d) in CODE_UPLOAD_INPUTS.items()}
    upload_outputs = {**b.of_model(CodeUploadOutputs),
                      **{k: {"type": t, "description": d} for k, (t, d) in CODE_UPLOAD_OUTPUTS_EXTRA.items()}}
    upload_outputs["boot_file"] = {"type": "string", "description": DESCRIPTIONS["CodeUploadOutputs.boot_file"]
                                   + " (The input of that name is the path relative to local_dir.)"}
    own = {  # types whose inputs are not one model (TrainingJob's provider-set fields, the program-side ones)
        "TrainingJob": _resource(DOORS["TrainingJob"].description, job_inputs, job_outputs),
        "JobsAwait": _resource(DOORS["JobsAwait"].description, await_inputs, await_outputs, ["jobs"]),
        "CodeUpload": _resource(DOORS["CodeUpload"].description, upload_inputs, upload_outputs,
                                ["local_dir", "boot_file", "bucket"]),
    }
    resources = {token(name): own[name] if name in own else _from_models(b, door) for name, door in DOORS.items()}
    config = {key: {"type": "string", "description": CONFIG_DESCRIPTIONS.get(key, key)
                    + (f" Environment: {', '.join(envs)}." if envs else ""),
                    **({"secret": True} if key in SECRET_KEYS else {})}
              for key, envs in ENV_FALLBACKS.items()}
    # The plugin's own budget (cost/plugin_cost.py, docs/cost.md): a map, not a client setting.
    config["budget"] = {"type": "object", "additionalProperties": {"$ref": "pulumi.json#/Any"},
                        "description": BUDGET_DESCRIPTION}
    return {
        "name": PACKAGE, "displayName": "ModelArts", "version": version,
        "description": "Huawei Cloud / OTC ModelArts training jobs, their waits, code uploads and OBS buckets.",
        "config": {"variables": config},
        "provider": {"description": "The modelarts provider: settings from the modelarts: namespace, else the "
                                    "HW_* / OS_* environment.", "inputProperties": config, "properties": config},
        "resources": resources,
        "types": b.types,
        # respectSchemaVersion: a generated SDK carries the plugin's version (not a 0.0.0 placeholder) and so asks
        # the engine for the very plugin it was generated from.
        "language": {"nodejs": {"packageName": "@modelarts/pulumi", "respectSchemaVersion": True},
                     "python": {"respectSchemaVersion": True}},
    }

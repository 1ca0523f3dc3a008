"""The plugin's Pulumi package schema, built from the pydantic models the providers validate with.

One source of truth: a field added to TrainingJobArgs (or any model below) is in the schema at once, with its
type; its description is the model's own (`Field(description=...)`), else the API field it is sent as (a nested
model's API_PATH, training_job/args.py). It is built with the providers' (python) names and published in camelCase (names.py: each SDK
generator then gives its language's convention; the plugin maps the names at its edge). Fields the provider sets
itself (the owner mark, `derived_name`) are outputs only; fields only the stack program sets for the provider
(INTERNAL) are not in it.

Each resource's required outputs (its `required` list, beside `requiredInputs`: what every SDK types as always
there, `Output<string>` rather than `Output<string | undefined>`) come from the same models: a field whose type
admits no None always holds a value once validated, so an output recorded from such a model is always set; a
field that may be None (a start time, an optional input echoed back) stays optional. Which models a resource's outputs are recorded from is said where its
schema is built below (the provider code decides it: see each `always`).
"""

from __future__ import annotations

import types
from collections.abc import Iterable
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel

from ..awaiting.args import AwaitedJob, AwaitedStatus, JobsAwaitOutputs
from ..code_upload.args import CodeUploadOutputs
from ..core.ownership import OwnerMark
from ..core.provider_config import ENV_FALLBACKS, SECRET_KEYS
from ..core.renames import RENAMED_FROM_KEY
from ..training_job import args as job_args
from ..training_job.args import TrainingJobArgs
from ..training_job.outputs import JobStatusOutputs
from .doors import DOORS, PACKAGE, Door, token
from .names import camel_schema

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
PRICES_DESCRIPTION = ("{<flavor>: {perNodeHour, currency (default CNY)}}: prices that override the billing service's "
                      "(contract prices, another currency; Open Telekom Cloud, whose price API has no ModelArts).")
# Where each nested model of a job sits in the create-training-job request (its own API_PATH, args.py): the
# description of its fields without one of their own.
API_PATHS = {name: model.API_PATH for name, model in vars(job_args).items()
             if isinstance(model, type) and issubclass(model, job_args._ArgModel) and model.API_PATH}
OUTPUT_ONLY = {"owner", "derived_name"}
# Set by the stack program for the provider (where a value was declared, which paths are secret): not public.
INTERNAL = {"config_keys", "secret_paths"}


class _Builder:
    def __init__(self) -> None:
        self.types: dict[str, Any] = {}

    def _describe(self, model: str, field: str, own: str | None) -> str:
        if own:
            return own
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


def _admits_none(annotation: Any) -> bool:
    if annotation is None or annotation is type(None) or annotation is Any:
        return True
    origin = get_origin(annotation)
    if origin is Annotated:
        return _admits_none(get_args(annotation)[0])
    return (origin is Union or origin is types.UnionType) and any(_admits_none(a) for a in get_args(annotation))


def always_set(*models: type[BaseModel]) -> frozenset[str]:
    """The fields every validated value of these models holds: those whose type admits no None (a field left out
    takes its default)."""
    return frozenset(name for model in models for name, f in model.model_fields.items()
                     if not _admits_none(f.annotation))


def _resource(description: str, inputs: dict[str, Any], outputs: dict[str, Any],
              required: list[str] | None = None, always: Iterable[str] = ()) -> dict[str, Any]:
    """`always`: the outputs set whenever the resource exists; the required inputs are too (the providers record
    the inputs they were given)."""
    properties = {**inputs, **outputs}
    set_always = set(always) | set(required or ())
    required_outputs = [k for k in properties if k in set_always]
    return {"description": description, "inputProperties": inputs, "properties": properties,
            **({"requiredInputs": required} if required else {}),
            **({"required": required_outputs} if required_outputs else {})}


def _from_models(b: _Builder, door: Door) -> dict[str, Any]:
    """A type described by its row's models alone (inputs without a default are required). Its provider records
    its validated args, defaults filled (Network, ResourcePool: their dump; Bucket: the defaults its row's
    `prepare` writes), beside its outputs model: both models' always-set fields are always set."""
    if door.args_model is None:
        raise ValueError(f"{door.provider.__name__}: its row in DOORS names no args_model, and schema.py has no "
                         "schema of its own for it")
    required = [k for k, f in door.args_model.model_fields.items() if f.is_required()]
    models = [door.args_model] + ([door.outputs_model] if door.outputs_model is not None else [])
    outputs = b.of_model(door.outputs_model) if door.outputs_model is not None else {}
    return _resource(door.description, b.of_model(door.args_model), outputs, required, always_set(*models))


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
    upload_outputs["boot_file"] = {"type": "string", "description": CodeUploadOutputs.model_fields["boot_file"].description
                                   + " (The input of that name is the path relative to local_dir.)"}
    own = {  # types whose inputs are not one model (TrainingJob's provider-set fields, the program-side ones)
        # A job's outputs: its canonical inputs, every default filled (doors.training_job_outputs), and its status.
        "TrainingJob": _resource(DOORS["TrainingJob"].description, job_inputs, job_outputs,
                                 always=always_set(TrainingJobArgs, JobStatusOutputs)),
        # A wait's and an upload's inputs are recorded as given (an upload's limits only where given): their
        # outputs models' fields, and the required inputs, are what is always there.
        "JobsAwait": _resource(DOORS["JobsAwait"].description, await_inputs, await_outputs, ["jobs"],
                               always_set(JobsAwaitOutputs)),
        "CodeUpload": _resource(DOORS["CodeUpload"].description, upload_inputs, upload_outputs,
                                ["local_dir", "boot_file", "bucket"], always_set(CodeUploadOutputs)),
    }
    resources = {token(name): own[name] if name in own else _from_models(b, door) for name, door in DOORS.items()}
    config = {key: {"type": "string", "description": CONFIG_DESCRIPTIONS.get(key, key)
                    + (f" Environment: {', '.join(envs)}." if envs else ""),
                    **({"secret": True} if key in SECRET_KEYS else {})}
              for key, envs in ENV_FALLBACKS.items()}
    # The stack's former names after `pulumi stack rename` (core/renames.py): the providers' own setting.
    config[RENAMED_FROM_KEY] = {"type": "string", "description": "After `pulumi stack rename`: the stack's former "
                                "names, comma separated, so that it manages what it made before (refused while a "
                                "stack of that name exists in the backend)."}
    # Tags of every TrainingJob, under its own (training_job/default_tags.py): both doors' provider setting.
    config["defaultTags"] = {"type": "object", "additionalProperties": {"type": "string"},
                             "description": "Tags of every TrainingJob, under each job's own tags (Terraform's "
                                            "default_tags): a change updates the jobs' tags in place."}
    # The plugin's own budget and prices table (cost/plugin_cost.py, docs/cost.md): maps, not client settings.
    config["budget"] = {"type": "object", "additionalProperties": {"$ref": "pulumi.json#/Any"},
                        "description": BUDGET_DESCRIPTION}
    config["prices"] = {"type": "object", "additionalProperties": {"$ref": "pulumi.json#/Any"},
                        "description": PRICES_DESCRIPTION}
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

"""TrainingJobArgs: every field of the ModelArts v2 create API, in Python naming, plus provider options.

Layout: `metadata.*` and `spec.*` are flattened to the top level (``name``, ``description``,
``flavor_id``, ``pool_id``, ``node_count``, ``volumes``, ...); ``algorithm`` and ``tasks`` keep the
API's nesting. Provider-only options (waiting, timeouts, replacement policy, adoption) are never sent.

The algorithm has four mutually exclusive forms (the API's "Options"):
  1. ``algorithm.id``                                 an algorithm from algorithm management
  2. ``algorithm.subscription_id`` + ``item_version_id``  a subscribed (AI Gallery) algorithm
  3. ``algorithm.code_dir`` + ``boot_file`` (+ ``engine``)   own code on OBS with a preset engine
  4. ``algorithm.engine.image_url`` (+ ``command``)       a custom image
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

from ..core import messages, replaced_runs
from ..core.fields import Change, ConfigKey, Declared, Unset, fields_changing, to_wire as declared_wire
from ..client.owner_token import PREFIX as OWNERSHIP_PREFIX, TAG_PREFIX as OWNER_TAG_PREFIX
from ..core.ownership import TAG_VALUE_RE, OwnerMark
from ..core.rules import FILE_URL_RE, MAX_TRIALS, OBS_URL_RE, TRIAL_COUNT_KEYS, WaitFor, rule
from ..core.unknowns import contains_unknown
from . import wire_forms

JOB_NAME_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}\Z")
ENV_NAME_RE = re.compile(messages.ENV_NAME_RE)

__all__ = ["TrainingJobArgs"]


class _ArgModel(BaseModel):
    # extra="forbid": a typo in a field name is a check failure, not a silently ignored key. frozen: validated
    # args are shared by the steps of an engine call (normalize.validated), a change is a copy.
    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=False)
    # Where the model sits in the create-training-job request: the description of a field without its own.
    API_PATH: ClassVar[str] = ""


def _obs_url(v: str | None) -> str | None:
    if v is None:
        return v
    if not OBS_URL_RE.match(v):
        raise ValueError(f"must be an OBS URL such as obs://bucket/path/ (or /bucket/path/), not {v!r}")
    # The key with the "/" after the bucket: "obs://bkt//x" must read as a "//" inside the path.
    rest = v[len("obs://"):] if v.startswith("obs://") else v[1:]
    key = rest[rest.index("/"):] if "/" in rest else ""
    _safe_key(v, key)
    # One spelling: obs://bucket/key and /bucket/key name the same place, so they must not differ in
    # the canonical inputs (a spelling change is not a new job). The request sends /bucket/key.
    return "obs://" + rest


def _safe_key(v: str, key: str) -> None:
    # A key with ".." or "//" or control characters does not name what it seems to (issue: path escapes).
    if any(ord(c) < 32 or ord(c) == 127 for c in v):
        raise ValueError(f"must not contain control characters: {v!r}")
    if "//" in key or any(part == ".." for part in key.split("/")):
        raise ValueError(f"must not contain '..' or '//' inside the path: {v!r}")


def _code_url(v: str | None) -> str | None:
    """code_dir / boot_file: an OBS URL, or file:///path inside the container (documented)."""
    if v is not None and v.startswith("file://"):
        if not FILE_URL_RE.match(v):
            raise ValueError(f"must be file:///absolute/path (or an OBS URL), not {v!r}")
        _safe_key(v, v[len("file://"):])
        return v
    return _obs_url(v)


ObsUrl = Annotated[str, Field(min_length=1, max_length=1024)]
NonEmpty = Annotated[str, Field(min_length=1, max_length=1024)]


# --- algorithm parts ---------------------------------------------------------------------------


class ParameterConstraintArg(_ArgModel):
    API_PATH = "algorithm.parameters[].constraint"

    type: str | None = None
    editable: bool | None = None
    required: bool | None = None
    sensitive: bool | None = None
    valid_type: str | None = None
    valid_range: list[str] | None = None


class I18nDescriptionArg(_ArgModel):
    API_PATH = "algorithm.parameters[].i18n_description"

    language: str | None = None
    description: str | None = None


class ParameterArg(_ArgModel):
    """A running parameter (passed to the boot file as --name=value)."""

    API_PATH = "algorithm.parameters[]"
    name: Annotated[str, Field(min_length=1, max_length=256, pattern=messages.PARAM_NAME_RE)]
    value: str = ""
    description: str | None = None
    constraint: ParameterConstraintArg | None = None
    i18n_description: I18nDescriptionArg | None = None

    @field_validator("value", mode="before")
    @classmethod
    def _scalar_to_str(cls, v: Any) -> Any:
        # Hyperparameters are strings on the wire; accept numbers/bools for convenience.
        if isinstance(v, bool):
            return str(v).lower()
        if isinstance(v, (int, float)):
            return str(v)
        return v


class DatasetRef(_ArgModel):
    API_PATH = "algorithm.inputs[].remote.dataset"

    id: NonEmpty
    version_id: NonEmpty
    obs_url: str | None = None


class RemoteConstraintArg(_ArgModel):
    API_PATH = "algorithm.inputs[].remote_constraint[]"

    data_type: str | None = None
    attributes: str | None = None


class InputChannel(_ArgModel):
    """A data input: exactly one of ``obs_url`` or ``dataset``."""

    API_PATH = "algorithm.inputs[]"
    name: Annotated[str, Field(min_length=1, max_length=64)]
    obs_url: ObsUrl | None = None
    dataset: DatasetRef | None = None
    local_dir: str | None = None
    description: str | None = None
    remote_constraint: list[RemoteConstraintArg] | None = None

    check_obs = field_validator("obs_url")(classmethod(lambda cls, v: _obs_url(v)))

    @model_validator(mode="after")
    def _one_source(self) -> InputChannel:
        if (self.obs_url is None) == (self.dataset is None):
            raise rule("obs_url", "set exactly one of obs_url or dataset")
        return self


class OutputChannel(_ArgModel):
    API_PATH = "algorithm.outputs[]"

    name: Annotated[str, Field(min_length=1, max_length=64)]
    obs_url: ObsUrl
    local_dir: str | None = None
    description: str | None = None

    check_obs = field_validator("obs_url")(classmethod(lambda cls, v: _obs_url(v)))


class EngineArg(_ArgModel):
    """``engine_id``, or ``engine_name`` + ``engine_version``, or ``image_url``."""

    API_PATH = "algorithm.engine"
    engine_id: str | None = None
    engine_name: str | None = None
    engine_version: str | None = None
    image_url: str | None = None

    @model_validator(mode="after")
    def _one_form(self) -> EngineArg:
        forms = [self.engine_id is not None,
                 self.engine_name is not None or self.engine_version is not None,
                 self.image_url is not None]
        if sum(forms) != 1:
            raise rule("", "set exactly one of engine_id, engine_name + engine_version, or image_url")
        if (self.engine_name is None) != (self.engine_version is None):
            raise rule("engine_version" if self.engine_version is None else "engine_name",
                       "engine_name and engine_version must be set together")
        return self


class RewardAttrArg(_ArgModel):
    API_PATH = "algorithm.policies.auto_search.reward_attrs[]"

    name: str | None = Field(None, description="Metric name, as the training script prints it.")
    mode: Literal["max", "min"] | None = Field(None, description="max or min: which way is better.")
    regex: str | None = Field(None, description="Regex over the trial's log with one capture group around the "
                                                "number (last match).")


class SearchParamArg(_ArgModel):
    API_PATH = "algorithm.policies.auto_search.search_params[]"

    name: str | None = Field(None, description="The parameter's name (passed to the script as --name=value).")
    param_type: Literal["continuous", "discrete"] | None = Field(
        None, description="continuous (lower_bound..upper_bound) or discrete (discrete_values).")
    lower_bound: str | None = Field(None, description="Lower bound of a continuous parameter (a number, as a string).")
    upper_bound: str | None = Field(None, description="Upper bound of a continuous parameter; greater than lower_bound.")
    discrete_points_num: str | None = Field(None, description="How many evenly spaced points a continuous range is "
                                                              "cut into.")
    discrete_values: list[str] | None = Field(None, description="The values of a discrete parameter (at least one).")


class AlgoConfigParamArg(_ArgModel):
    API_PATH = "algorithm.policies.auto_search.algo_configs[].params[]"

    key: str | None = Field(None, description="Parameter key, e.g. num_samples.")
    value: str | None = Field(None, description="Its value, as a string.")
    type: str | None = Field(None, description="Integer, Float, String or List.")

    @model_validator(mode="after")
    def _trials_capped(self) -> AlgoConfigParamArg:
        # The stack config's cap (stack/search_config.py), for a search given as policies (a YAML program).
        if self.key in TRIAL_COUNT_KEYS and self.value is not None and not contains_unknown(self.value):
            text = self.value.strip()
            if not (text.isdigit() and 1 <= int(text) <= MAX_TRIALS):
                raise rule("value", f"{self.key} must be a whole number from 1 to {MAX_TRIALS} (the trials a search "
                                    "may run)")
        return self


class AlgoConfigArg(_ArgModel):
    API_PATH = "algorithm.policies.auto_search.algo_configs[]"

    name: str | None = Field(None, description="Search algorithm, e.g. bayes_opt_search, tpe_search, anneal_search.")
    params: list[AlgoConfigParamArg] | None = Field(None, description="The algorithm's parameters; keys as the "
                                                                      "catalog lists them.")


class AutoSearchArg(_ArgModel):
    API_PATH = "algorithm.policies.auto_search"

    skip_search_params: str | None = Field(None, description="Comma-separated fixed parameters the search leaves "
                                                             "alone.")
    reward_attrs: list[RewardAttrArg] | None = Field(None, description="The objective: one entry {name, mode, regex}.")
    search_params: list[SearchParamArg] | None = Field(None, description="The space: one entry per searched "
                                                                         "parameter.")
    algo_configs: list[AlgoConfigArg] | None = Field(None, description=(
        "The search algorithm (a name of the service's catalog, GET search-algorithms) and its parameters, e.g. "
        "num_samples (the number of trials)."))


class PoliciesArg(_ArgModel):
    API_PATH = "algorithm.policies"

    auto_search: AutoSearchArg | None = None


def _environments(v: Any) -> Any:
    # The docs disagree (array of maps vs map); the service takes a map. Accept both, keep a map.
    if isinstance(v, list):
        merged: dict[str, Any] = {}
        for item in v:
            if not isinstance(item, dict):
                raise ValueError("must be a map of NAME: value (or a list of such maps)")
            merged.update(item)
        return merged
    return v


class AlgorithmArg(_ArgModel):
    API_PATH = "algorithm"

    # The parts a job entry key sets as they are (ConfigKey, core/fields.py); the others the stack program shapes.
    id: Annotated[str | None, ConfigKey("algorithmId")] = None
    name: str | None = None
    subscription_id: str | None = None
    item_version_id: str | None = None
    code_dir: ObsUrl | None = None
    boot_file: ObsUrl | None = None
    autosearch_config_path: ObsUrl | None = None
    autosearch_framework_path: ObsUrl | None = None
    command: Annotated[Annotated[str, Field(min_length=1, max_length=4096)] | None, ConfigKey("command")] = None
    parameters: list[ParameterArg] = Field(default_factory=list)
    policies: PoliciesArg | None = None
    inputs: list[InputChannel] = Field(default_factory=list)
    outputs: list[OutputChannel] = Field(default_factory=list)
    engine: EngineArg | None = None
    local_code_dir: Annotated[str | None, ConfigKey("localCodeDir")] = None
    working_dir: Annotated[str | None, ConfigKey("workingDir")] = None
    environments: dict[Annotated[str, Field(pattern=ENV_NAME_RE.pattern)], str] = Field(default_factory=dict)

    check_code = field_validator("code_dir", "boot_file")(classmethod(lambda cls, v: _code_url(v)))
    check_obs = field_validator("autosearch_config_path",
                                "autosearch_framework_path")(classmethod(lambda cls, v: _obs_url(v)))
    check_env = field_validator("environments", mode="before")(classmethod(lambda cls, v: _environments(v)))

    @field_validator("parameters", mode="before")
    @classmethod
    def _params_map(cls, v: Any) -> Any:
        # Convenience: {"lr": 0.1} is [{"name": "lr", "value": "0.1"}], in key order.
        if isinstance(v, dict):
            return [{"name": k, "value": val} for k, val in v.items()]
        return v

    @field_validator("local_code_dir")
    @classmethod
    def _in_home(cls, v: str | None) -> str | None:
        if v is not None and not (v == "/home" or v.startswith("/home/")):
            raise ValueError(f"must be a directory under /home (API rule), not {v!r}")
        return v

    @model_validator(mode="after")
    def _one_form(self) -> AlgorithmArg:
        by_id = self.id is not None
        by_sub = self.subscription_id is not None or self.item_version_id is not None
        by_code = self.code_dir is not None or self.boot_file is not None
        by_image = self.engine is not None and self.engine.image_url is not None and not by_code
        forms = [name for name, on in (("id", by_id), ("subscription_id + item_version_id", by_sub),
                                       ("code_dir + boot_file", by_code),
                                       ("engine.image_url", by_image)) if on]
        if len(forms) != 1:
            found = ", ".join(forms) if forms else "none"
            raise rule("", f"set exactly one algorithm form: {ALGORITHM_FORMS}; found: {found}")
        if by_sub and (self.subscription_id is None or self.item_version_id is None):
            raise rule("item_version_id" if self.item_version_id is None else "subscription_id",
                       "subscription_id and item_version_id must be set together")
        if by_code and (self.code_dir is None or self.boot_file is None):
            raise rule("boot_file" if self.boot_file is None else "code_dir",
                       "code_dir and boot_file must be set together")
        if by_code and not _inside(self.boot_file or "", self.code_dir or ""):
            raise rule("boot_file", f"must be inside code_dir {self.code_dir!r} (the service requires it), "
                                    f"not {self.boot_file!r}")
        if (by_id or by_sub) and self.engine is not None:
            raise rule("engine", "must be left blank when the algorithm is given by id or subscription")
        if by_code and self.engine is None:
            raise rule("engine", "code_dir + boot_file needs an engine (engine_id, engine_name + engine_version "
                                 "or image_url)")
        if by_image and self.command is None:
            raise rule("command", "a custom image (engine.image_url) needs a command")
        for kind, names in (("parameters", [p.name for p in self.parameters]),
                            ("inputs", [c.name for c in self.inputs]), ("outputs", [c.name for c in self.outputs])):
            twice = sorted({n for n in names if names.count(n) > 1})
            if twice:
                what = "parameter" if kind == "parameters" else "channel"
                raise rule(kind, f"{what} names must be unique: {', '.join(map(repr, twice))} given more than once")
        return self


ALGORITHM_FORMS = "id, subscription_id + item_version_id, code_dir + boot_file + engine, or engine.image_url + command"


def _inside(path: str, directory: str) -> bool:
    """boot_file inside code_dir, whichever OBS spelling each uses."""
    from ..client.models import normalize_obs_path

    p, d = (normalize_obs_path(x) or x for x in (path, directory))
    d = d if d.endswith("/") else d + "/"
    return p.startswith(d) and len(p) > len(d)


# --- spec parts ---------------------------------------------------------------------------------


class NfsVolume(_ArgModel):
    API_PATH = "spec.volumes[].nfs"

    nfs_server_path: Annotated[str, Field(pattern=messages.NFS_SERVER_RE)]
    local_path: Annotated[str, Field(pattern=messages.ABS_PATH_RE)]
    read_only: bool = False


class LogExportPathArg(_ArgModel):
    API_PATH = "spec.log_export_path"

    obs_url: ObsUrl | None = None
    host_path: str | None = None

    check_obs = field_validator("obs_url")(classmethod(lambda cls, v: _obs_url(v)))


class AutoStopArg(_ArgModel):
    API_PATH = "spec.auto_stop"

    time_unit: Literal["HOURS"] = "HOURS"
    duration: Annotated[int, Field(ge=1, le=24 * 365)]


# --- the resource args -------------------------------------------------------------------------


def _OPTION(config: str | None = None) -> Declared:  # noqa: N802 - reads as a kind of field
    """A provider option: never sent; a change is recorded by an update without API call."""
    return Declared(change=Change.PROVIDER, config=config)


# Runs of one job the service keeps by default when finished runs are kept (keep_runs).
DEFAULT_KEEP_RUNS = 10
MAX_KEEP_RUNS = 1000
# Restarts after a failure (issue 23): an annotation the service reads. The ModelArts user guide ("Unconditional
# Auto Restart") documents 1 to 128 for it; the API pages only give the example value 3.
RETRY_ANNOTATION = "fault-tolerance/job-retry-num"
MAX_RETRIES = 128
Retries = Annotated[int, Field(ge=1, le=MAX_RETRIES)]  # the type of both doors' retries


RETRIES_AND_ANNOTATION = f"sets the annotation {RETRY_ANNOTATION}: set retries or that annotation, not both"


# A job's tags (TMS), as the SDK's TmsTag says: key 1-128 letters (any language), digits, spaces and
# _ . : = + - @, no space at either end, not _sys_...; value 0-255 of the same and '/'. A job holds at most
# MAX_TAGS (TMS's limit per resource, assumed), two of them the owner mark's.
TAG_KEY_RE = re.compile(r"[\w .:=+\-@]{1,128}\Z")
MAX_USER_TAGS = 18


def check_tags(v: dict[str, str]) -> dict[str, str]:
    """A job's tags as TMS takes them (the rule of ``tags``, also of the stack's ``defaultTags``)."""
    for key, value in v.items():
        if not TAG_KEY_RE.match(key) or key != key.strip() or key.startswith("_sys_"):
            raise ValueError(f"{messages.shown(key)} is not a valid tag key: 1-128 letters, digits, spaces and "
                             "_ . : = + - @, no space at either end, not starting with _sys_")
        if key.startswith(OWNER_TAG_PREFIX):
            raise ValueError(f"{key}: keys starting with {OWNER_TAG_PREFIX} are the owner mark this tool "
                             "writes itself; use another prefix")
        if not TAG_VALUE_RE.match(value):
            raise ValueError(f"tag {key}: {messages.shown(value)} is not a valid tag value: 0-255 letters, "
                             "digits, spaces and _ . : / = + - @")
    if len(v) > MAX_USER_TAGS:
        raise ValueError(f"{len(v)} tags: a job holds at most {MAX_USER_TAGS} declared tags (20 with the "
                         "owner mark's two)")
    return v


class TrainingJobArgs(_ArgModel):
    """Validated inputs of a TrainingJob. See the module docstring for the layout.

    Each field is declared once, here: its type and rules, its description (the plugin schema's), and beside it
    a `Declared` (core/fields.py): its path in the create request (the payload and the read-back follow it),
    what a change does (the diff), and the stack config key that sets it as it is (the config mapping)."""

    # metadata
    name: Annotated[str | None, Declared(api="metadata.name")] = Field(
        None, description="Job name, 1-64 of [A-Za-z0-9_-]. Required unless adopt_job_id is set.")
    description: Annotated[str, Field(max_length=256), Declared(
        api="metadata.description", change=Change.IN_PLACE, config="description")] = Field(
        "", description="Job description, at most 256 characters; updated in place.")
    workspace_id: Annotated[str | None, Declared(api="metadata.workspace_id", read=wire_forms.workspace_read,
                                                 config="workspaceId", unset=wire_forms.DEFAULT_WORKSPACE)] = Field(
        None, description="Workspace of the job (service default \"0\").")
    # Declared before annotations, which it is written into (_own_annotations reads it). Messages only as a field
    # (never a diff, never stored): the annotation carries it, as the stack program wrote it before either door
    # took it, so a stack's recorded jobs and their derived names stay as they were.
    retries: Annotated[Retries | None, Declared(change=Change.IGNORED)] = Field(None, description=(
            f"Times the service restarts the job after a failure, 1-{MAX_RETRIES} (the annotation "
            f"{RETRY_ANNOTATION}, written into annotations; a change replaces the job)."))
    # the service may leave annotations out of a job's details (core/ownership.py): then nothing is known of them
    annotations: Annotated[dict[str, str], Declared(api="metadata.annotations", read=wire_forms.annotations_read,
                                                    unset=Unset.UNKNOWN)] = Field(
        default_factory=dict, validate_default=True, description="metadata.annotations sent with the job (keys starting modelarts-pulumi/ "
                                          "are the owner mark this provider writes itself).")
    # sent by the tag API right after the create (lifecycle.set_tags), not in the create body
    tags: Annotated[dict[str, str], Declared(change=Change.IN_PLACE)] = Field(default_factory=dict, description=(
        "Tags of the job (the service's tag API: billing and search by tag), set right after the create; a "
        "change updates them in place, never replaces the job. Keys starting with modelarts-pulumi. are the owner "
        "mark's."))
    kind: Annotated[Literal["job"], Declared(api="kind")] = Field("job", description="Job kind; only \"job\".")
    # body
    algorithm: Annotated[AlgorithmArg | None, Declared(api="algorithm", wire=wire_forms.algorithm_wire,
                                                       read=wire_forms.algorithm_read)] = Field(
        None, description="The algorithm: exactly one of id, subscription_id + item_version_id, code_dir + "
                          "boot_file + engine, or engine.image_url + command.")
    # refused by the rules below (documented as not implemented): never sent, never read back
    tasks: Annotated[list[Any] | None, Declared()] = Field(
        None, description="Refused: the service documents the task list as not implemented.")
    # spec.resource
    flavor_id: Annotated[Annotated[str, Field(min_length=1, max_length=128)] | None,
                         Declared(api="spec.resource.flavor_id")] = Field(
        None, description="Resource flavor, e.g. modelarts.vm.cpu.2u (required unless pool_id is set).")
    pool_id: Annotated[Annotated[str, Field(min_length=1, max_length=128)] | None,
                       Declared(api="spec.resource.pool_id")] = Field(
        None, description="Dedicated resource pool id.")
    node_count: Annotated[int, Field(ge=1, le=1024), Declared(
        api="spec.resource.node_count", read=wire_forms.node_count_read, config="nodes")] = Field(
        1, description="Number of nodes, 1-1024 (default 1).")
    # spec
    volumes: Annotated[list[NfsVolume], Declared(api="spec.volumes", wire=wire_forms.volumes_wire,
                                                 read=wire_forms.volumes_read)] = Field(
        default_factory=list, description="NFS volumes mounted into the training container.")
    log_export_path: Annotated[LogExportPathArg | None, Declared(
        api="spec.log_export_path", wire=wire_forms.log_export_wire, read=wire_forms.log_export_read)] = Field(
        None, description="Where the job's logs are exported (OBS URL or host path).")
    auto_stop: Annotated[AutoStopArg | None, Declared(api="spec.auto_stop", read=wire_forms.auto_stop_read)] = Field(
        None, description="Stop the job after this many hours.")
    # provider options: never sent, a change touches nothing remote
    wait_for: Annotated[WaitFor, _OPTION("waitFor")] = Field("created", description=(
        "none: return after POST; created: until the job left Creating (default); running: until "
        "Running; completed: until Completed. Failed/Abnormal fail the create."))
    wait_timeout_seconds: Annotated[float, Field(gt=0, le=7 * 24 * 3600), _OPTION("waitTimeoutSeconds")] = Field(
        3600, description="A JobsAwait's deadline for this job, in seconds (default 3600): past it the job is "
                          "terminated. customTimeouts on the JobsAwait take precedence.")
    poll_interval_seconds: Annotated[float, Field(ge=0.05, le=600), _OPTION("pollIntervalSeconds")] = Field(
        5.0, description="How often a JobsAwait polls this job, in seconds (default 5).")
    delete_timeout_seconds: Annotated[float, Field(gt=0, le=24 * 3600), _OPTION("deleteTimeoutSeconds")] = Field(
        900, description="How long a delete waits for the job to stop, in seconds (default 900). "
                         "customTimeouts.delete takes precedence.")
    delete_before_replace: Annotated[bool | None, _OPTION("deleteBeforeReplace")] = Field(None, description=(
        "Replacement order. Unset (default): a finished run (Completed, Failed, Abnormal, Terminated) is kept "
        "until its successor is accepted; a running one is stopped first only when both would write to one "
        "OBS path, or when an explicit name stays the same (the service may hold a name once). true: always "
        "stop and delete first; false: create first unless a running job shares an output path or the name."))
    output_per_run: Annotated[bool | None, _OPTION("outputPerRun")] = Field(None, description=(
        "Each run writes its outputs and logs into a folder named after the run (the derived job name) under "
        "the declared paths: a replacement never writes over an earlier run's files (read the current one from "
        "the output_path/output_paths outputs). Unset (default): on for a derived name, off for an explicit "
        "one; false: the old layout, every run in the declared paths. A recorded run keeps the layout it was "
        "created with: the option applies from the next run."))
    keep_finished_runs: Annotated[bool | None, _OPTION("keepFinishedRuns")] = Field(None, description=(
        "On replacement or destroy, a finished run (Completed, Failed, Abnormal, Terminated) leaves the state "
        "but stays in the service with its logs and outputs; a running one is still stopped and deleted. "
        "Unset (default, a derived name): a finished run is kept when it was replaced (a newer run of ours "
        "carries its key's owner token), deleted when its key is removed or the stack destroyed; true: kept "
        "then too; false: finished runs deleted (the old behaviour). An explicit name: false."))
    keep_runs: Annotated[Annotated[int, Field(ge=1, le=MAX_KEEP_RUNS)] | None, _OPTION("keepRuns")] = Field(
        None, description=(
            f"How many runs of this job the service keeps (the current one included) when finished runs are kept; "
            f"when a new run is created, our own finished runs beyond it are deleted, oldest first (their OBS files "
            f"stay). Default {DEFAULT_KEEP_RUNS}."))
    replace_failed: Annotated[bool, _OPTION("replaceFailed")] = Field(False, description=(
        "Replace the job on the next up if it is Failed/Abnormal (read from the service when the diff needs it, "
        "no refresh needed)."))
    # a replacement only when set to another job than the one managed (diff.py)
    adopt_job_id: Annotated[Annotated[str, Field(min_length=1, max_length=128)] | None, _OPTION("adoptJobId")] = \
        Field(None, description="Take over this existing job instead of creating one (its spec must match).")
    derived_name: Annotated[bool, _OPTION()] = Field(False, description=(
        "The name was generated (resource name + random suffix): a new suffix alone never replaces the job."))
    secret_paths: Annotated[list[str] | None, _OPTION()] = Field(None, description=(
        "Dotted paths of the inputs that are Pulumi secrets (the stack program sets it; paths, never values): "
        "the provider masks the values there in everything it prints."))
    # for messages only (catalog_check.py): never sent, never part of the spec, never a diff
    config_keys: Annotated[dict[str, str] | None, Declared(change=Change.IGNORED)] = Field(None, description=(
        "Where checked values were declared, for messages: argument path (flavor_id, algorithm.engine, "
        "algorithm.id) -> config key (the stack program sets it, e.g. modelarts-jobs:pools.gpu.flavor)."))
    owner: Annotated[OwnerMark | None, _OPTION()] = Field(None, description=(
        "This resource's owner mark (the TrainingJob resource sets it): written on the job it creates, "
        "checked before any takeover, stop or delete."))

    @field_validator("annotations")
    @classmethod
    def _own_annotations(cls, v: dict[str, str], info: ValidationInfo) -> dict[str, str]:
        taken = sorted(k for k in v if k.startswith(OWNERSHIP_PREFIX))
        if taken:
            raise ValueError(f"{taken[0]}: keys starting with {OWNERSHIP_PREFIX} are the owner mark this tool "
                             "writes itself; use another prefix")
        retries = info.data.get("retries")
        if retries is None:
            return v
        # The annotation at retries' own count is what this validator wrote (canonical inputs validated again);
        # another count is the user's, set both ways.
        if v.get(RETRY_ANNOTATION, str(retries)) != str(retries):
            raise ValueError(RETRIES_AND_ANNOTATION)
        return {**v, RETRY_ANNOTATION: str(retries)}

    @field_validator("tags")
    @classmethod
    def _tags(cls, v: dict[str, str]) -> dict[str, str]:
        return check_tags(v)

    @field_validator("name")
    @classmethod
    def _name(cls, v: str | None) -> str | None:
        if v is not None and not JOB_NAME_RE.match(v):
            raise ValueError(f"{messages.shown(v)} is not a valid job name: 1-64 characters of letters, digits, "
                             "underscores and hyphens")
        return v

    @model_validator(mode="after")
    def _rules(self) -> TrainingJobArgs:
        if self.name is None and self.adopt_job_id is None:
            raise rule("name", "is required (or set adopt_job_id to take over an existing job)")
        if self.tasks is not None:
            # The create page: "Task list. This function is not implemented currently." Refused
            # here so the mistake shows at preview, not as a service error at up.
            raise rule("tasks", "is not supported: the service documents the task list as not implemented; "
                                "declare algorithm with flavor_id/pool_id instead")
        if self.algorithm is None:
            raise rule("algorithm", f"is required: one of {ALGORITHM_FORMS}")
        if self.flavor_id is None and self.pool_id is None:
            raise rule("flavor_id", "is required: set flavor_id, or pool_id (+ flavor_id) for a dedicated pool")
        if self.output_per_run is True and self.name is not None and not self.derived_name:
            raise rule("output_per_run", "needs a derived name (leave name unset): the run's folder is named after "
                                         "the derived job name, renewed with each run")
        if self.keep_finished_runs is True and self.name is not None and not self.derived_name:
            raise rule("keep_finished_runs", "needs a derived name (leave name unset): a kept run keeps its name, "
                                             "which its successor could then not use")
        return self

    # --- what the run options come to ------------------------------------------------------------

    @property
    def keeps_finished_runs(self) -> bool:
        return keeps_finished_runs(self.model_dump())

    @property
    def runs_kept(self) -> int:
        return self.keep_runs or DEFAULT_KEEP_RUNS

    # --- wire ----------------------------------------------------------------------------------

    def to_wire(self, name: str | None = None, replaces: Iterable[str] = ()) -> dict[str, Any]:
        """The POST /training-jobs body (API naming): every sent field along its declared path, named `name`
        when given, with this resource's owner mark among the annotations, and the runs it `replaces`
        (core/replaced_runs.py: the JobsAwait reads them from the job)."""
        body = declared_wire(self)
        meta = body.setdefault("metadata", {})
        meta["name"] = name or self.name
        annotations = {**self.annotations, **(self.owner.annotations("job", meta["name"]) if self.owner else {}),
                       **replaced_runs.annotation(None, replaces)}
        if annotations:
            meta["annotations"] = annotations
        return body


# What a change of each field does (the diff, normalize's spec), from the declarations above.
# Fields that steer the provider only; they are never sent and their changes touch nothing remote.
PROVIDER_ONLY_FIELDS = fields_changing(TrainingJobArgs, Change.PROVIDER)
# Fields the service can change in place (description: PUT; tags: the tag API).
UPDATABLE_FIELDS = fields_changing(TrainingJobArgs, Change.IN_PLACE)
# For messages only (catalog_check.py): never sent, never part of the spec, never a diff.
MESSAGE_ONLY_FIELDS = fields_changing(TrainingJobArgs, Change.IGNORED)


# Model class names, which pydantic puts into error locations of unions; never part of a field path.
MODEL_NAMES = frozenset(name for name, obj in list(globals().items())
                        if isinstance(obj, type) and issubclass(obj, BaseModel))


def per_run_default(props: Mapping[str, Any]) -> bool:
    """What an unset option of a run (output_per_run, keep_finished_runs) comes to: on for a derived name
    (renewed with each run, so runs never share a name or a folder), off for an explicit one (the name the
    service holds once: a kept run would block its successor)."""
    return props.get("derived_name") is True


def writes_per_run(props: Mapping[str, Any]) -> bool:
    """Whether a job's outputs and logs go into a folder per run (output_per_run, its default above)."""
    value = props.get("output_per_run")
    return value if isinstance(value, bool) else per_run_default(props)


def keeps_finished_runs(props: Mapping[str, Any]) -> bool:
    """Whether a finished run stays in the service when replaced or removed (keep_finished_runs)."""
    value = props.get("keep_finished_runs")
    return value if isinstance(value, bool) else per_run_default(props)

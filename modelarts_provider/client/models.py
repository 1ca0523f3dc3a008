"""pydantic v2 models of the ModelArts v2 training-job wire format.

Sources: ``shared/api-docs`` (Creating a Training Job, Querying the Details, Terminating), both
editions (Huawei Cloud and Open Telekom Cloud), and the official SDK's models
(``huaweicloudsdkmodelarts``); the union of their fields is modelled.

Conventions
-----------
* Every model keeps unknown fields (``extra="allow"``): the service adds fields over time and a
  response must survive a round trip through the client unchanged.
* Field names are the wire names (snake_case already); ``to_wire()`` serialises exactly the fields
  that were set (parsed or passed), dropping ``None`` unless ``keep_nulls=True``.

Tolerance: read what the service may send, send what the API documents
---------------------------------------------------------------------
The pages, their examples and the SDK disagree on types and shapes (the OTC terminate example sends
``"period": 30`` where every table says String; ``tasks[].algorithm.inputs`` is an array in the
create request table and one object in the response tables and the SDK). The rule, for every field
a response can carry (only the request-only search, action and update bodies are typed strictly),
applied through the annotated types below and nothing else:

* a scalar typed String, Integer, Long or Float accepts a JSON string or a JSON number
  (``Str``, ``Int``);
* a field typed as an array of objects, or as one object where another page or the SDK has an array,
  accepts an array of objects or one object (``Many[T]``; read it with :func:`as_list`);
* the value is kept exactly as received, type and shape included, so a job round-trips unchanged
  (``environments`` excepted: a documented quirk, below).

Requests go out in the documented shapes: ``CreateTrainingJobRequest`` turns the conveniences it
accepts (a flat channel ``{"name", "obs_url"}`` or ``{"name", "dataset"}``, one channel instead of
a list, non-string parameter values and annotation values) into the documented form (``remote.obs``
/ ``remote.dataset``, arrays, strings) before anything is sent.

Documented quirks
-----------------
* ``algorithm.environments`` is ``Map<String,String>`` in requests and the examples, but
  ``Array of Map<String,String>`` in the response tables. Both are accepted (a list of maps is merged
  in order) and it is always stored and sent as one map.
* OBS locations appear as ``obs://bucket/path/`` and as ``/bucket/path/``. Values are kept as sent;
  :func:`normalize_obs_path` gives the canonical ``obs://bucket/path/`` form and
  :func:`same_obs_path` compares two spellings.
"""

from __future__ import annotations

import threading
from enum import Enum
from typing import TYPE_CHECKING, Annotated, Any, Iterable, Optional, TypeVar, Union

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    StrictFloat,
    StrictInt,
    StrictStr,
    field_validator,
    model_validator,
)

from .obs_paths import normalize_obs_path, obs_path_to_bucket_form, same_obs_path

__all__ = [
    "Phase",
    "TERMINAL_PHASES",
    "FAILED_PHASES",
    "ACTIVE_PHASES",
    "normalize_obs_path",
    "obs_path_to_bucket_form",
    "same_obs_path",
    "normalize_environments",
    "Str",
    "Int",
    "Many",
    "as_list",
    "as_text",
    "WireModel",
    "JobMetadata",
    "I18nDescription",
    "ParameterConstraint",
    "Parameter",
    "RewardAttr",
    "SearchParam",
    "AutoSearchAlgoConfigParameter",
    "AlgoConfig",
    "AutoSearch",
    "Policies",
    "ObsLocation",
    "DatasetLocation",
    "InputRemote",
    "RemoteConstraint",
    "Input",
    "OutputRemote",
    "Output",
    "Engine",
    "JobAlgorithm",
    "JobConfig",
    "TaskAlgorithm",
    "Billing",
    "Cpu",
    "Gpu",
    "Npu",
    "Memory",
    "Disk",
    "FlavorInfo",
    "FlavorDetail",
    "TaskResource",
    "Task",
    "Resource",
    "Nfs",
    "Volume",
    "LogExportPath",
    "AutoStop",
    "JobSpec",
    "TaskStatus",
    "RunningRecord",
    "JobStatus",
    "CreateTrainingJobRequest",
    "JobSummary",
    "JobSummaryList",
    "TrainingJob",
    "ActionRequest",
    "UpdateDescriptionRequest",
    "SearchFilter",
    "TrainingJobSearchRequest",
    "TrainingFlavor",
    "TrainingFlavorList",
    "TrainingEngine",
    "TrainingEngineList",
    "AlgorithmDetail",
    "TrainingJobList",
    "ErrorBody",
    "TaskLogPreview",
    "task_ids",
]


class Phase(str, Enum):
    CREATING = "Creating"
    PENDING = "Pending"
    RUNNING = "Running"
    COMPLETED = "Completed"
    FAILED = "Failed"
    TERMINATING = "Terminating"
    TERMINATED = "Terminated"
    ABNORMAL = "Abnormal"

    def __str__(self) -> str:  # "Running", not "Phase.RUNNING"
        return self.value


TERMINAL_PHASES = frozenset({"Completed", "Failed", "Terminated", "Abnormal"})
FAILED_PHASES = frozenset({"Failed", "Abnormal"})
ACTIVE_PHASES = frozenset({"Creating", "Pending", "Running"})


# --- quirk helpers ---------------------------------------------------------------------------------


def normalize_environments(value: Any) -> Optional[dict[str, str]]:
    """``{"K": "V"}`` or ``[{"K": "V"}, ...]`` (or ``[{"key":..,"value":..}]``) -> one ``dict``.

    Values are converted to strings (the API type is Map<String,String>).
    """
    if value is None:
        return None
    merged: dict[str, str] = {}
    items: Iterable[Any]
    if isinstance(value, dict):
        items = [value]
    elif isinstance(value, (list, tuple)):
        items = value
    else:
        raise ValueError("environments must be a map or a list of maps")
    for item in items:
        if item is None:
            continue
        if not isinstance(item, dict):
            raise ValueError("environments must be a map or a list of maps")
        if set(item) == {"key", "value"} or set(item) == {"name", "value"}:
            k = item.get("key", item.get("name"))
            merged[str(k)] = _env_value(item["value"])
            continue
        for k, v in item.items():
            merged[str(k)] = _env_value(v)
    return merged


def _env_value(v: Any) -> str:
    if isinstance(v, bool):
        return str(v).lower()
    if v is None:
        return ""
    if isinstance(v, (dict, list)):
        raise ValueError("environment variable values must be scalars")
    return str(v)


# --- base ------------------------------------------------------------------------------------------

T = TypeVar("T")

# The tolerance rule (module docstring). Strict members: a value is kept as received, never coerced
# (a lax ``int`` would turn "30" into 30 and break the round trip).
Str = Annotated[Union[StrictStr, StrictInt, StrictFloat], "documented String; a number is kept too"]
Int = Annotated[Union[StrictInt, StrictFloat, StrictStr], "documented Integer/Long/Float; a string is kept too"]
Many = Annotated[Union[list[T], T], "array of objects, or one object; kept as received"]


def as_list(value: Any) -> list[Any]:
    """A ``Many`` field as a list: None -> [], one object -> [it], a list -> a copy of it."""
    if value is None:
        return []
    if isinstance(value, list):
        return list(value)
    return [value]


def as_text(value: Any) -> Optional[str]:
    """A ``Str`` field as ``str`` (a number the service sent is shown as its JSON text)."""
    if value is None or isinstance(value, str):
        return value
    return str(value)


_BUILD_LOCK = threading.Lock()


def _built(cls: type[BaseModel]) -> None:
    """Build a deferred schema once, under one lock, at its first use: a provider makes up to 256 calls at once, so the first
    responses of a sweep's creates are parsed at the same moment, and pydantic's deferred build is not made
    for several threads at once. Seen once in a benchmark, not reproduced since: 8 of a 32-job sweep's first
    creates failed with "'WireModel' object has no attribute 'id'" (a job parsed as the base class). Building
    every model up front instead costs 0.3 s in every process that makes a client (15 % of an engine test's
    CPU); this costs nothing after the first use of each model."""
    if cls.__pydantic_complete__:
        return
    with _BUILD_LOCK:
        if not cls.__pydantic_complete__:
            cls.model_rebuild()


class WireModel(BaseModel):
    """Base of every wire model: unknown fields kept, wire names, set-fields-only serialisation."""

    # defer_build: a schema is built on first use, so a preview (which sends nothing) never builds one; the
    # first use builds it under a lock (_built).
    model_config = ConfigDict(extra="allow", populate_by_name=True, validate_assignment=False, defer_build=True)

    def __init__(self, /, **data: Any) -> None:
        _built(type(self))
        super().__init__(**data)

    @classmethod
    def model_validate(cls, obj: Any, *args: Any, **kwargs: Any) -> Any:
        _built(cls)
        return super().model_validate(obj, *args, **kwargs)

    def to_wire(self, *, keep_nulls: bool = False) -> dict[str, Any]:
        """JSON-ready dict of the fields that were set (parsed or passed), unknown fields included."""
        return self.model_dump(mode="json", exclude_unset=True, exclude_none=not keep_nulls, by_alias=True)

    @property
    def unknown_fields(self) -> dict[str, Any]:
        return dict(self.model_extra or {})


# --- metadata --------------------------------------------------------------------------------------


class JobMetadata(WireModel):
    id: Optional[Str] = None
    name: Optional[Str] = None  # required in a create request (checked there)
    workspace_id: Optional[Str] = None
    description: Optional[Str] = None
    create_time: Optional[Int] = None  # ms since epoch
    user_name: Optional[Str] = None
    annotations: Optional[dict[str, Str]] = None


# --- algorithm -------------------------------------------------------------------------------------


class I18nDescription(WireModel):
    language: Optional[Str] = None
    description: Optional[Str] = None


class ParameterConstraint(WireModel):
    type: Optional[Str] = None
    editable: Optional[bool] = None
    required: Optional[bool] = None
    sensitive: Optional[bool] = None
    valid_type: Optional[Str] = None
    valid_range: Optional[list[Str]] = None


class Parameter(WireModel):
    name: Optional[Str] = None
    value: Optional[Str] = None
    description: Optional[Str] = None
    constraint: Optional[ParameterConstraint] = None
    i18n_description: Optional[Many[I18nDescription]] = None


class RewardAttr(WireModel):
    name: Optional[Str] = None
    mode: Optional[Str] = None  # search direction: max / min
    regex: Optional[Str] = None


class SearchParam(WireModel):
    name: Optional[Str] = None
    param_type: Optional[Str] = None
    lower_bound: Optional[Str] = None
    upper_bound: Optional[Str] = None
    discrete_points_num: Optional[Str] = None
    discrete_values: Optional[list[Str]] = None


class AutoSearchAlgoConfigParameter(WireModel):
    key: Optional[Str] = None
    value: Optional[Str] = None
    type: Optional[Str] = None


class AlgoConfig(WireModel):
    name: Optional[Str] = None
    params: Optional[Many[AutoSearchAlgoConfigParameter]] = None


class AutoSearch(WireModel):
    skip_search_params: Optional[Str] = None
    reward_attrs: Optional[Many[RewardAttr]] = None
    search_params: Optional[Many[SearchParam]] = None
    algo_configs: Optional[Many[AlgoConfig]] = None


class Policies(WireModel):
    auto_search: Optional[AutoSearch] = None


class ObsLocation(WireModel):
    obs_url: Optional[Str] = None  # obs://bucket/path/ or /bucket/path/

    @property
    def normalized(self) -> Optional[str]:
        return normalize_obs_path(self.obs_url)


class DatasetLocation(WireModel):
    id: Optional[Str] = None
    version_id: Optional[Str] = None
    obs_url: Optional[Str] = None


class InputRemote(WireModel):
    """InputDataInfo: either a dataset or an OBS location."""

    dataset: Optional[DatasetLocation] = None
    obs: Optional[ObsLocation] = None


class RemoteConstraint(WireModel):
    data_type: Optional[Str] = None
    attributes: Optional[Union[Str, dict[str, Any], list[Any]]] = None  # String in the tables


class Input(WireModel):
    name: Optional[Str] = None
    description: Optional[Str] = None
    local_dir: Optional[Str] = None
    remote: Optional[InputRemote] = None
    remote_constraint: Optional[Many[RemoteConstraint]] = None


class OutputRemote(WireModel):
    obs: Optional[ObsLocation] = None


class Output(WireModel):
    name: Optional[Str] = None
    description: Optional[Str] = None
    local_dir: Optional[Str] = None
    remote: Optional[OutputRemote] = None
    mode: Optional[Str] = None  # upload_periodically (responses)
    period: Optional[Str] = None  # String in the tables, 30 (a number) in the OTC terminate example


class Engine(WireModel):
    engine_id: Optional[Str] = None
    engine_name: Optional[Str] = None
    engine_version: Optional[Str] = None
    image_url: Optional[Str] = None
    v1_compatible: Optional[bool] = None  # response only
    run_user: Optional[Str] = None  # response only


class JobAlgorithm(WireModel):
    """``algorithm`` of a create request and ``JobAlgorithmResponse`` of a response."""

    id: Optional[Str] = None
    name: Optional[Str] = None
    subscription_id: Optional[Str] = None
    item_version_id: Optional[Str] = None
    code_dir: Optional[Str] = None
    boot_file: Optional[Str] = None
    autosearch_config_path: Optional[Str] = None
    autosearch_framework_path: Optional[Str] = None
    command: Optional[Str] = None
    parameters: Optional[Many[Parameter]] = None
    policies: Optional[Policies] = None
    inputs: Optional[Many[Input]] = None
    outputs: Optional[Many[Output]] = None
    engine: Optional[Engine] = None
    local_code_dir: Optional[Str] = None
    working_dir: Optional[Str] = None
    environments: Optional[dict[str, str]] = None

    @field_validator("environments", mode="before")
    @classmethod
    def _environments(cls, v: Any) -> Any:
        return normalize_environments(v)


class JobConfig(WireModel):
    parameters: Optional[Many[Parameter]] = None
    inputs: Optional[Many[Input]] = None
    outputs: Optional[Many[Output]] = None
    engine: Optional[Engine] = None


class TaskAlgorithm(WireModel):
    """``tasks[].algorithm``: ``inputs`` / ``outputs`` are arrays in a request (create page, Tables 16
    and 31-36) and one object each in a response (TaskResponse ``algorithm``, Tables 68-74; SDK
    ``TaskResponseAlgorithm``); both are kept as received."""

    job_config: Optional[JobConfig] = None
    code_dir: Optional[Str] = None
    boot_file: Optional[Str] = None
    engine: Optional[Engine] = None
    inputs: Optional[Many[Input]] = None
    outputs: Optional[Many[Output]] = None
    local_code_dir: Optional[Str] = None
    working_dir: Optional[Str] = None
    environments: Optional[dict[str, str]] = None  # SDK only; a map, as algorithm.environments

    @field_validator("environments", mode="before")
    @classmethod
    def _environments(cls, v: Any) -> Any:
        return normalize_environments(v)


# --- flavors / spec --------------------------------------------------------------------------------


class Billing(WireModel):
    code: Optional[Str] = None
    unit_num: Optional[Int] = None


class Cpu(WireModel):
    arch: Optional[Str] = None
    core_num: Optional[Int] = None


class Gpu(WireModel):
    unit_num: Optional[Int] = None
    product_name: Optional[Str] = None
    memory: Optional[Str] = None


class Npu(WireModel):
    unit_num: Optional[Int] = None
    product_name: Optional[Str] = None
    memory: Optional[Str] = None


class Memory(WireModel):
    size: Optional[Int] = None
    unit: Optional[Str] = None


class Disk(WireModel):
    size: Optional[Int] = None
    unit: Optional[Str] = None


class FlavorInfo(WireModel):
    max_num: Optional[Int] = None
    cpu: Optional[Cpu] = None
    gpu: Optional[Gpu] = None
    npu: Optional[Npu] = None
    memory: Optional[Memory] = None
    disk: Optional[Disk] = None


class FlavorDetail(WireModel):
    flavor_type: Optional[Str] = None
    billing: Optional[Billing] = None
    attributes: Optional[dict[str, Any]] = None  # OTC terminate example
    flavor_info: Optional[FlavorInfo] = None


class LogExportPath(WireModel):
    obs_url: Optional[Str] = None
    host_path: Optional[Str] = None


class TaskResource(WireModel):
    """``task_resource`` (request: flavor_id/node_count (+ pool_id, SDK); response: FlavorResponse)."""

    flavor_id: Optional[Str] = None
    node_count: Optional[Int] = None
    pool_id: Optional[Str] = None
    flavor_name: Optional[Str] = None
    max_num: Optional[Int] = None
    flavor_type: Optional[Str] = None
    billing: Optional[Billing] = None
    flavor_info: Optional[FlavorInfo] = None
    attributes: Optional[dict[str, Any]] = None


class Task(WireModel):
    role: Optional[Str] = None
    algorithm: Optional[TaskAlgorithm] = None
    task_resource: Optional[TaskResource] = None
    log_export_path: Optional[LogExportPath] = None  # SDK Task / TaskResponse


class Resource(WireModel):
    policy: Optional[Str] = None  # response: "regular" (or "economic" in older jobs)
    flavor_id: Optional[Str] = None
    flavor_name: Optional[Str] = None  # response only
    node_count: Optional[Int] = None
    pool_id: Optional[Str] = None
    flavor_detail: Optional[FlavorDetail] = None  # response only


class Nfs(WireModel):
    nfs_server_path: Optional[Str] = None
    local_path: Optional[Str] = None
    read_only: Optional[bool] = None


class Volume(WireModel):
    nfs: Optional[Nfs] = None


class AutoStop(WireModel):
    time_unit: Optional[Str] = None  # HOURS
    duration: Optional[Int] = None


class JobSpec(WireModel):
    resource: Optional[Resource] = None
    volumes: Optional[Many[Volume]] = None
    log_export_path: Optional[LogExportPath] = None
    auto_stop: Optional[AutoStop] = None


# --- status ----------------------------------------------------------------------------------------


class TaskStatus(WireModel):
    task: Optional[Str] = None
    exit_code: Optional[Int] = None
    message: Optional[Str] = None


class RunningRecord(WireModel):
    start_at: Optional[Int] = None
    end_at: Optional[Int] = None
    start_type: Optional[Str] = None
    end_reason: Optional[Str] = None
    end_related_task: Optional[Str] = None
    end_recover: Optional[Str] = None
    end_recover_before_downgrade: Optional[Str] = None


class JobStatus(WireModel):
    phase: Optional[Str] = None  # see Phase; unknown values are kept as strings
    secondary_phase: Optional[Str] = None
    duration: Optional[Int] = None  # ms
    node_count_metrics: Optional[list[list[Int]]] = None
    tasks: Optional[list[Str]] = None
    start_time: Optional[Int] = None
    task_statuses: Optional[Many[TaskStatus]] = None
    running_records: Optional[Many[RunningRecord]] = None


# --- requests: the documented shapes --------------------------------------------------------------


def _plain(value: Any) -> Any:
    """Models (their set fields, nulls included) -> plain JSON data, recursively."""
    if isinstance(value, WireModel):
        return value.to_wire(keep_nulls=True)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _scalar_text(value: Any) -> Any:
    """A number or boolean given for a documented String -> its string (``true``/``false``)."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (int, float)):
        return str(value)
    return value


def _request_channel(channel: Any) -> Any:
    """``{"name", "obs_url"}`` / ``{"name", "dataset"}`` -> ``{"name", "remote": {"obs"|"dataset"}}``.

    The create page (Input/Output tables; tasks: Tables 31-36) and the SDK only know ``remote``; a
    channel already in that form is left alone.
    """
    if not isinstance(channel, dict) or "remote" in channel:
        return channel
    remote: dict[str, Any] = {}
    if channel.get("obs_url") is not None:
        remote["obs"] = {"obs_url": obs_path_to_bucket_form(channel["obs_url"])}
    if channel.get("dataset") is not None:
        remote["dataset"] = channel["dataset"]
    if not remote:
        return channel
    rest = {k: v for k, v in channel.items() if k not in ("obs_url", "dataset")}
    return {**rest, "remote": remote}


def _request_algorithm(alg: Any) -> None:
    """In place: an algorithm's (or job_config's) channels as arrays of documented channels, and
    parameter values as strings."""
    if not isinstance(alg, dict):
        return
    for key in ("inputs", "outputs"):
        if alg.get(key) is not None:
            alg[key] = [_request_channel(c) for c in as_list(alg[key])]
    if alg.get("parameters") is not None:
        alg["parameters"] = [
            {**p, "value": _scalar_text(p["value"])} if isinstance(p, dict) and "value" in p else p
            for p in as_list(alg["parameters"])
        ]


# --- top level -------------------------------------------------------------------------------------


class CreateTrainingJobRequest(WireModel):
    """Body of ``POST /v2/{project_id}/training-jobs``. ``kind`` is always sent (default ``job``).

    Whatever form the caller hands over, the body is built in the documented shapes (module
    docstring): flat or single channels become arrays of ``remote`` channels, non-string parameter
    and annotation values become strings.
    """

    kind: str = "job"
    metadata: JobMetadata
    algorithm: Optional[JobAlgorithm] = None
    tasks: Optional[list[Task]] = None
    spec: Optional[JobSpec] = None

    @model_validator(mode="before")
    @classmethod
    def _documented_shapes(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        body = _plain(data)
        meta = body.get("metadata")
        if isinstance(meta, dict) and isinstance(meta.get("annotations"), dict):
            meta["annotations"] = {str(k): _scalar_text(v) for k, v in meta["annotations"].items()}
        _request_algorithm(body.get("algorithm"))
        if body.get("tasks") is not None:
            body["tasks"] = as_list(body["tasks"])
            for task in body["tasks"]:
                alg = task.get("algorithm") if isinstance(task, dict) else None
                _request_algorithm(alg)
                if isinstance(alg, dict):
                    _request_algorithm(alg.get("job_config"))
        return body

    @field_validator("metadata")
    @classmethod
    def _name_required(cls, v: JobMetadata) -> JobMetadata:
        if not v.name:
            raise ValueError("metadata.name is required")
        return v

    def model_post_init(self, __context: Any) -> None:
        self.__pydantic_fields_set__.add("kind")

    @property
    def name(self) -> str:
        return self.metadata.name or ""


class _JobAccessors:
    """id, name and phase of a job model as text (its fields keep what the service sent; see the tolerance rule)."""

    if TYPE_CHECKING:  # the models' own fields; annotated here only for the type checker (pydantic would take them
        metadata: JobMetadata  # as fields of their own, ahead of the model's)
        status: JobStatus

    @property
    def id(self) -> Optional[str]:
        return as_text(self.metadata.id)

    @property
    def name(self) -> Optional[str]:
        return as_text(self.metadata.name)

    @property
    def phase(self) -> Optional[str]:
        return as_text(self.status.phase)

    @property
    def task_statuses(self) -> list[TaskStatus]:
        return as_list(self.status.task_statuses)


class JobSummary(_JobAccessors, WireModel):
    """A job of the list API as the `status` tool reads it: its metadata and status, the rest of what the page carries
    kept as unknown fields, unparsed. TrainingJob's schema (algorithm, spec, tasks...) takes a tenth of a second to
    build, more than the rest of that command (issue 56: under a second)."""

    metadata: JobMetadata = Field(default_factory=JobMetadata)
    status: JobStatus = Field(default_factory=JobStatus)


class JobSummaryList(WireModel):
    """A page of the list API read as JobSummary items (of the page's fields, only `total` ends a listing)."""

    total: Optional[Int] = None
    items: Many[JobSummary] = Field(default_factory=list)

    @property
    def jobs(self) -> list[JobSummary]:
        return as_list(self.items)


class TrainingJob(_JobAccessors, WireModel):
    """A training job as returned by create, details, terminate and the list API."""

    kind: Optional[Str] = None
    metadata: JobMetadata = Field(default_factory=JobMetadata)
    status: JobStatus = Field(default_factory=JobStatus)
    algorithm: Optional[JobAlgorithm] = None
    tasks: Optional[Many[Task]] = None
    spec: Optional[JobSpec] = None
    # The job's tags where they were read (their own API, not part of this response): None = not read.
    _tags: Optional[dict[str, str]] = PrivateAttr(default=None)

    @property
    def tags(self) -> Optional[dict[str, str]]:
        return self._tags

    def with_tags(self, tags: dict[str, str]) -> "TrainingJob":
        """This job with the tags read for it (a copy)."""
        out = self.model_copy()
        out._tags = dict(tags)
        return out

    # typed accessors beside id, name and phase (_JobAccessors)
    @property
    def description(self) -> Optional[str]:
        return as_text(self.metadata.description)

    @property
    def secondary_phase(self) -> Optional[str]:
        return as_text(self.status.secondary_phase)

    @property
    def is_terminal(self) -> bool:
        return self.phase in TERMINAL_PHASES


class ActionRequest(WireModel):
    action_type: str = "terminate"

    def model_post_init(self, __context: Any) -> None:
        self.__pydantic_fields_set__.add("action_type")


class UpdateDescriptionRequest(WireModel):
    description: str

    def model_post_init(self, __context: Any) -> None:
        self.__pydantic_fields_set__.add("description")


class SearchFilter(WireModel):
    key: str  # name, phase, ...
    operator: str = "in"  # in, like, between, ...
    value: list[Any] = Field(default_factory=list)

    def model_post_init(self, __context: Any) -> None:
        self.__pydantic_fields_set__.update({"key", "operator", "value"})


class TrainingJobSearchRequest(WireModel):
    """Body of ``POST /v2/{project_id}/training-job-searches`` (the list API)."""

    offset: int = 0
    limit: int = 50
    sort_by: str = "create_time"
    order: str = "desc"
    group_by: Optional[str] = None
    workspace_id: Optional[str] = None  # a top-level key, not a filter (SDK JobSearches); service default "0"
    filters: list[SearchFilter] = Field(default_factory=list)

    def model_post_init(self, __context: Any) -> None:
        self.__pydantic_fields_set__.update({"offset", "limit", "sort_by", "order", "filters"})


class TrainingJobList(WireModel):
    total: Optional[Int] = None
    count: Optional[Int] = None
    limit: Optional[Int] = None
    offset: Optional[Int] = None
    sort_by: Optional[Str] = None
    order: Optional[Str] = None
    group_by: Optional[Str] = None
    workspace_id: Optional[Str] = None
    items: Many[TrainingJob] = Field(default_factory=list)

    @property
    def jobs(self) -> list[TrainingJob]:
        return as_list(self.items)


class ErrorBody(WireModel):
    error_code: Optional[Str] = None
    error_msg: Optional[Str] = None
    error_solution: Optional[Str] = None


# --- task logs --------------------------------------------------------------------------------------


class TaskLogPreview(WireModel):
    """Body of ``GET .../training-jobs/{id}/tasks/{task_id}/logs/preview`` (SDK
    ShowTrainingJobLogsPreviewResponse): the log so far, or its newest part (at most 5 MB)."""

    content: Optional[Str] = None  # called "context" before 2022-03-01 (SDK docs): read as well
    current_size: Optional[Int] = None  # bytes of ``content``
    full_size: Optional[Int] = None  # bytes of the whole log

    @property
    def text(self) -> str:
        value = self.content if self.content is not None else (self.model_extra or {}).get("context")
        return (as_text(value) or "") if isinstance(value, (str, int, float)) else ""

    @property
    def sizes(self) -> tuple[Optional[int], Optional[int]]:
        """(current_size, full_size) as ints, None where absent or not a number."""
        def num(v: Any) -> Optional[int]:
            try:
                return int(v) if v is not None and not isinstance(v, bool) else None
            except (TypeError, ValueError):
                return None
        return num(self.current_size), num(self.full_size)


def task_ids(job: JobSummary | TrainingJob) -> list[str]:
    """The job's task ids for the log API: ``status.tasks``, else ``task_statuses[].task``, else the
    documented single-node default ``worker-0``."""
    ids = [as_text(t) for t in job.status.tasks or []]
    if not any(ids):
        ids = [as_text(s.task) for s in job.task_statuses]
    return list(dict.fromkeys(i for i in ids if i)) or ["worker-0"]


# --- training catalogs ------------------------------------------------------------------------------
# What the service offers a training job (SDK ShowTrainingJobFlavors / ShowTrainingJobEngines /
# ShowAlgorithmByUuid responses), read by the catalog check at preview.


class TrainingFlavor(WireModel):
    """SDK FlavorResponseWithSupport: one public flavor of ``GET /v2/{project_id}/training-job-flavors``."""

    flavor_id: Optional[Str] = None
    flavor_name: Optional[Str] = None
    flavor_type: Optional[Str] = None  # CPU | GPU | Ascend
    max_num: Optional[Int] = None
    pool_id: Optional[Str] = None
    billing: Optional[Billing] = None
    flavor_info: Optional[FlavorInfo] = None
    attributes: Optional[dict[str, Any]] = None


class TrainingFlavorList(WireModel):
    total_count: Optional[Int] = None
    flavors: Many[TrainingFlavor] = Field(default_factory=list)


class TrainingEngine(WireModel):
    """SDK ListEnginesItems: one preset engine of ``GET /v2/{project_id}/training-job-engines``."""

    engine_id: Optional[Str] = None
    engine_name: Optional[Str] = None
    engine_version: Optional[Str] = None
    v1_compatible: Optional[bool] = None
    run_user: Optional[Str] = None
    image_info: Optional[dict[str, Any]] = None


class TrainingEngineList(WireModel):
    total: Optional[Int] = None
    items: Many[TrainingEngine] = Field(default_factory=list)


class AlgorithmMetadata(WireModel):
    id: Optional[Str] = None
    name: Optional[Str] = None
    description: Optional[Str] = None
    workspace_id: Optional[Str] = None


class AlgorithmJobConfig(WireModel):
    code_dir: Optional[Str] = None
    boot_file: Optional[Str] = None
    command: Optional[Str] = None
    parameters: Optional[Many[Parameter]] = None
    engine: Optional[Engine] = None


class AlgorithmDetail(WireModel):
    """SDK ShowAlgorithmByUuidResponse: ``GET /v2/{project_id}/algorithms/{algorithm_id}``."""

    metadata: Optional[AlgorithmMetadata] = None
    job_config: Optional[AlgorithmJobConfig] = None


def output_urls(live: dict[str, Any]) -> dict[str, str]:
    """A live job's (wire form, TrainingJob.to_wire()) output channels: name -> OBS URL (obs://bucket/key/)."""
    out: dict[str, str] = {}
    for ch in as_list((live.get("algorithm") or {}).get("outputs")):
        url = ((ch.get("remote") or {}).get("obs") or {}).get("obs_url")
        if isinstance(ch, dict) and ch.get("name") and url:
            out[ch["name"]] = normalize_obs_path(url) or url
    return out

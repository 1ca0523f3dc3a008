"""pydantic v2 models of the ModelArts v2 training-job wire format.

Sources: ``shared/api-docs`` (Creating a Training Job, Querying the Details, Terminating), both
editions (Huawei Cloud and Open Telekom Cloud); the union of their fields is modelled.

Conventions
-----------
* Every model keeps unknown fields (``extra="allow"``): the service adds fields over time and a
  response must survive a round trip through the client unchanged.
* Field names are the wire names (snake_case already); ``to_wire()`` serialises exactly the fields
  that were set (parsed or passed), dropping ``None`` unless ``keep_nulls=True``.
* Loosely typed numbers: the documents disagree on several numeric types (e.g. ``npu.unit_num`` is a
  String, ``gpu.unit_num`` an Integer, ``disk.size`` a String); such fields accept ``int | str`` and
  keep what the server sent.

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

from enum import Enum
from typing import Any, Iterable, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, field_validator

__all__ = [
    "Phase",
    "TERMINAL_PHASES",
    "FAILED_PHASES",
    "ACTIVE_PHASES",
    "normalize_obs_path",
    "obs_path_to_bucket_form",
    "same_obs_path",
    "normalize_environments",
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
    "TrainingJob",
    "ActionRequest",
    "UpdateDescriptionRequest",
    "SearchFilter",
    "TrainingJobSearchRequest",
    "TrainingJobList",
    "ErrorBody",
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


def normalize_obs_path(value: Optional[str]) -> Optional[str]:
    """``/bucket/path/`` or ``obs://bucket/path/`` -> ``obs://bucket/path/`` (other values unchanged).

    A trailing ``/`` (directory) is preserved; repeated slashes after the bucket are collapsed.
    """
    if value is None:
        return None
    v = value.strip()
    if v.lower().startswith("obs://"):
        rest = v[6:]
    elif v.startswith("/") and not v.startswith("//"):
        rest = v[1:]
    else:
        return value
    trailing = rest.endswith("/")
    parts = [p for p in rest.split("/") if p]
    if not parts:
        return value
    out = "obs://" + "/".join(parts)
    return out + "/" if trailing and len(parts) >= 1 else out


def obs_path_to_bucket_form(value: Optional[str]) -> Optional[str]:
    """``obs://bucket/path/`` -> ``/bucket/path/`` (the form the service often returns)."""
    norm = normalize_obs_path(value)
    if norm is None or not norm.startswith("obs://"):
        return norm
    return "/" + norm[6:]


def same_obs_path(a: Optional[str], b: Optional[str]) -> bool:
    return normalize_obs_path(a) == normalize_obs_path(b)


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

IntOrStr = Union[int, str]


class WireModel(BaseModel):
    """Base of every wire model: unknown fields kept, wire names, set-fields-only serialisation."""

    model_config = ConfigDict(extra="allow", populate_by_name=True, validate_assignment=False)

    def to_wire(self, *, keep_nulls: bool = False) -> dict[str, Any]:
        """JSON-ready dict of the fields that were set (parsed or passed), unknown fields included."""
        return self.model_dump(mode="json", exclude_unset=True, exclude_none=not keep_nulls, by_alias=True)

    @property
    def unknown_fields(self) -> dict[str, Any]:
        return dict(self.model_extra or {})


# --- metadata --------------------------------------------------------------------------------------


class JobMetadata(WireModel):
    id: Optional[str] = None
    name: Optional[str] = None  # required in a create request (checked there)
    workspace_id: Optional[str] = None
    description: Optional[str] = None
    create_time: Optional[int] = None  # ms since epoch
    user_name: Optional[str] = None
    annotations: Optional[dict[str, str]] = None

    @field_validator("annotations", mode="before")
    @classmethod
    def _annotations_to_str(cls, v: Any) -> Any:
        if isinstance(v, dict):
            return {str(k): _env_value(val) for k, val in v.items()}
        return v


# --- algorithm -------------------------------------------------------------------------------------


class I18nDescription(WireModel):
    language: Optional[str] = None
    description: Optional[str] = None


class ParameterConstraint(WireModel):
    type: Optional[str] = None
    editable: Optional[bool] = None
    required: Optional[bool] = None
    sensitive: Optional[bool] = None
    valid_type: Optional[str] = None
    valid_range: Optional[list[str]] = None


class Parameter(WireModel):
    name: Optional[str] = None
    value: Optional[str] = None
    description: Optional[str] = None
    constraint: Optional[ParameterConstraint] = None
    i18n_description: Optional[Union[I18nDescription, list[I18nDescription]]] = None

    @field_validator("value", mode="before")
    @classmethod
    def _value_to_str(cls, v: Any) -> Any:
        if isinstance(v, bool):
            return str(v).lower()
        if isinstance(v, (int, float)):
            return str(v)
        return v


class RewardAttr(WireModel):
    name: Optional[str] = None
    mode: Optional[str] = None  # search direction: max / min
    regex: Optional[str] = None


class SearchParam(WireModel):
    name: Optional[str] = None
    param_type: Optional[str] = None
    lower_bound: Optional[str] = None
    upper_bound: Optional[str] = None
    discrete_points_num: Optional[str] = None
    discrete_values: Optional[list[str]] = None


class AutoSearchAlgoConfigParameter(WireModel):
    key: Optional[str] = None
    value: Optional[str] = None
    type: Optional[str] = None


class AlgoConfig(WireModel):
    name: Optional[str] = None
    params: Optional[list[AutoSearchAlgoConfigParameter]] = None


class AutoSearch(WireModel):
    skip_search_params: Optional[str] = None
    reward_attrs: Optional[list[RewardAttr]] = None
    search_params: Optional[list[SearchParam]] = None
    algo_configs: Optional[list[AlgoConfig]] = None


class Policies(WireModel):
    auto_search: Optional[AutoSearch] = None


class ObsLocation(WireModel):
    obs_url: Optional[str] = None  # obs://bucket/path/ or /bucket/path/

    @property
    def normalized(self) -> Optional[str]:
        return normalize_obs_path(self.obs_url)


class DatasetLocation(WireModel):
    id: Optional[str] = None
    version_id: Optional[str] = None
    obs_url: Optional[str] = None


class InputRemote(WireModel):
    """InputDataInfo: either a dataset or an OBS location."""

    dataset: Optional[DatasetLocation] = None
    obs: Optional[ObsLocation] = None


class RemoteConstraint(WireModel):
    data_type: Optional[str] = None
    attributes: Optional[Union[str, dict[str, Any], list[Any]]] = None


class Input(WireModel):
    name: Optional[str] = None
    description: Optional[str] = None
    local_dir: Optional[str] = None
    remote: Optional[InputRemote] = None
    remote_constraint: Optional[list[RemoteConstraint]] = None


class OutputRemote(WireModel):
    obs: Optional[ObsLocation] = None


class Output(WireModel):
    name: Optional[str] = None
    description: Optional[str] = None
    local_dir: Optional[str] = None
    remote: Optional[OutputRemote] = None
    mode: Optional[str] = None  # upload_periodically (response, task outputs)
    period: Optional[str] = None


class Engine(WireModel):
    engine_id: Optional[str] = None
    engine_name: Optional[str] = None
    engine_version: Optional[str] = None
    image_url: Optional[str] = None
    v1_compatible: Optional[bool] = None  # response only
    run_user: Optional[str] = None  # response only


class JobAlgorithm(WireModel):
    """``algorithm`` of a create request and ``JobAlgorithmResponse`` of a response."""

    id: Optional[str] = None
    name: Optional[str] = None
    subscription_id: Optional[str] = None
    item_version_id: Optional[str] = None
    code_dir: Optional[str] = None
    boot_file: Optional[str] = None
    autosearch_config_path: Optional[str] = None
    autosearch_framework_path: Optional[str] = None
    command: Optional[str] = None
    parameters: Optional[list[Parameter]] = None
    policies: Optional[Policies] = None
    inputs: Optional[list[Input]] = None
    outputs: Optional[list[Output]] = None
    engine: Optional[Engine] = None
    local_code_dir: Optional[str] = None
    working_dir: Optional[str] = None
    environments: Optional[dict[str, str]] = None

    @field_validator("environments", mode="before")
    @classmethod
    def _environments(cls, v: Any) -> Any:
        return normalize_environments(v)


class JobConfig(WireModel):
    parameters: Optional[list[Parameter]] = None
    inputs: Optional[list[Input]] = None
    outputs: Optional[list[Output]] = None
    engine: Optional[Engine] = None


class TaskAlgorithm(WireModel):
    job_config: Optional[JobConfig] = None
    code_dir: Optional[str] = None
    boot_file: Optional[str] = None
    engine: Optional[Engine] = None
    inputs: Optional[list[Input]] = None
    outputs: Optional[list[Output]] = None
    local_code_dir: Optional[str] = None
    working_dir: Optional[str] = None


# --- flavors / spec --------------------------------------------------------------------------------


class Billing(WireModel):
    code: Optional[str] = None
    unit_num: Optional[IntOrStr] = None


class Cpu(WireModel):
    arch: Optional[str] = None
    core_num: Optional[IntOrStr] = None


class Gpu(WireModel):
    unit_num: Optional[IntOrStr] = None
    product_name: Optional[str] = None
    memory: Optional[str] = None


class Npu(WireModel):
    unit_num: Optional[IntOrStr] = None
    product_name: Optional[str] = None
    memory: Optional[str] = None


class Memory(WireModel):
    size: Optional[IntOrStr] = None
    unit: Optional[str] = None


class Disk(WireModel):
    size: Optional[IntOrStr] = None
    unit: Optional[str] = None


class FlavorInfo(WireModel):
    max_num: Optional[int] = None
    cpu: Optional[Cpu] = None
    gpu: Optional[Gpu] = None
    npu: Optional[Npu] = None
    memory: Optional[Memory] = None
    disk: Optional[Disk] = None


class FlavorDetail(WireModel):
    flavor_type: Optional[str] = None
    billing: Optional[Billing] = None
    flavor_info: Optional[FlavorInfo] = None


class TaskResource(WireModel):
    """``task_resource`` (request: flavor_id/node_count; response: FlavorResponse)."""

    flavor_id: Optional[str] = None
    node_count: Optional[int] = None
    flavor_name: Optional[str] = None
    max_num: Optional[int] = None
    flavor_type: Optional[str] = None
    billing: Optional[Billing] = None
    flavor_info: Optional[FlavorInfo] = None
    attributes: Optional[dict[str, Any]] = None


class Task(WireModel):
    role: Optional[str] = None
    algorithm: Optional[TaskAlgorithm] = None
    task_resource: Optional[TaskResource] = None


class Resource(WireModel):
    policy: Optional[str] = None  # response: "regular" (or "economic" in older jobs)
    flavor_id: Optional[str] = None
    flavor_name: Optional[str] = None  # response only
    node_count: Optional[int] = None
    pool_id: Optional[str] = None
    flavor_detail: Optional[FlavorDetail] = None  # response only


class Nfs(WireModel):
    nfs_server_path: Optional[str] = None
    local_path: Optional[str] = None
    read_only: Optional[bool] = None


class Volume(WireModel):
    nfs: Optional[Nfs] = None


class LogExportPath(WireModel):
    obs_url: Optional[str] = None
    host_path: Optional[str] = None


class AutoStop(WireModel):
    time_unit: Optional[str] = None  # HOURS
    duration: Optional[int] = None


class JobSpec(WireModel):
    resource: Optional[Resource] = None
    volumes: Optional[list[Volume]] = None
    log_export_path: Optional[LogExportPath] = None
    auto_stop: Optional[AutoStop] = None


# --- status ----------------------------------------------------------------------------------------


class TaskStatus(WireModel):
    task: Optional[str] = None
    exit_code: Optional[int] = None
    message: Optional[str] = None


class RunningRecord(WireModel):
    start_at: Optional[int] = None
    end_at: Optional[int] = None
    start_type: Optional[str] = None
    end_reason: Optional[str] = None
    end_related_task: Optional[str] = None
    end_recover: Optional[str] = None
    end_recover_before_downgrade: Optional[str] = None


class JobStatus(WireModel):
    phase: Optional[str] = None  # see Phase; unknown values are kept as strings
    secondary_phase: Optional[str] = None
    duration: Optional[int] = None  # ms
    node_count_metrics: Optional[list[list[int]]] = None
    tasks: Optional[list[str]] = None
    start_time: Optional[int] = None
    task_statuses: Optional[list[TaskStatus]] = None
    running_records: Optional[list[RunningRecord]] = None


# --- top level -------------------------------------------------------------------------------------


class CreateTrainingJobRequest(WireModel):
    """Body of ``POST /v2/{project_id}/training-jobs``. ``kind`` is always sent (default ``job``)."""

    kind: str = "job"
    metadata: JobMetadata
    algorithm: Optional[JobAlgorithm] = None
    tasks: Optional[list[Task]] = None
    spec: Optional[JobSpec] = None

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


class TrainingJob(WireModel):
    """A training job as returned by create, details, terminate and the list API."""

    kind: Optional[str] = None
    metadata: JobMetadata = Field(default_factory=JobMetadata)
    status: JobStatus = Field(default_factory=JobStatus)
    algorithm: Optional[JobAlgorithm] = None
    tasks: Optional[list[Task]] = None
    spec: Optional[JobSpec] = None

    @property
    def id(self) -> Optional[str]:
        return self.metadata.id

    @property
    def name(self) -> Optional[str]:
        return self.metadata.name

    @property
    def description(self) -> Optional[str]:
        return self.metadata.description

    @property
    def phase(self) -> Optional[str]:
        return self.status.phase

    @property
    def secondary_phase(self) -> Optional[str]:
        return self.status.secondary_phase

    @property
    def is_terminal(self) -> bool:
        return self.phase in TERMINAL_PHASES

    @property
    def task_statuses(self) -> list[TaskStatus]:
        return list(self.status.task_statuses or [])


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
    filters: list[SearchFilter] = Field(default_factory=list)

    def model_post_init(self, __context: Any) -> None:
        self.__pydantic_fields_set__.update({"offset", "limit", "sort_by", "order", "filters"})


class TrainingJobList(WireModel):
    total: Optional[int] = None
    count: Optional[int] = None
    limit: Optional[int] = None
    offset: Optional[int] = None
    sort_by: Optional[str] = None
    order: Optional[str] = None
    group_by: Optional[str] = None
    items: list[TrainingJob] = Field(default_factory=list)


class ErrorBody(WireModel):
    error_code: Optional[str] = None
    error_msg: Optional[str] = None
    error_solution: Optional[str] = None

"""Typed stack config of the `modelarts-jobs` program (keys under the project namespace).

    modelarts-jobs:obs:            # named OBS locations: a bucket and prefixes
      main:
        bucket: my-bucket
        code: code/                # default "code/"
        data: data/                # default "data/"
        outputs: outputs/          # default "outputs/"
        logs: logs/                # default "logs/"; null: no log export
        create: false              # true: the stack creates the bucket (destroy removes it when empty)
        forceDestroy: false        # with create: destroy deletes its objects first
    modelarts-jobs:networks:       # networks the stack creates for its dedicated pools
      main:
        cidr: 192.168.128.0/17                 # default
        name: dev-main                         # optional (4-32 characters): default <key>-<random suffix>
    modelarts-jobs:pools:          # named resource pools
      gpu:
        flavor: modelarts.p3.large.public      # flavor id (public pool), or with poolId for dedicated
        poolId: poolfaf38d76                   # optional: dedicated pool
        maxNodes: 4                            # node limit for jobs on this pool (default 1)
      own:                                     # or: a dedicated pool the stack creates (and destroys)
        create: {flavor: modelarts.vm.gpu.tnt004, nodes: 2, network: main}   # + name, description,
                                               #   timeoutSeconds, pollIntervalSeconds; jobs' nodes <= create.nodes
    modelarts-jobs:jobs:           # the jobs; the key is the Pulumi resource name
      mnist:
        pool: gpu                  # required: a key of pools
        obs: main                  # a key of obs (optional when there is exactly one)
        nodes: 1                   # <= the pool's maxNodes
        name: mnist-train          # optional explicit job name; default <key>-<random suffix>
        description: ...
        # algorithm: exactly one of
        algorithmId: 8d1b...                    # algorithm management
        subscription: {id: ..., versionId: ...} # subscribed algorithm
        codeDir: mnist/                         # + bootFile + engine: own code (relative to obs code prefix,
                                                #   or absolute: obs://bucket/key or /bucket/key)
        bootFile: train.py                      #   relative to codeDir (or a full obs:// URL)
        code: {localDir: ./training/mnist, bootFile: train.py}   # + engine: own code from a local
                                                #   directory, uploaded to obs://<bucket>/<code prefix>/<key>/<hash>/
                                                #   (excludes: [...] adds .gitignore-style patterns)
        engine: {name: PyTorch, version: ...}   #   or {id: ...} or {image: swr.../img:tag}
        image: swr.../img:tag                   # + command: custom image
        command: python train.py
        parameters: {lr: 0.01, epochs: 10}
        inputs: {data_url: mnist/}              # relative to obs data prefix, obs:// URL, or {dataset: {id, versionId}}
        outputs: {train_url: ""}                # relative to <outputs prefix>/<job key>/ (default {train_url: ""});
                                                #   each run writes into <that>/<run name>/ (outputPerRun)
        environments: {NCCL_DEBUG: INFO}
        logs: true                              # export logs to <logs prefix>/<job key>/[<run name>/] (default true)
        autoStopHours: 24
        volumes: [{nfsServerPath: "10.0.0.1:/", localPath: /mnt/nfs, readOnly: true}]
        annotations: {...}
        tags: {team: vision}                    # the job's tags (updated in place); over defaultTags
        workingDir / localCodeDir
        # provider options
        waitFor: created                        # none | created | running | completed
        waitTimeoutSeconds: 3600
        pollIntervalSeconds: 5
        deleteTimeoutSeconds: 900
        deleteBeforeReplace: (auto)             # true: stop and delete first; default: a finished run stays
                                                #   until its successor is accepted (see README)
        keepFinishedRuns: (auto)                # a replaced/removed finished run stays in the service (default
                                                #   with a derived name; false: deleted, the old behaviour)
        keepRuns: 10                            # runs of the key the service keeps (oldest finished ones beyond
                                                #   it deleted when a new run starts; OBS files stay)
        outputPerRun: (auto)                    # outputs and logs in a folder per run (<path>/<job name>/):
                                                #   default with a derived name; false: every run in <path>/
        replaceFailed: false                    # re-run a run that did not complete (Failed, Abnormal, Terminated)
        acceptFailed: false                     # true: a failure is recorded as failed and the up goes on;
                                                #   later ups warn of it (per job, or per sweep: every point)
        adoptJobId: <job id>                    # take over an existing job instead of creating one
        movedFrom: [oldkey]                     # this job was declared under oldkey: keep it (an alias),
                                                #   with its outputs and code where they were
        search: {objective: ..., space: ..., algorithm: ...}   # the service's own hyperparameter search
                                                #   (stack/search_config.py, docs/search.md)
        objective: {name: accuracy, regex: 'accuracy=([0-9.]+)', goal: max}   # read from the log of the
                                                #   completed job (last match; needs waitFor: completed)
        retries: 3                              # the service restarts a faulty job up to N times
                                                #   (annotation fault-tolerance/job-retry-num, 1..128)
    modelarts-jobs:defaultTags:    # tags of every job and sweep point (as Terraform's default_tags): a
      costCenter: ml-research      #   job's or sweep's own `tags` win for the same key
    modelarts-jobs:sweeps:         # grids: every job field above (except name, adoptJobId) plus
      lr-sweep:
        pool: gpu
        codeDir: mnist/
        ...
        grid: {lr: [0.1, 0.01, 0.001], batch_size: [32, 64, 128]}   # one job per point
        maxJobs: 500                            # guard against accidental huge grids
        budget: {max: 50, currency: CNY}        # the sweep's own budget (docs/cost.md)
        maxFailures: 0                          # failed points tolerated: the up succeeds and the best
                                                #   point is chosen among the rest (default 0: a failure fails it)
    modelarts-jobs:keepRuns: 10    # the stack's default of keepRuns (a job's or sweep's own keepRuns wins)

    modelarts-jobs:prices:         # per flavor, over the billing service's price (cost/config.py, docs/cost.md)
      modelarts.p3.large.public: {perNodeHour: 12.5, currency: CNY}
    modelarts-jobs:budget: {max: 100, currency: CNY, poolHours: 24}   # preview fails above it

Unknown keys are errors, with the closest known key ("did you mean waitFor?") or the allowed ones.
Errors name the full key (e.g. `modelarts-jobs:jobs.mnist.pool`), one error per line.
"""

from __future__ import annotations

import re
import types
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic.alias_generators import to_camel

from ..core.linear_regex import check_metric, check_objective
from ..core.messages import (BUCKET_RE, CIDR_RE, KEY_RE, NETWORK_NAME_RE, PARAM_NAME_RE, POOL_NAME_RE,
                             did_you_mean, explain)
from ..core.rules import FILE_URL_RE, OBS_URL_RE, rule
from ..cost.config import COST_MODEL_NAMES, BudgetConfig, FlavorPrice, ItemBudget
from ..network.args import NetworkArgs
from ..resource_pool.args import MAX_NODES, ResourcePoolArgs
from ..training_job.args import MAX_KEEP_RUNS, RETRIES_AND_ANNOTATION, RETRY_ANNOTATION, Retries, TrainingJobArgs
from .declared_keys import with_arg_keys
from .job_fields import Maps, with_declared
from .search_config import SEARCH_MODEL_NAMES, SearchConfig
from .sweep import as_param

PROJECT = "modelarts-jobs"
SECTIONS = ("obs", "networks", "pools", "jobs", "sweeps", "defaultTags", "keepRuns", "prices", "budget")  # prices, budget: cost/config.py
Scalar = Union[str, int, float, bool]


class _Cfg(BaseModel):
    model_config = ConfigDict(extra="forbid", alias_generator=to_camel, populate_by_name=False)


Key = Annotated[str, Field(pattern=KEY_RE)]


class ObsConfig(_Cfg):
    bucket: Annotated[str, Field(pattern=BUCKET_RE)]
    code: str = "code/"
    data: str = "data/"
    outputs: str = "outputs/"
    logs: str | None = "logs/"
    create: bool = False
    force_destroy: bool = False

    @field_validator("code", "data", "outputs", "logs")
    @classmethod
    def _prefix(cls, v: str | None) -> str | None:
        if v is None:
            return v
        if v.startswith(("/", "obs:")) or re.search(r"\s", v):
            raise ValueError(f"must be a relative prefix inside the bucket, e.g. data/, not {v!r}")
        problem = _path_problem(v)
        if problem:
            raise ValueError(f"{v!r} {problem}")
        return v.strip("/") + "/" if v.strip("/") else ""

    def url(self, prefix: str, *rel: str, folder: bool = True) -> str:
        """obs://bucket/<prefix>/<rel...>, ending with '/' for a folder; a file keeps its form."""
        parts = [p.strip("/") for p in (prefix, *rel) if p and p.strip("/")]
        tail = "/" if folder and parts else ""
        return f"obs://{self.bucket}/" + "/".join(parts) + tail


class CodeSource(_Cfg):
    """Own code from a local directory (relative to the project directory), uploaded through OBS."""

    local_dir: Annotated[str, Field(min_length=1)]
    boot_file: Annotated[str, Field(min_length=1)]
    excludes: list[str] = Field(default_factory=list)


class NetworkConfig(_Cfg):
    """A network the stack creates for its dedicated pools (issue 24). The keys that set an argument as it is
    (forceDelete: delete the pools this stack made on it outside the state even while another owner's jobs run on
    them) come from the Network's declarations (stack/declared_keys.py)."""

    name: Annotated[str, Field(pattern=NETWORK_NAME_RE)] | None = None  # default: <key>-<random>
    cidr: Annotated[str, Field(pattern=CIDR_RE)] = "192.168.128.0/17"


NetworkConfig = with_arg_keys(NetworkConfig, NetworkArgs)  # type: ignore[misc]


class PoolCreate(_Cfg):
    """A dedicated pool the stack creates: billed per node-hour from its create until destroy. Here the keys that
    shape their value (flavor and nodes: its resources; network: a key of networks; name: derived when unset); the
    ones that set an argument as it is (description, timeoutSeconds, pollIntervalSeconds, forceDelete) come from
    the ResourcePool's declarations (stack/declared_keys.py)."""

    flavor: Annotated[str, Field(min_length=1)]  # a resource flavor (GET /v1/{project}/resourceflavors)
    nodes: Annotated[int, Field(ge=1, le=MAX_NODES)]
    network: Key  # a key of networks
    name: Annotated[str, Field(pattern=POOL_NAME_RE)] | None = None  # default: <key>-<random>


PoolCreate = with_arg_keys(PoolCreate, ResourcePoolArgs)  # type: ignore[misc]


class PoolConfig(_Cfg):
    flavor: str | None = None
    pool_id: str | None = None
    max_nodes: Annotated[int, Field(ge=1, le=1024)] = 1
    create: PoolCreate | None = None

    @model_validator(mode="after")
    def _one(self) -> PoolConfig:
        if self.create is not None:
            if self.flavor is not None or self.pool_id is not None:
                raise rule("create", "a pool the stack creates takes no flavor or poolId (its jobs run on its nodes)")
            if "max_nodes" in self.model_fields_set:
                raise rule("maxNodes", "a pool the stack creates is as large as create.nodes: drop maxNodes")
            self.max_nodes = self.create.nodes
        elif self.flavor is None and self.pool_id is None:
            raise rule("flavor", "set flavor (public pool) and/or poolId (dedicated pool), or create: {flavor, "
                                 "nodes, network} (a pool the stack creates)")
        return self


class EngineConfig(_Cfg):
    id: str | None = None
    name: str | None = None
    version: str | None = None
    image: str | None = None

    @model_validator(mode="after")
    def _one_form(self) -> EngineConfig:
        # The API's engine forms, said in the config's own keys (the args' rules say engine_name etc.).
        forms = [self.id is not None, self.name is not None or self.version is not None, self.image is not None]
        if sum(forms) != 1:
            raise rule("", "set exactly one of id, name + version, or image")
        if (self.name is None) != (self.version is None):
            raise rule("version" if self.version is None else "name",
                       "name and version go together, e.g. name: PyTorch, version: "
                       "pytorch_1.8.0-cuda_10.2-py_3.7-ubuntu_18.04-x86_64")
        return self


class SubscriptionConfig(_Cfg):
    id: str
    version_id: str


class DatasetConfig(_Cfg):
    id: str
    version_id: str


class InputDataset(_Cfg):
    dataset: DatasetConfig


class NfsConfig(_Cfg):
    nfs_server_path: str
    local_path: str
    read_only: bool = False


# --- objectives and retries (issue 23) -------------------------------------------------------------


class _LogNumber(_Cfg):
    """A named number read from a job's log by `regex`, and which way is better (each kind checks its regex)."""

    name: Annotated[str, Field(min_length=1, max_length=64)]
    regex: Annotated[str, Field(min_length=1, max_length=500)]
    goal: Literal["max", "min"] = "max"


class ObjectiveConfig(_LogNumber):
    """What a point scored: the last match of `regex` (one group: the number) in its log."""

    @field_validator("regex")
    @classmethod
    def _one_group(cls, v: str) -> str:
        return check_objective(v)  # RE2: linear time whatever the pattern; one group (core/linear_regex.py)


class MetricConfig(_LogNumber):
    """A metric whose every match in the log is a point (step, value): one group around the number, and
    optionally a group named step or epoch (the point's step; else the match's number)."""

    @field_validator("regex")
    @classmethod
    def _groups(cls, v: str) -> str:
        return check_metric(v)  # RE2, linear time (core/linear_regex.py)


class JobEntry(_Cfg):
    # One row per field (stack/job_fields.py): where it goes and what it may carry, declared once here. The keys
    # whose value is the job argument as it is (nodes, description, algorithmId, command, workingDir,
    # localCodeDir, workspaceId and the provider options waitFor, waitTimeoutSeconds, ...) are not written here:
    # with_declared below adds them from the arguments' own declarations (training_job/args.py), rules included.
    # The validators below read them as attributes of the finished model.
    pool: Annotated[str, Maps(("flavor_id", "pool_id"), secret=True, sends=True)]  # a key of pools: an
    # unknown one is named by StackConfig's reference check
    obs: Annotated[str | None, Maps()] = None  # which OBS location: its URLs are the job's paths
    name: Annotated[str | None, Maps("name", name="a job name")] = None  # the job's identity, not its data
    subscription: Annotated[SubscriptionConfig | None, Maps(
        ("algorithm.subscription_id", "algorithm.item_version_id"), secret=True, sends=True,
        shown=(("algorithm.subscription_id", "subscription.id"),
               ("algorithm.item_version_id", "subscription.versionId")))] = None
    code_dir: Annotated[str | None, Maps("algorithm.code_dir", carries=("algorithm.boot_file",), secret=True,
                                         sends=True, obs="reads", words=True)] = None
    boot_file: Annotated[str | None, Maps("algorithm.boot_file", secret=True, sends=True, obs="reads",
                                          words=True)] = None
    code: Annotated[CodeSource | None, Maps()] = None  # uploaded by a CodeUpload: becomes codeDir + bootFile
    engine: Annotated[EngineConfig | None, Maps("algorithm.engine", secret=True, sends=True)] = None
    image: Annotated[str | None, Maps(carries=("algorithm.engine",), secret=True, sends=True)] = None
    parameters: Annotated[dict[str, Scalar], Maps("algorithm.parameters", secret=True, sends=True,
                                                  keyed=True)] = Field(default_factory=dict)
    inputs: Annotated[dict[str, Union[str, InputDataset]], Maps(
        "algorithm.inputs", secret=True, sends=True, keyed=True, obs="reads")] = Field(default_factory=dict)
    outputs: Annotated[dict[str, str], Maps("algorithm.outputs", secret=True, sends=True, keyed=True,
                                            obs="writes")] = Field(default_factory=lambda: {"train_url": ""})
    environments: Annotated[dict[str, Scalar], Maps("algorithm.environments", secret=True, sends=True,
                                                    keyed=True)] = Field(default_factory=dict)
    logs: Annotated[bool, Maps("log_export_path", sends=True, obs="writes",
                               shown=(("log_export_path", "obs (logs)"),))] = True
    auto_stop_hours: Annotated[Annotated[int, Field(ge=1)] | None, Maps("auto_stop", secret=True,
                                                                         sends=True)] = None
    volumes: Annotated[list[NfsConfig], Maps("volumes", secret=True, sends=True)] = Field(default_factory=list)
    annotations: Annotated[dict[str, str], Maps("annotations", secret=True, sends=True,
                                                keyed=True)] = Field(default_factory=dict)
    tags: Annotated[dict[str, str], Maps("tags", secret=True, sends=True, keyed=True)] = Field(default_factory=dict)
    # Keys this job was declared under before: it keeps its job, outputs and code (Pulumi aliases).
    moved_from: Annotated[list[Key], Field(max_length=16), Maps(name="a former key")] = Field(default_factory=list)
    objective: Annotated[ObjectiveConfig | None, Maps()] = None  # read by the JobsAwait from the log
    # Curves (results/curves.py): read while the job runs (progress lines) and once it completed.
    metrics: Annotated[list[MetricConfig], Field(max_length=16), Maps()] = Field(default_factory=list)
    # the TrainingJob's own argument (both doors), written into its annotations there; a row of its own: its value
    # is sent (as that annotation), unlike the arguments that only steer the provider (program.job_args passes it)
    retries: Annotated[Retries | None, Maps("retries", carries=("annotations",), sends=True)] = None
    # The service's own hyperparameter search (stack/search_config.py): one job runs every trial.
    search: Annotated[SearchConfig | None, Maps("algorithm.policies", secret=True, sends=True)] = None
    # A failure on record, not a blocker (issue 56): read by the JobsAwait (awaiting/accepted.py), as objective.
    accept_failed: Annotated[bool, Maps()] = False

    @model_validator(mode="after")
    def _search(self) -> JobEntry:
        s = self.search
        if s is None:
            return self
        if self.objective is not None:
            raise rule("objective", "a job with a search is scored by search.objective: drop objective")
        fixed = [k for k in s.space if k in self.parameters]
        if fixed:
            raise rule(f"search.space.{fixed[0]}", "is also a fixed parameter: remove it from parameters or from "
                                                   "the search space (a parameter is searched or fixed, not both)")
        return self

    @model_validator(mode="after")
    def _objective_and_retries(self) -> JobEntry:
        if self.objective is not None and self.wait_for != "completed":
            raise rule("objective", f"needs waitFor: completed (it is read from the log of a completed job), "
                                    f"not waitFor: {self.wait_for}")
        if self.metrics and self.wait_for != "completed":
            raise rule("metrics", f"needs waitFor: completed (they are read from the log while the job runs and "
                                  f"once it completed), not waitFor: {self.wait_for}")
        names = [m.name for m in self.metrics]
        dup = next((i for i, n in enumerate(names) if names.index(n) != i), None)
        if dup is not None:
            raise rule(f"metrics[{dup}].name", f"{names[dup]!r} is declared twice: each metric has its own name")
        if self.retries is not None and RETRY_ANNOTATION in self.annotations:
            raise rule("retries", RETRIES_AND_ANNOTATION)
        return self

    @model_validator(mode="after")
    def _paths_and_forms(self) -> JobEntry:
        # Paths are relative to the job's OBS location, or absolute OBS paths (obs://bucket/key or
        # /bucket/key): anything else (another scheme, a malformed obs: URL) is refused here rather
        # than silently appended to a prefix.
        paths = [("codeDir", self.code_dir), ("bootFile", self.boot_file)]
        paths += [(f"inputs.{k}", v) for k, v in self.inputs.items() if isinstance(v, str)]
        paths += [(f"outputs.{k}", v) for k, v in self.outputs.items()]
        for field, value in paths:
            if value is None:
                continue
            if not _is_obs_path(value):
                raise rule(field, f"{value!r} is not an OBS path: use a path relative to the OBS location "
                                  "(e.g. data/mnist/) or obs://bucket/path")
            problem = _path_problem(value)
            if problem:
                raise rule(field, f"{value!r} {problem}")
        if self.code is not None:
            others = [k for k, v in (("codeDir", self.code_dir), ("bootFile", self.boot_file),
                                     ("algorithmId", self.algorithm_id), ("subscription", self.subscription),
                                     ("image", self.image)) if v is not None]
            if others:
                raise rule("code", f"code (a local directory) and {', '.join(others)} are exclusive: one "
                                   "algorithm form per job")
            if self.engine is None:
                raise rule("engine", "code from a local directory needs an engine (name + version, id or image)")
        if self.image is not None and self.engine is not None:
            raise rule("image", "image and engine are exclusive: image + command for a custom image, "
                                "or engine (+ codeDir and bootFile) for a preset engine")
        return self

    @model_validator(mode="after")
    def _algorithm_form(self) -> JobEntry:
        """The API's four algorithm forms (plus code from a local directory), in the config's keys."""
        own_code = self.code_dir is not None or self.boot_file is not None
        custom_image = self.image is not None or (self.engine is not None and self.engine.image is not None
                                                  and not own_code and self.code is None)
        forms = [name for name, on in (("algorithmId", self.algorithm_id is not None),
                                       ("subscription", self.subscription is not None),
                                       ("codeDir + bootFile", own_code), ("code", self.code is not None),
                                       ("image", custom_image)) if on]
        if len(forms) != 1:
            raise rule("", "set exactly one algorithm form: algorithmId, subscription, codeDir + bootFile + engine, "
                           f"code + engine, or image + command; found: {', '.join(forms) or 'none'}")
        if own_code and (self.code_dir is None or self.boot_file is None):
            raise rule("bootFile" if self.boot_file is None else "codeDir",
                       "codeDir and bootFile go together: bootFile is the script inside codeDir")
        if own_code and self.engine is None:
            raise rule("engine", "codeDir + bootFile need an engine: name + version, id, or image")
        if (self.algorithm_id is not None or self.subscription is not None) and self.engine is not None:
            raise rule("engine", "must be left out when the algorithm is given by algorithmId or subscription")
        if custom_image and self.command is None:
            raise rule("command", "is required with a custom image: the command that starts the training")
        return self


# The job arguments an entry sets as they are, under the config key their declaration gives (training_job/args.py:
# Declared.config, ConfigKey): each is a key of every job and sweep, with the argument's type, rules and default.
JobEntry = with_declared(JobEntry, TrainingJobArgs)  # type: ignore[misc]


class SweepConfig(JobEntry):  # type: ignore[misc, valid-type]
    grid: dict[Annotated[str, Field(pattern=PARAM_NAME_RE)], Annotated[list[Scalar], Field(min_length=1)]]
    max_jobs: Annotated[int, Field(ge=1, le=10000)] = 500
    max_failures: Annotated[int, Field(ge=0, le=10000)] = 0
    budget: ItemBudget | None = None  # the sweep's own budget (cost/budget.py)

    @model_validator(mode="after")
    def _sweep_rules(self) -> SweepConfig:
        if not self.grid:
            raise rule("grid", "needs at least one parameter with a list of values")
        if self.name is not None:
            raise rule("name", "is not allowed in a sweep: job names are derived from the grid point")
        if self.adopt_job_id is not None:
            raise rule("adoptJobId", "is not allowed in a sweep")
        if self.moved_from:
            raise rule("movedFrom", "is not allowed in a sweep: a sweep's points are keyed by their grid values")
        if self.search is not None:
            raise rule("search", "is not allowed in a sweep: declare the service's search on a job (one job runs "
                                 "every trial), or a grid sweep of many jobs")
        for k, values in self.grid.items():
            if len({as_param(v) for v in values}) != len(values):
                # true and "true" are the same parameter value on the wire
                raise rule(f"grid.{k}", "values must be distinct (as the parameter strings they become: "
                                        f"{', '.join(as_param(v) for v in values)})")
            if k in self.parameters:
                raise rule(f"grid.{k}", "is also a fixed parameter; remove it from parameters")
        total = 1
        for values in self.grid.values():
            total *= len(values)
        if total > self.max_jobs:
            raise rule("grid", f"expands to {total} jobs, more than maxJobs ({self.max_jobs})")
        return self


class StackConfig(_Cfg):
    obs: dict[Key, ObsConfig] = Field(default_factory=dict)
    networks: dict[Key, NetworkConfig] = Field(default_factory=dict)
    pools: dict[Key, PoolConfig] = Field(default_factory=dict)
    jobs: dict[Key, JobEntry] = Field(default_factory=dict)
    sweeps: dict[Key, SweepConfig] = Field(default_factory=dict)
    default_tags: dict[str, str] = Field(default_factory=dict)  # under every job's and sweep's own tags

    @field_validator("default_tags")
    @classmethod
    def _default_tags(cls, v: dict[str, str]) -> dict[str, str]:
        from ..training_job.args import check_tags  # the job's own rule (the stack side reads args lazily)

        return check_tags(v)
    # The stack's default number of runs kept per key (a job's or sweep's keepRuns wins; program.py).
    keep_runs: Annotated[int, Field(ge=1, le=MAX_KEEP_RUNS)] | None = None
    prices: dict[str, FlavorPrice] = Field(default_factory=dict)  # per flavor, over the billing service's
    budget: BudgetConfig | None = None

    @model_validator(mode="after")
    def _references(self) -> StackConfig:
        for key, pool in self.pools.items():
            if pool.create is not None and pool.create.network not in self.networks:
                known = ", ".join(sorted(self.networks)) or "none defined in modelarts-jobs:networks"
                raise rule(f"pools.{key}.create.network", f"unknown network {pool.create.network!r} (known: {known})")
        both = set(self.jobs) & set(self.sweeps)
        if both:
            raise rule(f"sweeps.{sorted(both)[0]}", "a sweep cannot have the same key as a job")
        for key, job in self.jobs.items():
            still = [k for k in job.moved_from if k in self.jobs or k in self.sweeps]
            if still:
                raise rule(f"jobs.{key}.movedFrom", f"{still[0]} is still declared: a job moves from a key that "
                                                    "is no longer in jobs or sweeps")
        for section, entries in (("jobs", self.jobs), ("sweeps", self.sweeps)):
            for key, job in entries.items():
                where = f"{section}.{key}"
                pool = self.pools.get(job.pool)
                if pool is None:
                    known = ", ".join(sorted(self.pools)) or "none defined in modelarts-jobs:pools"
                    raise rule(f"{where}.pool", f"unknown pool {job.pool!r} (known: {known})")
                if job.nodes > pool.max_nodes:
                    size = f"create.nodes {pool.max_nodes}" if pool.create else f"maxNodes {pool.max_nodes}"
                    raise rule(f"{where}.nodes", f"{job.nodes} exceeds pool {job.pool!r} {size}")
                if job.obs is not None and job.obs not in self.obs:
                    known = ", ".join(sorted(self.obs)) or "none defined in modelarts-jobs:obs"
                    raise rule(f"{where}.obs", f"unknown OBS location {job.obs!r} (known: {known})")
                uses = _obs_uses(job) if job.obs is None else []
                if uses and len(self.obs) > 1:
                    raise rule(f"{where}.obs", f"is required when several OBS locations are defined "
                                               f"({', '.join(sorted(self.obs))})")
                if uses and not self.obs:
                    raise rule(f"{where}.obs", f"{', '.join(uses)} need an OBS location: define one in "
                                               "modelarts-jobs:obs (logs: false and absolute paths need none)")
        return self

    def obs_name_for(self, job: JobEntry) -> str | None:
        """The key of the job's OBS location: the one it names, else the only one there is."""
        if job.obs is not None:
            return job.obs
        return next(iter(self.obs)) if len(self.obs) == 1 else None

    def obs_for(self, job: JobEntry) -> ObsConfig | None:
        name = self.obs_name_for(job)
        return self.obs[name] if name is not None else None


def is_absolute_path(v: str) -> bool:
    """An absolute OBS path, in either documented form (obs://bucket/key, /bucket/key), or a path in
    the training container (file:///..., documented for code_dir)."""
    return bool(OBS_URL_RE.match(v) or FILE_URL_RE.match(v))


def _is_obs_path(v: str) -> bool:
    """Absolute OBS path, or a relative key with no scheme and no whitespace."""
    if is_absolute_path(v):
        return True
    return not v.startswith("/") and ":" not in v and not any(c.isspace() for c in v)


def _path_problem(v: str) -> str | None:
    """What is wrong with a path that would not name what it seems to, or None."""
    if any(ord(c) < 32 or ord(c) == 127 for c in v):
        return "must not contain control characters"
    key = v.split("://", 1)[1].partition("/")[2] if "://" in v else v.lstrip("/")
    if "//" in key or any(part == ".." for part in key.split("/")):
        return "must not contain '..' or '//' inside the path"
    return None


def _obs_uses(job: JobEntry) -> list[str]:
    """The keys of a job that need its OBS location: relative paths, outputs, log export, an upload."""
    uses = ["codeDir"] if job.code_dir is not None and not is_absolute_path(job.code_dir) else []
    uses += [f"inputs.{k}" for k, v in job.inputs.items() if isinstance(v, str) and not is_absolute_path(v)]
    uses += [f"outputs.{k}" for k, v in job.outputs.items() if not is_absolute_path(v)]
    uses += ["logs"] if job.logs else []
    uses += ["code"] if job.code is not None else []  # an upload goes to the location's bucket
    return uses


# --- loading and messages ------------------------------------------------------------------------


class StackConfigError(ValueError):
    """One line naming the offending key(s) and what is allowed."""


# A key longer than this is cut where a message names it: a 200-character key (itself refused: keys are at most
# 40 characters) is not echoed in full in every line about its entry.
KEY_SHOWN = 48


def _key_text(part: Any) -> str:
    text = str(part)
    return text if len(text) <= KEY_SHOWN else text[:KEY_SHOWN - 3] + "..."


def _loc_text(loc: tuple[Any, ...]) -> str:
    section, rest = _key_text(loc[0]), loc[1:]
    text = f"{PROJECT}:{section}"
    for part in rest:
        text += f"[{part}]" if isinstance(part, int) else f".{_key_text(part)}"
    return text


def format_errors(error: ValidationError) -> str:
    """One line per error, each a whole `invalid stack config: <key>: <reason>`."""
    explained = explain(error.errors(), MODEL_NAMES)
    lines, meant = [], set()
    for loc, reason in explained:
        if reason == "is not a known field":
            known = known_keys_at(loc[:-1])
            hint = did_you_mean(str(loc[-1]), known) if known else ""
            if hint.startswith("(did you mean "):
                meant.add(loc[:-1] + (hint.removeprefix("(did you mean ").removesuffix("?)"),))
            reason = "unknown key" + (f" {hint}" if hint else "")
        lines.append((loc, reason))
    # `bootfile: t.py` for `bootFile`: the did-you-mean says it all; "bootFile: is required" beside it would send
    # the reader looking for a missing key.
    return "\n".join(dict.fromkeys(
        f"invalid stack config: {_loc_text(loc)}: {reason}" if loc else f"invalid stack config: {reason}"
        for loc, reason in lines if not (reason == "is required" and loc in meant)))


def known_keys_at(loc: tuple[Any, ...]) -> list[str]:
    """The keys the config model allows at `loc` (a map's path, e.g. ('jobs', 'a')), or [] if not a model."""
    found: list[Any] = [StackConfig]
    for part in loc:
        found = [nxt for tp in found for nxt in _inside(tp, part)]
    models = [m for tp in found for m in _models(tp)]
    return [f.alias or name for name, f in models[0].model_fields.items()] if models else []


def _models(tp: Any) -> list[type[BaseModel]]:
    """The config models a type may be (through Annotated and unions)."""
    if get_origin(tp) is Annotated:
        return _models(get_args(tp)[0])
    if get_origin(tp) in (Union, types.UnionType):
        return [m for arg in get_args(tp) for m in _models(arg)]
    return [tp] if isinstance(tp, type) and issubclass(tp, BaseModel) else []


def _inside(tp: Any, part: Any) -> list[Any]:
    """The types that can sit at `part` inside a value of type `tp` (a model's field, a map's or list's item)."""
    origin = get_origin(tp)
    if origin is Annotated:
        return _inside(get_args(tp)[0], part)
    if origin in (Union, types.UnionType):
        return [nxt for arg in get_args(tp) for nxt in _inside(arg, part)]
    if origin is dict:
        return [get_args(tp)[1]]
    if origin is list:
        return [get_args(tp)[0]] if isinstance(part, int) else []
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        return [f.annotation for name, f in tp.model_fields.items() if part in (f.alias, name)]
    return []


MODEL_NAMES = SEARCH_MODEL_NAMES | COST_MODEL_NAMES | frozenset({"ObjectiveConfig", "CodeSource", "ObsConfig", "PoolConfig", "PoolCreate", "NetworkConfig", "EngineConfig", "SubscriptionConfig", "DatasetConfig",
                         "InputDataset", "NfsConfig", "JobEntry", "SweepConfig", "StackConfig"})


def parse(raw: dict[str, Any], all_keys: list[str] | None = None) -> StackConfig:
    """`raw`: {"obs": ..., "pools": ..., ...} (values as structured config). Raises StackConfigError."""
    unknown = sorted(k for k in (all_keys or []) if k.startswith(f"{PROJECT}:") and k.split(":", 1)[1] not in SECTIONS)
    if unknown:
        raise StackConfigError("\n".join(
            f"invalid stack config: unknown key {key} {did_you_mean(key.split(':', 1)[1], SECTIONS, f'{PROJECT}:')}"
            for key in unknown))
    try:
        return StackConfig.model_validate({k: v for k, v in raw.items() if v is not None})
    except ValidationError as e:
        raise StackConfigError(format_errors(e)) from None

"""Emulator settings (from the command line) and the shared local-stack constants.

The defaults are the constants of docs/ARCHITECTURE.md, so a local stack needs no configuration.
"""

from __future__ import annotations

from pathlib import Path

from typing import Literal

from pydantic import BaseModel, Field

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8780
DEFAULT_PROJECT_ID = "a1b2c3d4e5f60718293a4b5c6d7e8f90"
DEFAULT_ACCESS_KEY = "EMULATORLOCALAK00001"
DEFAULT_SECRET_KEY = "emulator-local-secret-key-not-a-real-sk1"
DEFAULT_IAM_USER = "emulator-user"
DEFAULT_IAM_PASSWORD = "emulator-password"
DEFAULT_IAM_DOMAIN = "emulator-domain"
DEFAULT_DB = Path(".state") / "emulator.db"


class EmulatorConfig(BaseModel):
    host: str = DEFAULT_HOST
    port: int = Field(default=DEFAULT_PORT, ge=0, le=65535)
    db: Path = DEFAULT_DB
    project_id: str = DEFAULT_PROJECT_ID
    project_name: str | None = None  # IAM scope by name; any region name is accepted when None
    access_key: str = DEFAULT_ACCESS_KEY
    secret_key: str = DEFAULT_SECRET_KEY
    security_token: str | None = None  # accepted X-Security-Token value (temporary credentials)
    iam_user: str = DEFAULT_IAM_USER
    iam_password: str = DEFAULT_IAM_PASSWORD
    iam_domain: str = DEFAULT_IAM_DOMAIN
    token_ttl_seconds: float = Field(default=24 * 3600, gt=0)
    run_seconds: float = Field(default=10.0, ge=0)
    phase_seconds: float = Field(default=1.0, ge=0)  # Creating, Pending and Terminating each
    # How long a deleted job is still answered before GET says ModelArts.2775 (deletes are asynchronous);
    # None: phase_seconds. 0: gone at once (the emulator's behaviour before).
    delete_seconds: float | None = Field(default=None, ge=0)
    latency_ms: float = Field(default=0.0, ge=0)
    catalog: Path | None = None
    max_clock_skew_seconds: float = 15 * 60  # X-Sdk-Date window, as the real gateway
    # Whether the service refuses a second job with an existing name is not documented: refuse
    # (ModelArts.2751) by default, accept with --allow-duplicate-names.
    allow_duplicate_names: bool = False
    # The list API's offset: a page number (the API reference, the SDK's JobSearches, and Terraform's provider,
    # which adds 1 per page of 50: data_source_huaweicloud_modelarts_training_jobs.go) or jobs to skip
    # (ModelArts' older Python SDK): both are emulated, pages by default.
    search_offset: Literal["items", "pages"] = "pages"
    # algorithm.environments in responses: one map (what Terraform's provider reads from the service) or an
    # array of key:value maps (the response table, the SDK's JobAlgorithmResponse).
    environments_shape: Literal["map", "array"] = "map"
    # A search without workspace_id lists workspace "0" (SDK JobSearches default); True: every workspace.
    search_all_workspaces: bool = False
    # Terraform's huaweicloud_modelarts_training_job docs: `metadata.annotations` is missing from the API
    # response. True: job, pool and network responses carry none (they are still stored and acted on).
    drop_annotations: bool = False
    # Where the local OBS is (http://127.0.0.1:8781): a job whose boot file is not there fails.
    obs_endpoint: str | None = None
    quiet: bool = True  # no per-request access log
    # Execution mode (execution.py): jobs with their own code run as local processes.
    execute: bool = False
    work_dir: Path | None = None  # per-job directories; default: "runs" beside the database
    max_processes: int = Field(default=4, ge=1)
    max_run_seconds: float = Field(default=600.0, gt=0)
    # GPUs handed to GPU-flavor tasks (execution/gpus.py): auto (nvidia-smi), none, or indices "0,1"
    gpus: str = "auto"
    # NAME[:VERSION]=PYTHON: the interpreter that runs a job of that engine (execution/engines.py)
    engine_python: list[str] = Field(default_factory=list)
    engine_pythons: Path | None = None  # a JSON file of the same mapping
    # Pools and networks (issue 24): real pools take 18-30 minutes to come up, here seconds.
    network_seconds: float = Field(default=1.0, ge=0)  # Creating -> Active
    pool_seconds: float = Field(default=3.0, ge=0)  # a create's or a scale-up's nodes come up over this
    scope_seconds: float = Field(default=0.5, ge=0)  # a pool's job types Enabling -> Enabled after it runs

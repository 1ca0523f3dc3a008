"""Command line: ``python -m modelarts_emulator [--host H] [--port P] [--db FILE] ...``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import config as c
from .config import EmulatorConfig
from local_cloud.server import add_credential_flags, ensure_state_dir, listen_parser, serve


def build_parser() -> argparse.ArgumentParser:
    p = listen_parser("python -m modelarts_emulator",
                      "Local ModelArts: an emulator of the ModelArts v2 training-job API "
                      "(with API-gateway auth and an emulated IAM token service).",
                      c.DEFAULT_HOST, c.DEFAULT_PORT)
    p.add_argument("--db", type=Path, default=c.DEFAULT_DB,
                   help="SQLite database file (jobs and IAM tokens survive restarts)")
    p.add_argument("--project-id", default=c.DEFAULT_PROJECT_ID,
                   help="the project the credentials own")
    p.add_argument("--project-name", default=None,
                   help="IAM project name accepted in token scopes (default: any region name)")
    add_credential_flags(p, c.DEFAULT_ACCESS_KEY, c.DEFAULT_SECRET_KEY, "X-Security-Token")
    p.add_argument("--iam-user", default=c.DEFAULT_IAM_USER, help="IAM user name")
    p.add_argument("--iam-password", default=c.DEFAULT_IAM_PASSWORD, help="IAM user password")
    p.add_argument("--iam-domain", default=c.DEFAULT_IAM_DOMAIN, help="IAM domain (account) name")
    p.add_argument("--token-ttl-seconds", type=float, default=24 * 3600,
                   help="lifetime of IAM tokens")
    p.add_argument("--run-seconds", type=float, default=10.0,
                   help="how long a job stays Running before it completes "
                        "(per job: annotation emulator/run-seconds)")
    p.add_argument("--phase-seconds", type=float, default=1.0,
                   help="how long Creating, Pending and Terminating each last")
    p.add_argument("--delete-seconds", type=float, default=None,
                   help="how long a deleted job is still answered before it is gone (ModelArts.2775): "
                        "deletes are asynchronous, as the service's; default: --phase-seconds, 0: at once")
    p.add_argument("--latency-ms", type=float, default=0.0,
                   help="latency added to every API request")
    p.add_argument("--catalog", type=Path, default=None,
                   help="JSON file of extra flavors/pools/engines/algorithms "
                        "(same shape as modelarts_emulator/catalog/catalog.json)")
    p.add_argument("--allow-duplicate-names", action="store_true",
                   help="accept a job whose name an existing job already has (undocumented behaviour "
                        "of the real service); default: refuse with ModelArts.2751")
    p.add_argument("--search-offset", choices=("items", "pages"), default="pages",
                   help="what the list API's offset counts: pages (the API reference, the SDK, Terraform's "
                        "provider; default) or jobs to skip (ModelArts' older Python SDK)")
    p.add_argument("--environments-shape", choices=("map", "array"), default="map",
                   help="algorithm.environments in responses: one map (what Terraform's provider reads; "
                        "default) or an array of key:value maps (the response table, the SDK's model)")
    p.add_argument("--search-all-workspaces", action="store_true",
                   help="a search without workspace_id lists every workspace (default: workspace 0, "
                        "the SDK's documented default)")
    p.add_argument("--drop-annotations", action="store_true",
                   help="answer jobs, pools and networks without metadata.annotations (as the service may: "
                        "Terraform's huaweicloud_modelarts_training_job docs)")
    p.add_argument("--obs-endpoint", default=None,
                   help="the local OBS (e.g. http://127.0.0.1:8781): a job whose boot file is not there "
                        "fails, as on the service (same AK/SK)")
    p.add_argument("--execute", action="store_true",
                   help="execution mode: a job with its own code (code_dir + boot_file) runs as local "
                        "processes, one per task, with code and inputs from the local OBS (--obs-endpoint); "
                        "algorithms from management keep the generated logs")
    p.add_argument("--work-dir", type=Path, default=None,
                   help="execution mode: per-job directories (default: runs/ beside --db)")
    p.add_argument("--max-processes", type=int, default=4,
                   help="execution mode: at most this many task processes at once (others wait in Pending)")
    p.add_argument("--max-run-seconds", type=float, default=600.0,
                   help="execution mode: a task process running longer is killed (its job fails)")
    p.add_argument("--gpus", default="auto",
                   help="execution mode: the GPUs GPU-flavor tasks get, as many per task as the flavor has: auto "
                        "(nvidia-smi), none, or indices such as 0,1; CPU flavors never see one")
    p.add_argument("--engine-python", action="append", default=[], metavar="NAME[:VERSION]=PYTHON",
                   help="execution mode: run jobs of this engine with this interpreter (repeatable), e.g. "
                        "PyTorch=/opt/torch/bin/python; unmapped engines use the emulator's own Python")
    p.add_argument("--engine-pythons", type=Path, default=None, metavar="FILE",
                   help="execution mode: a JSON object of NAME[:VERSION] -> interpreter (as --engine-python)")
    p.add_argument("--network-seconds", type=float, default=1.0,
                   help="how long a network stays Creating before it is Active")
    p.add_argument("--pool-seconds", type=float, default=3.0,
                   help="over how long the nodes of a pool create or scale-up become available, one by one")
    p.add_argument("--scope-seconds", type=float, default=0.5,
                   help="how long a pool's job types stay Enabling after it runs (or a PATCH adds one)")
    p.add_argument("--verbose", action="store_true", help="log every request to stderr")
    return p


def config_from_args(argv: list[str] | None = None) -> EmulatorConfig:
    a = build_parser().parse_args(argv)
    return EmulatorConfig(
        host=a.host, port=a.port, db=a.db, project_id=a.project_id, project_name=a.project_name,
        access_key=a.access_key, secret_key=a.secret_key, security_token=a.security_token,
        iam_user=a.iam_user, iam_password=a.iam_password, iam_domain=a.iam_domain,
        token_ttl_seconds=a.token_ttl_seconds, run_seconds=a.run_seconds,
        phase_seconds=a.phase_seconds, delete_seconds=a.delete_seconds, latency_ms=a.latency_ms,
        catalog=a.catalog,
        allow_duplicate_names=a.allow_duplicate_names, search_offset=a.search_offset,
        environments_shape=a.environments_shape,
        search_all_workspaces=a.search_all_workspaces, drop_annotations=a.drop_annotations,
        obs_endpoint=a.obs_endpoint, quiet=not a.verbose,
        execute=a.execute, work_dir=a.work_dir, max_processes=a.max_processes,
        max_run_seconds=a.max_run_seconds, gpus=a.gpus, engine_python=a.engine_python,
        engine_pythons=a.engine_pythons,
        network_seconds=a.network_seconds, pool_seconds=a.pool_seconds, scope_seconds=a.scope_seconds)


def main(argv: list[str] | None = None) -> int:
    cfg = config_from_args(argv)
    if cfg.execute:  # a bad interpreter mapping or --gpus is refused now, in one line, not when a job runs
        from .execution.options import check_execution_options

        try:
            check_execution_options(cfg)
        except ValueError as err:
            print(f"modelarts_emulator: {err}", file=sys.stderr)
            return 2
    if str(cfg.db) != ":memory:":
        ensure_state_dir(cfg.db.parent)
    from .server import EmulatorServer  # after argparse, so --help stays instant

    server = EmulatorServer(cfg)
    return serve(server, f"ModelArts emulator listening on {server.url} (project {cfg.project_id}, "
                         f"db {cfg.db})")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

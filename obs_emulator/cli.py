"""Command line: ``python -m obs_emulator [--host H] [--port P] [--state-dir DIR] ...``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from local_cloud.server import add_credential_flags, ensure_state_dir, listen_parser, serve

from . import config as c
from .config import ObsEmulatorConfig


def build_parser() -> argparse.ArgumentParser:
    p = listen_parser("python -m obs_emulator",
                      "Local OBS: an S3-compatible object store (moto's S3 backend) with SigV4 auth, "
                      "persistence under --state-dir, counters and fault injection (/_obs/*).",
                      c.DEFAULT_HOST, c.DEFAULT_PORT)
    p.add_argument("--state-dir", type=Path, default=c.DEFAULT_STATE_DIR,
                   help=f"folder of the database ({c.DB_NAME}): buckets and objects survive restarts")
    p.add_argument("--in-memory", action="store_true", help="keep nothing on disk (ignores --state-dir)")
    add_credential_flags(p, c.DEFAULT_ACCESS_KEY, c.DEFAULT_SECRET_KEY, "x-amz-security-token")
    p.add_argument("--region", default=c.DEFAULT_REGION,
                   help="region of buckets created without a LocationConstraint")
    p.add_argument("--latency-ms", type=float, default=0.0,
                   help="delay added to every S3 request (emulates the network round trip to OBS)")
    p.add_argument("--verbose", action="store_true", help="log every request to stderr")
    return p


def config_from_args(argv: list[str] | None = None) -> ObsEmulatorConfig:
    a = build_parser().parse_args(argv)
    return ObsEmulatorConfig(host=a.host, port=a.port, state_dir=None if a.in_memory else a.state_dir,
                             access_key=a.access_key, secret_key=a.secret_key,
                             security_token=a.security_token, region=a.region, latency_ms=a.latency_ms,
                             quiet=not a.verbose)


def main(argv: list[str] | None = None) -> int:
    cfg = config_from_args(argv)
    if cfg.state_dir is not None:
        ensure_state_dir(cfg.state_dir)
    from .server import ObsServer  # after argparse, so --help stays instant

    server = ObsServer(cfg)
    buckets, objects = server.restored
    where = f"state {cfg.db_path}, restored {buckets} buckets, {objects} objects" if cfg.db_path else "in memory"
    return serve(server, f"OBS emulator listening on {server.url} ({where})")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

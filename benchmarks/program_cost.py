"""The stack program's own cost against N: config parsing, validation (plan) and resource registration.

    .venv/bin/python -m benchmarks.program_cost --sizes 100,1000,3000 [--profile 1000]

Runs the repository's `__main__.py` in this process under Pulumi's mocks (no engine, no provider, no
network: every resource is accepted as declared), with one sweep of N points configured as B1's, and
reports wall seconds and ms per job for the whole program and for its parts (parse, plan, everything after:
registration and exports, which under mocks still serializes every resource's inputs and pickles its
provider, as the real program does). Linear cost shows as a flat ms/job across N. `--profile N` prints the
top functions (cProfile, cumulative) of the run at N.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import runpy
import sys
import tempfile
import time
from contextlib import chdir
from pathlib import Path
from typing import Any
from unittest import mock

ROOT = Path(__file__).resolve().parents[1]


class _Mocks:
    """Every resource is accepted with its inputs as outputs (a RandomPassword gets a result)."""

    def new_resource(self, args: Any) -> tuple[str, dict[str, Any]]:
        state = dict(args.inputs)
        if args.typ.startswith("random:"):
            state.setdefault("result", "s" * 48)
        return f"{args.name}-id", state

    def call(self, args: Any) -> tuple[dict[str, Any], list[tuple[str, str]]]:
        return {}, []


def _config(n: int) -> dict[str, str]:
    from testkit.faults import OBS, POOLS, PROJECT, sweep

    cfg = {"modelarts:region": "cn-north-4", "modelarts:projectId": "0" * 32,
           "modelarts:endpoint": "http://127.0.0.1:9", "modelarts:accessKey": "AK", "modelarts:secretKey": "SK",
           f"{PROJECT}:obs": OBS, f"{PROJECT}:pools": POOLS,
           f"{PROJECT}:sweeps": {"bench": sweep({"i": list(range(n))}, pollIntervalSeconds=0.05, maxJobs=max(n, 1))}}
    return {k: v if isinstance(v, str) else json.dumps(v) for k, v in cfg.items()}


def run(n: int, profile: bool = False) -> dict[str, float]:
    """One run of the program at N under mocks; seconds of its parts."""
    import pulumi
    from pulumi.runtime import mocks, settings
    from pulumi.runtime.stack import wait_for_rpcs
    from pulumi.runtime.sync_await import _sync_await

    from modelarts_provider.stack import run as run_mod

    parts: dict[str, float] = {}

    def timed(name: str, fn: Any) -> Any:
        def wrapper(*a: Any, **kw: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return fn(*a, **kw)
            finally:
                parts[name] = parts.get(name, 0.0) + time.perf_counter() - t0
        return wrapper

    config = _config(n)
    with tempfile.TemporaryDirectory() as d, chdir(d), \
            mock.patch.dict(os.environ, {"PULUMI_CONFIG": json.dumps(config), "PULUMI_CONFIG_SECRET_KEYS": '["modelarts:secretKey"]'}), \
            mock.patch.object(run_mod, "parse", timed("parse", run_mod.parse)), \
            mock.patch.object(run_mod, "plan", timed("plan", run_mod.plan)):
        settings.reset_options()
        mocks.set_mocks(_Mocks(), project="modelarts-jobs", stack="bench", preview=True)
        pulumi.runtime.set_all_config(config, ["modelarts:secretKey"])
        prof = cProfile.Profile() if profile else None
        t0 = time.perf_counter()
        if prof:
            prof.enable()
        runpy.run_path(str(ROOT / "__main__.py"), run_name="__main__")
        _sync_await(wait_for_rpcs())
        if prof:
            prof.disable()
            pstats.Stats(prof).sort_stats("cumulative").print_stats(30)
        total = time.perf_counter() - t0
    parts["total"] = total
    parts["registration"] = total - parts.get("parse", 0.0) - parts.get("plan", 0.0)
    return parts


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.program_cost", description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="100,1000")
    ap.add_argument("--profile", type=int, default=None, help="print a cProfile of the run at this N")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    sizes = [int(x) for x in args.sizes.split(",") if x.strip()]
    run(10)  # warm-up: imports, first-use caches
    print("| N | total (s) | parse (ms/job) | plan (ms/job) | registration + exports (ms/job) | total (ms/job) |")
    print("|---:|---:|---:|---:|---:|---:|")
    for n in sizes:
        p = run(n, profile=n == args.profile)
        print(f"| {n} | {p['total']:.2f} | {1000 * p.get('parse', 0) / n:.3f} | {1000 * p.get('plan', 0) / n:.3f} | "
              f"{1000 * p['registration'] / n:.3f} | {1000 * p['total'] / n:.3f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""``python -m modelarts_provider outputs``: list, and download, the output files of a job's run from OBS.

    python -m modelarts_provider outputs --stack STACK KEY [--run N] [--get DIR] [--cwd DIR]
    python -m modelarts_provider outputs --stack STACK SWEEP --best [--get DIR] [--cwd DIR]

KEY is a job key of the stack; its runs come from the stack's ``runs`` export (every run of the key, newest
last: the run history, docs/run-history.md), so ``--run N`` reaches a replaced run too (default: the newest).
A key with no recorded runs (not waited for) falls back to its ``jobs.<key>.outputPath`` (the current run).
KEY may also be an OBS URL (``obs://bucket/path/``), e.g. a search's best trial (``searches.<key>.best.
outputPath``). ``--best``: KEY is a sweep or a search, and the folder is its best point's (trial's) output
path, as `results KEY` ranks them (a failed or diverged point never). Files are read with the project's OBS reader (modelarts_provider/obs/reader.py) from the stack's
``modelarts:`` settings (region, obsEndpoint, AK/SK, or the HW_* / OS_* / OBS_ENDPOINT environment), so the
local OBS and a real one work alike. Without ``--get`` one line per file (size, path under the folder);
with ``--get DIR`` each file is written to DIR/<path under the folder>. Nothing is written to OBS.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path, PurePosixPath
from typing import Any, TextIO

from ..client.obs_paths import normalize_obs_path
from .output import guarded, print_line
from ..results.table import best as best_of
from .results import job_runs, sweep_or_search
from .stack_reader import CONFIG_WITH_SECRETS, ConfigEntry, LogsError, PulumiCli, prefetch_config


def split_obs_url(url: str) -> tuple[str, str]:
    """obs://bucket/prefix/ (or /bucket/prefix/) -> (bucket, 'prefix/')."""
    norm = normalize_obs_path(url) or url
    if not norm.startswith("obs://"):
        raise LogsError(f"{url!r} is not an OBS path (obs://bucket/path/)")
    bucket, _, key = norm[len("obs://"):].partition("/")
    key = key.strip("/")
    return bucket, key + "/" if key else ""


def best_folder(pulumi: PulumiCli, name: str) -> tuple[str, str]:
    """(label, output folder URL) of the best point of sweep (or search) `name`."""
    results, search = sweep_or_search(pulumi, name)
    kind = "search" if search else "sweep"
    goal = results.objective.goal if results.objective is not None else "max"
    # ranked again from the points: an export written before a rule (a diverged point never wins) obeys it too
    best = best_of(results.points, goal, ties_in_order=search) if results.objective is not None else None
    if best is None:
        what = results.objective.name if results.objective is not None else "an objective"
        raise LogsError(f"{kind} {name} has no best {'trial' if search else 'point'}: none completed with a value "
                        f"of {what} (`results {name}` lists them)")
    label = f"{name} best {'trial' if search else 'point'} {best.key}"
    if not best.output_path:
        raise LogsError(f"{label} recorded no output path")
    return label, best.output_path


def _sweep_hint(pulumi: PulumiCli, key: str) -> str:
    """How to reach the files of `key` when it names a sweep or a search rather than a job."""
    outputs = pulumi.json("stack", "output", "--json")
    for export, kind in (("sweeps", "sweep"), ("searches", "search")):
        found = outputs.get(export) if isinstance(outputs, dict) else None
        if isinstance(found, dict) and key in found:
            return f": {key} is a {kind}, `outputs {key} --best` reaches its best point's files"
    return ""


def run_folder(pulumi: PulumiCli, key: str, run: int | None) -> tuple[str, str]:
    """(label, output folder URL) of run `run` of `key` (1 = the first; None = the newest)."""
    if key.startswith(("obs://", "/")):
        if run is not None:
            raise LogsError(f"--run picks a recorded run of a job key; {key} is an OBS folder: leave --run out")
        return key, key
    try:
        runs = job_runs(pulumi, key)
    except LogsError:
        runs = []
    if runs:
        index = len(runs) if run is None else run
        if not 1 <= index <= len(runs):
            raise LogsError(f"{key} has {len(runs)} recorded run{'s' if len(runs) != 1 else ''}: --run takes 1 to "
                            f"{len(runs)} (`results {key} --history` lists them)")
        record = runs[index - 1]
        path = record.get("outputPath")
        label = f"{key} run {index} ({record.get('name') or record.get('jobId') or '?'})"
        if not isinstance(path, str) or not path:
            raise LogsError(f"{label} recorded no output path")
        return label, path
    if run is not None:
        raise LogsError(f"no runs of {key!r} recorded in stack {pulumi.stack} (an `up` that waits for the job "
                        "records them): leave --run out for its current output")
    outputs = pulumi.json("stack", "output", "--json")
    entry = ((outputs or {}).get("jobs") or {}).get(key) if isinstance(outputs, dict) else None
    path = entry.get("outputPath") if isinstance(entry, dict) else None
    if not isinstance(path, str) or not path:
        raise LogsError(f"no output path of {key!r} in the outputs of stack {pulumi.stack} (jobs.{key}.outputPath)"
                        + _sweep_hint(pulumi, key))
    return key, path


def obs_client(pulumi: PulumiCli, environ: dict[str, str]) -> Any:
    """The project's OBS reader (obs/reader.py: a listing and GETs, without botocore's half a second of start-up),
    from the stack's modelarts: settings as the provider resolves them."""
    from ..core.provider_config import NAMESPACE
    from ..obs.errors import ObsConfigError
    from ..obs.reader import ObsReader
    from ..obs.settings import resolve_obs_settings

    raw = pulumi.json(*CONFIG_WITH_SECRETS)
    values = {str(k).partition(":")[2]: ConfigEntry.model_validate(v).value
              for k, v in (raw.items() if isinstance(raw, dict) else []) if str(k).startswith(f"{NAMESPACE}:")
              and isinstance(v, dict)}
    try:
        return ObsReader(resolve_obs_settings(values.get, environ))
    except ObsConfigError as err:  # names keys, never values
        raise LogsError(str(err)) from None


def local_target(root: Path, relative: str) -> Path:
    """Where a file under the folder goes in DIR; a key that would leave DIR is refused."""
    parts = PurePosixPath(relative).parts
    if not parts or any(p in ("..", "") for p in parts) or relative.startswith("/"):
        raise LogsError(f"refusing to write {relative!r}: it would leave {root}")
    return root.joinpath(*parts)


def run_outputs(args: argparse.Namespace, out: TextIO = sys.stdout) -> int:
    from ..obs.errors import ObsError

    pulumi = PulumiCli(Path(args.cwd).resolve(), args.stack)
    prefetch_config(pulumi)  # the OBS credentials: decrypted while the run is looked up
    if getattr(args, "best", False):
        # options that would do nothing are refused, not ignored
        if args.run is not None:
            raise LogsError("--best and --run pick different things (a sweep's best point, a job's run): give one")
        if args.key.startswith(("obs://", "/")):
            raise LogsError(f"--best picks a sweep's or search's best point; {args.key} is an OBS folder: leave --best out")
        label, url = best_folder(pulumi, args.key)
    else:
        label, url = run_folder(pulumi, args.key, args.run)
    bucket, prefix = split_obs_url(url)
    client = obs_client(pulumi, dict(os.environ))
    try:
        objects = [o for o in client.iter_objects(bucket, prefix) if not o.key.endswith("/")]
        print_line(out, f"{label}: {len(objects)} file{'s' if len(objects) != 1 else ''} in obs://{bucket}/{prefix}")
        root = Path(args.get).resolve() if args.get else None
        for o in objects:
            relative = o.key[len(prefix):]
            if root is None:
                print_line(out, f"{o.size:>12}  {relative}")
                continue
            target = local_target(root, relative)
            client.get_file(bucket, o.key, target)
            print_line(out, f"{o.size:>12}  {target}")
    except ObsError as err:
        raise LogsError(str(err)) from None
    finally:
        client.close()
    return 0


def register(subparsers: Any) -> None:
    r = subparsers.add_parser("outputs", help="list (and download) a job run's output files from OBS",
                              description="List the output files of a job's run in OBS; --get DIR downloads them.")
    r.add_argument("key", metavar="KEY", help="a job key of the stack config, an OBS folder (obs://bucket/path/), or "
                                              "with --best a sweep's or search's key")
    r.add_argument("--best", action="store_true", help="KEY is a sweep or search: its best point's (trial's) outputs")
    r.add_argument("--run", type=int, metavar="N", help="the Nth recorded run, 1 = the first (default: the newest; "
                                                         "`results KEY --history` numbers them)")
    r.add_argument("--get", metavar="DIR", help="download the files into DIR (paths under the output folder kept)")
    r.add_argument("--stack", required=True, help="Pulumi stack (e.g. local)")
    r.add_argument("--cwd", default=".", help="the Pulumi project directory (default: .)")
    r.set_defaults(handler=guarded("outputs", run_outputs))

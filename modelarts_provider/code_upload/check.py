"""check(): the inputs as the program computed them -> failures, one line per bad argument, no API
call. Arguments are named as the constructor takes them (``boot_file``, ``local_dir``, ...).

The directory is scanned again here (stat only): a directory that is missing, empty, over a limit,
or without the boot file is refused at preview whatever the program managed to compute.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from pydantic import ValidationError

from ..messages import explain
from ..obs.names import bucket_name_problem
from ..obs.provider_support import is_unknown
from .args import INPUT_NAMES, OUTPUT_KEYS, CodeUploadArgs
from .manifest import ScanError, scan

__all__ = ["Failure", "check_inputs", "boot_file_problem"]


@dataclass(frozen=True)
class Failure:
    property: str
    reason: str

    def __str__(self) -> str:
        return f"{self.property}: {self.reason}"


def strip_outputs(props: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in props.items() if k not in OUTPUT_KEYS and not k.startswith("__")}


def boot_file_problem(boot_file: str) -> str | None:
    p = PurePosixPath(boot_file)
    if p.is_absolute() or ".." in p.parts or "\\" in boot_file:
        return f"{boot_file!r} must be a path relative to local_dir with '/' separators, e.g. train.py"
    if p.suffix != ".py":
        return f"{boot_file!r} must be a Python file (.py): ModelArts starts a code-directory job with a Python boot file"
    return None


def check_inputs(news: dict[str, Any]) -> tuple[CodeUploadArgs | None, list[Failure]]:
    raw = {k: v for k, v in strip_outputs(news).items() if v is not None}  # absent: "is required"
    bucket_unknown = is_unknown(raw.get("bucket"))
    candidate = {**raw, "bucket": "unknown-at-preview"} if bucket_unknown else raw
    try:
        args = CodeUploadArgs.model_validate(candidate)
    except ValidationError as err:
        failures = []
        for loc, reason in explain(err.errors(include_url=False)):
            name = str(loc[0]) if loc else "code"
            failures.append(Failure(INPUT_NAMES.get(name, name), reason))
        return None, failures

    failures: list[Failure] = []
    if not bucket_unknown and (problem := bucket_name_problem(args.bucket)):
        failures.append(Failure("bucket", problem))
    boot_problem = boot_file_problem(args.boot_file_path)
    if boot_problem:
        failures.append(Failure("boot_file", boot_problem))
    try:
        manifest = scan(Path(args.source_path), args.local_dir, args.excludes, args.limits)
    except ScanError as err:
        failures.append(Failure(err.field, err.message))
        return None, failures
    if not boot_problem and not manifest.has(args.boot_file_path.removeprefix("./")):
        failures.append(Failure("boot_file", f"{args.boot_file_path!r} is not in {args.local_dir} (expected "
                                             f"a .py file relative to local_dir, e.g. train.py; excluded "
                                             f"files do not count)"))
    if args.content_hash is None and not failures:
        failures.append(Failure("local_dir", f"{args.local_dir} changed while the program read it: run again"))
    return (None if failures else args), failures

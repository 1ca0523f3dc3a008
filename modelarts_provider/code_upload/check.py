"""check(): the inputs as the program computed them -> failures, one line per bad argument, no API
call. Arguments are named as the constructor takes them (``boot_file``, ``local_dir``, ...).

The directory is scanned again here (stat only): a directory that is missing, empty, over a limit,
or without the boot file is refused at preview whatever the program managed to compute.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from pydantic import ValidationError

from ..core.failures import Failure
from ..core.messages import explain
from ..core.resource_inputs import Checked, inputs_among
from ..core.unknowns import is_unknown
from ..obs.names import bucket_name_problem
from .args import INPUT_NAMES, CodeUploadArgs, CodeUploadOutputs
from .manifest import Limits, Manifest, ScanError, scan

__all__ = ["check_inputs", "boot_file_problem", "directory_failures"]


strip_outputs = inputs_among(CodeUploadOutputs)


def boot_file_problem(boot_file: str, local_dir_name: str = "local_dir") -> str | None:
    p = PurePosixPath(boot_file)
    if p.is_absolute() or ".." in p.parts or "\\" in boot_file:
        return f"{boot_file!r} must be a path relative to {local_dir_name} with '/' separators, e.g. train.py"
    if p.suffix != ".py":
        return f"{boot_file!r} must be a Python file (.py): ModelArts starts a code-directory job with a Python boot file"
    return None


# How the failures name the arguments: CodeUpload's own names, or the stack config's (code.localDir, ...).
ARG_NAMES = {"local_dir": "local_dir", "boot_file": "boot_file"}


def directory_failures(local_dir: str, source: Path, boot_file: str, excludes: Sequence[str], limits: Limits,
                       names: Mapping[str, str] = ARG_NAMES) -> tuple[Manifest | None, list[Failure]]:
    """What keeps a local code directory from being uploaded: the boot file's form, the directory
    (missing, empty, over a limit) and the boot file's presence. Stat only, no API call."""
    failures: list[Failure] = []
    boot_problem = boot_file_problem(boot_file, names["local_dir"])
    if boot_problem:
        failures.append(Failure(names["boot_file"], boot_problem))
    try:
        manifest = scan(source, local_dir, excludes, limits)
    except ScanError as err:
        return None, [*failures, Failure(names.get(err.field, err.field), err.message)]
    if not boot_problem and not manifest.has(boot_file.removeprefix("./")):
        failures.append(Failure(names["boot_file"], f"{boot_file!r} is not in {local_dir} (expected a .py file "
                                                    f"relative to {names['local_dir']}, e.g. train.py; excluded "
                                                    f"files do not count)"))
    return manifest, failures


def check_inputs(news: dict[str, Any]) -> Checked[CodeUploadArgs | None]:
    raw = {k: v for k, v in strip_outputs(news).items() if v is not None}  # absent: "is required"
    bucket_unknown = is_unknown(raw.get("bucket"))
    candidate = {**raw, "bucket": "unknown-at-preview"} if bucket_unknown else raw
    if is_unknown(raw.get("owner_token")):  # a new upload's RandomId: known once created
        candidate = {k: v for k, v in candidate.items() if k != "owner_token"}
    try:
        args = CodeUploadArgs.model_validate(candidate)
    except ValidationError as err:
        failures = []
        for loc, reason in explain(err.errors(include_url=False)):
            name = str(loc[0]) if loc else "code"
            failures.append(Failure(INPUT_NAMES.get(name, name), reason))
        return Checked(None, failures)

    failures: list[Failure] = []
    if not bucket_unknown and (problem := bucket_name_problem(args.bucket)):
        failures.append(Failure("bucket", problem))
    manifest, found = directory_failures(args.local_dir, Path(args.source_path), args.boot_file_path,
                                         args.excludes, args.limits)
    failures += found
    if manifest is None:
        return Checked(None, failures)
    if args.content_hash is None and not failures:
        failures.append(Failure("local_dir", f"{args.local_dir} changed while the program read it: run again"))
    return Checked(None if failures else args, failures)

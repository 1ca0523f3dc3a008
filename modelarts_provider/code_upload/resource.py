"""CodeUpload: a local code directory uploaded to OBS under a content-addressed prefix.

    upload = CodeUpload("mnist-code", {
        "local_dir": "./training/mnist",      # relative to the Pulumi project, or absolute
        "boot_file": "train.py",              # relative to local_dir
        "bucket": "my-bucket",                # may be an Output, e.g. Bucket(...).bucket
        "prefix": "code",                     # optional (default "code")
        "job_key": "mnist",                   # optional (default: the resource name)
    })
    upload.code_dir   # obs://my-bucket/code/mnist/<owner token>/<hash16>/           (for algorithm.code_dir)
    upload.boot_file  # obs://my-bucket/code/mnist/<owner token>/<hash16>/train.py   (for algorithm.boot_file)

Optional: ``excludes`` (extra .gitignore-style patterns), ``max_total_bytes`` (default 200 MiB),
``max_files`` (files and folders, default 1000: ModelArts' limit), ``parallelism`` (default 8).

The content hash is computed here, in the program: an unchanged directory gives identical inputs,
so no diff and no API call at preview. A change gives a new prefix: the upload is replaced (new
prefix created first, the old one removed at the end of the update, after whatever depends on
``code_dir`` was replaced). Outputs exist only once every file and the completion marker are in
OBS. Credentials are read by the provider (``modelarts:`` config or environment), never here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional, TypedDict

import pulumi
import pulumi_random as random
from pulumi.dynamic import Resource

from ..core.marks import outputs_of
from .args import OUTPUT_KEYS, CodeUploadOutputs
from .inputs import ARGS, provider_inputs
from .provider import CodeUploadProvider

__all__ = ["CodeUpload", "CodeUploadInputs", "PROVIDER"]

PROVIDER = CodeUploadProvider()  # one provider object: identical pickles for every upload
_ARGS = ARGS  # the constructor's arguments (inputs.py: the plugin's CodeUpload takes the same)


class CodeUploadInputs(TypedDict, total=False):
    local_dir: str  # plain values: the program reads the directory
    boot_file: str
    bucket: pulumi.Input[str]
    prefix: str
    job_key: str
    excludes: list[str]
    max_total_bytes: int
    max_files: int
    parallelism: int


def _plain(name: str, value: Any) -> Any:
    if isinstance(value, pulumi.Output):
        raise TypeError(f"CodeUpload {name} must be a plain value (the program reads the directory), "
                        f"not a pulumi Output")
    return value


class CodeUpload(Resource, module="modelarts", name="CodeUpload"):
    __annotations__ = outputs_of(CodeUploadOutputs)  # its outputs, declared once (CodeUploadOutputs)

    def __init__(self, resource_name: str, args: CodeUploadInputs | Mapping[str, Any],
                 opts: Optional[pulumi.ResourceOptions] = None) -> None:
        given = dict(args)
        unknown = sorted(set(given) - _ARGS)
        if unknown:
            raise TypeError(f"CodeUpload {resource_name}: unknown argument(s) {', '.join(unknown)} "
                            f"(expected {', '.join(sorted(_ARGS))})")
        props = provider_inputs(resource_name, {k: _plain(k, v) if k != "bucket" else v for k, v in given.items()})
        # This resource's own prefix (layout.py): a RandomId in the state before anything is uploaded.
        parent = opts.parent if opts is not None else None
        props["owner_token"] = random.RandomId(f"{resource_name}-owner", byte_length=8,
                                               opts=pulumi.ResourceOptions(parent=parent)).hex
        for key in OUTPUT_KEYS:
            props.setdefault(key, None)
        super().__init__(PROVIDER, resource_name, props, opts)


"""CodeUploadProvider: the dynamic provider behind CodeUpload.

check/diff: no API call (check stats the directory). create: re-reads the directory, refuses if it no
longer matches the hash the program computed, uploads what is missing in parallel, writes the
completion marker last, and only then returns the outputs. delete: marker first, then the prefix.
read (refresh): the upload is dropped from the state when its marker is gone.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pulumi.dynamic import CheckFailure, CheckResult, CreateResult, DiffResult, ReadResult, UpdateResult

from ..obs.errors import ObsError
from ..obs.provider_support import ObsProviderBase, ObsProviderError
from ..provider_base import say
from . import layout, transfer
from .args import CodeUploadArgs, CodeUploadOutputs
from .check import check_inputs, strip_outputs
from .manifest import ScanError, digest, scan

# a change of any of these is a new content-addressed prefix: a new upload (create, then delete old)
REPLACE_KEYS = ("bucket", "prefix", "job_key", "content_hash")
# the boot file only changes the outputs (the hash covers every file, the boot file is one of them)
UPDATE_KEYS = ("boot_file_path",)


def _resource_id(args: CodeUploadArgs) -> str:
    assert args.content_hash is not None
    return f"{args.bucket}/{layout.code_prefix(args.prefix, args.job_key, args.content_hash).rstrip('/')}"


def _outputs(args: CodeUploadArgs, uploaded: int, skipped: int) -> CodeUploadOutputs:
    assert args.content_hash is not None
    dest = layout.code_prefix(args.prefix, args.job_key, args.content_hash)
    return CodeUploadOutputs(
        code_dir=layout.obs_url(args.bucket, dest), boot_file=layout.obs_url(args.bucket, dest + args.boot_file_path),
        marker_key=layout.marker_key(args.prefix, args.job_key, args.content_hash),
        uploaded_files=uploaded, skipped_files=skipped)


class CodeUploadProvider(ObsProviderBase):
    def check(self, olds: dict[str, Any], news: dict[str, Any]) -> CheckResult:
        _args, failures = check_inputs(news)
        out = [CheckFailure(f.property, f.reason) for f in failures] + self.config_failures()
        return CheckResult(news, out)

    def diff(self, id_: str, olds: dict[str, Any], news: dict[str, Any]) -> DiffResult:
        replaces = [k for k in REPLACE_KEYS if olds.get(k) != news.get(k)]
        updates = [k for k in UPDATE_KEYS if olds.get(k) != news.get(k)]
        return DiffResult(changes=bool(replaces or updates), replaces=replaces or None,
                          delete_before_replace=False)

    def create(self, props: dict[str, Any]) -> CreateResult:
        args = CodeUploadArgs.model_validate(strip_outputs(props))
        root = Path(args.source_path)
        where = f"{args.local_dir} -> obs://{args.bucket}/"
        try:
            manifest = scan(root, args.local_dir, args.excludes, args.limits)
            files = digest(root, manifest)
        except ScanError as err:
            raise ObsProviderError(f"code upload {where}: {err}") from None
        if files.content_hash != args.content_hash:
            raise ObsProviderError(f"code upload {args.local_dir}: the directory changed since the program "
                                   f"read it: run pulumi up again")
        dest = layout.code_prefix(args.prefix, args.job_key, files.content_hash)
        marker_key = layout.marker_key(args.prefix, args.job_key, files.content_hash)
        where = f"{args.local_dir} -> obs://{args.bucket}/{dest}"
        obs = self._obs()
        try:
            report = transfer.upload(obs, root, manifest, files, args.bucket, dest, args.parallelism)
            transfer.write_marker(obs, args.bucket, marker_key, transfer.Marker(
                content_hash=files.content_hash, files=len(manifest.files), total_bytes=manifest.total_bytes))
        except (ObsError, transfer.UploadFailed) as err:
            raise ObsProviderError(f"code upload {where}: {err}; nothing refers to the partial upload, "
                                   f"the next up resumes it") from None
        say(f"code upload {where}: {report.uploaded} files uploaded ({report.uploaded_bytes} bytes), "
            f"{report.skipped} already there")
        outputs = _outputs(args, report.uploaded, report.skipped)
        return CreateResult(_resource_id(args), {**props, **outputs.model_dump()})

    def update(self, id_: str, olds: dict[str, Any], news: dict[str, Any]) -> UpdateResult:
        args = CodeUploadArgs.model_validate(strip_outputs(news))
        outputs = _outputs(args, 0, (olds.get("uploaded_files") or 0) + (olds.get("skipped_files") or 0))
        return UpdateResult({**news, **outputs.model_dump()})

    def read(self, id_: str, props: dict[str, Any]) -> ReadResult:
        args = CodeUploadArgs.model_validate(strip_outputs(props))
        assert args.content_hash is not None
        marker = transfer.read_marker(self._obs(), args.bucket,
                                      layout.marker_key(args.prefix, args.job_key, args.content_hash))
        if marker is None or marker.content_hash != args.content_hash:
            say(f"code upload obs://{id_}/: completion marker gone, dropping it from the state")
            return ReadResult("", {})
        return ReadResult(id_, props)

    def delete(self, id_: str, props: dict[str, Any]) -> None:
        args = CodeUploadArgs.model_validate(strip_outputs(props))
        assert args.content_hash is not None
        dest = layout.code_prefix(args.prefix, args.job_key, args.content_hash)
        marker_key = layout.marker_key(args.prefix, args.job_key, args.content_hash)
        try:
            n = transfer.remove(self._obs(), args.bucket, marker_key, dest, args.parallelism, say)
        except ObsError as err:
            raise ObsProviderError(f"code upload obs://{args.bucket}/{dest}: removing it failed: {err}") from None
        say(f"code upload obs://{args.bucket}/{dest}: removed ({n} objects)")

"""CodeUploadProvider: the dynamic provider behind CodeUpload.

check/diff: no API call (check stats the directory). create: re-reads the directory, refuses if it no
longer matches the hash the program computed, uploads what is missing in parallel, writes the
completion marker (with the list of files) last, and only then returns the outputs. delete: marker
first, then exactly the files it lists. read (refresh): the upload is dropped from the state when its
marker is gone (OBS's NoSuchKey: a wrong endpoint's 404 is an error, not "gone").

Where an upload lives is recorded in its outputs (code_dir, marker_key) and read back from there, so an
upload made under an older layout is found, kept and removed where it is.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pulumi.dynamic import CheckFailure, CheckResult, CreateResult, DiffResult, ReadResult, UpdateResult

from ..obs.errors import ObsError
from ..core.obs_provider import ObsProviderBase, ObsProviderError
from ..core.output_lines import say
from . import layout, transfer
from .args import CodeUploadArgs, CodeUploadOutputs
from .check import check_inputs, strip_outputs
from .manifest import ScanError, digest, scan

# a change of any of these is a new content-addressed prefix: a new upload (create, then delete old)
REPLACE_KEYS = ("bucket", "prefix", "job_key", "content_hash", "owner_token")
# the boot file only changes the outputs (the hash covers every file, the boot file is one of them)
UPDATE_KEYS = ("boot_file_path",)


def _dest(args: CodeUploadArgs) -> str:
    assert args.content_hash is not None
    return layout.code_prefix(args.prefix, args.job_key, args.content_hash, args.owner_token)


def _marker(args: CodeUploadArgs) -> str:
    assert args.content_hash is not None
    return layout.marker_key(args.prefix, args.job_key, args.content_hash, args.owner_token)


def _recorded(args: CodeUploadArgs, props: dict[str, Any]) -> tuple[str, str]:
    """(code directory key, marker key) where this upload is: as recorded in its outputs."""
    if props.get("code_dir") and props.get("marker_key"):
        return layout.key_of(args.bucket, props["code_dir"]), props["marker_key"]
    return _dest(args), _marker(args)


def _resource_id(args: CodeUploadArgs) -> str:
    return f"{args.bucket}/{_dest(args).rstrip('/')}"


def _outputs(args: CodeUploadArgs, uploaded: int, skipped: int, dest: str | None = None,
             marker_key: str | None = None) -> CodeUploadOutputs:
    dest = dest or _dest(args)
    return CodeUploadOutputs(
        code_dir=layout.obs_url(args.bucket, dest), boot_file=layout.obs_url(args.bucket, dest + args.boot_file_path),
        marker_key=marker_key or _marker(args), uploaded_files=uploaded, skipped_files=skipped)


def _same(key: str, old: Any, new: Any) -> bool:
    if key == "prefix":  # "code/", "/code" and "code" are one prefix
        return str(old or "").strip("/") == str(new or "").strip("/")
    if key == "owner_token" and old is None:
        return True  # an upload made before owner tokens keeps its place (recorded in its outputs)
    return old == new


class CodeUploadProvider(ObsProviderBase):
    def check(self, olds: dict[str, Any], news: dict[str, Any]) -> CheckResult:
        out = [CheckFailure(f.property, f.reason) for f in check_inputs(news).failures] + self.config_failures()
        return CheckResult(news, out)

    def diff(self, id_: str, olds: dict[str, Any], news: dict[str, Any]) -> DiffResult:
        replaces = [k for k in REPLACE_KEYS if not _same(k, olds.get(k), news.get(k))]
        updates = [k for k in UPDATE_KEYS + ("owner_token", "prefix") if olds.get(k) != news.get(k)
                   and k not in replaces]
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
        dest, marker_key = _dest(args), _marker(args)
        where = f"{args.local_dir} -> obs://{args.bucket}/{dest}"
        obs = self._obs()
        try:
            report = transfer.upload(obs, root, manifest, files, args.bucket, dest, args.parallelism)
            transfer.write_marker(obs, args.bucket, marker_key, transfer.Marker(
                content_hash=files.content_hash, files=len(manifest.files), total_bytes=manifest.total_bytes,
                keys=[f.path for f in manifest.files]))
        except (ObsError, transfer.UploadFailed) as err:
            raise ObsProviderError(f"code upload {where}: {err}; nothing refers to the partial upload, "
                                   f"the next up resumes it") from None
        say(f"code upload {where}: {report.uploaded} files uploaded ({report.uploaded_bytes} bytes), "
            f"{report.skipped} already there")
        outputs = _outputs(args, report.uploaded, report.skipped)
        return CreateResult(_resource_id(args), {**props, **outputs.model_dump()})

    def update(self, id_: str, olds: dict[str, Any], news: dict[str, Any]) -> UpdateResult:
        # The upload stays where it is (recorded): a boot file, a prefix spelling or a first owner token
        # never moves it.
        args = CodeUploadArgs.model_validate(strip_outputs(news))
        dest, marker_key = _recorded(CodeUploadArgs.model_validate(strip_outputs(olds)), olds)
        outputs = _outputs(args, 0, (olds.get("uploaded_files") or 0) + (olds.get("skipped_files") or 0),
                           dest, marker_key)
        return UpdateResult({**news, **outputs.model_dump()})

    def read(self, id_: str, props: dict[str, Any]) -> ReadResult:
        args = CodeUploadArgs.model_validate(strip_outputs(props))
        assert args.content_hash is not None
        marker = transfer.read_marker(self._obs(), args.bucket, _recorded(args, props)[1])
        if marker is None or marker.content_hash != args.content_hash:
            say(f"code upload obs://{id_}/: completion marker gone, dropping it from the state")
            return ReadResult("", {})
        return ReadResult(id_, props)

    def delete(self, id_: str, props: dict[str, Any]) -> None:
        args = CodeUploadArgs.model_validate(strip_outputs(props))
        assert args.content_hash is not None
        dest, marker_key = _recorded(args, props)
        try:
            n = transfer.remove(self._obs(), args.bucket, marker_key, dest, args.parallelism, say,
                                known_keys=_local_keys(args))
        except ObsError as err:
            raise ObsProviderError(f"code upload obs://{args.bucket}/{dest}: removing it failed: {err}") from None
        say(f"code upload obs://{args.bucket}/{dest}: removed ({n} objects)")


def _local_keys(args: CodeUploadArgs) -> list[str] | None:
    """The files of an upload whose marker predates file lists: the local directory's, if it still has
    exactly the uploaded content (same hash); otherwise unknown."""
    try:
        root = Path(args.source_path)
        manifest = scan(root, args.local_dir, args.excludes, args.limits)
        if digest(root, manifest).content_hash == args.content_hash:
            return [f.path for f in manifest.files]
    except (ScanError, OSError):
        pass
    return None

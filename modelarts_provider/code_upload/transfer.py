"""Put a scanned directory under an OBS prefix in parallel, and remove a prefix.

Converging: what is already there with the same size and MD5 ETag is skipped, so a run after a
fault uploads only the rest. The completion marker is written by the caller after ``upload`` came
back without error, and removed by ``remove`` before any file.
"""

from __future__ import annotations

import json
import mimetypes
import threading
from collections.abc import Callable
from concurrent.futures import FIRST_EXCEPTION, Future, ThreadPoolExecutor, wait
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from ..obs.client import ObsClient
from ..obs.errors import ObsError
from .manifest import Digest, Manifest

__all__ = ["Marker", "UploadFailed", "UploadReport", "read_marker", "remove", "upload", "write_marker"]


class UploadReport(BaseModel):
    model_config = ConfigDict(frozen=True)

    uploaded: int
    skipped: int
    uploaded_bytes: int


class Marker(BaseModel):
    """The completion marker's body (JSON): what the prefix holds."""

    model_config = ConfigDict(frozen=True)

    content_hash: str
    files: int
    total_bytes: int
    # every file written, relative to the code directory: delete removes exactly these (an older marker
    # has none: its objects are then left, never guessed from a listing of the prefix)
    keys: list[str] = []


class UploadFailed(Exception):
    """Some files did not reach OBS: one line naming the count and the first OBS error."""


def _content_type(path: str) -> str:
    return mimetypes.guess_type(path)[0] or "application/octet-stream"


def upload(obs: ObsClient, root: Path, manifest: Manifest, files_digest: Digest, bucket: str,
           dest: str, parallelism: int) -> UploadReport:
    present = {o.key: o for o in obs.iter_objects(bucket, dest)}
    todo = [f for f in manifest.files
            if (o := present.get(dest + f.path)) is None or o.size != f.size
            or o.etag != files_digest.md5[f.path]]
    if not todo:
        return UploadReport(uploaded=0, skipped=len(manifest.files), uploaded_bytes=0)

    stop = threading.Event()  # after a failure: start no further file (those in flight finish)

    def put(path: str) -> int:
        if stop.is_set():
            return -1
        try:
            info = obs.put_file(bucket, dest + path, root / path, files_digest.md5[path], _content_type(path))
        except BaseException:
            stop.set()
            raise
        return info.size

    with ThreadPoolExecutor(max_workers=min(parallelism, len(todo)), thread_name_prefix="obs-put") as pool:
        futures: list[Future[int]] = [pool.submit(put, f.path) for f in todo]
        wait(futures, return_when=FIRST_EXCEPTION)
    errors = [f.exception() for f in futures if f.exception() is not None]
    done = [f.result() for f in futures if f.exception() is None and f.result() >= 0]
    if errors:
        first = errors[0]
        reason = str(first) if isinstance(first, ObsError) else f"{type(first).__name__}: {first}"
        raise UploadFailed(f"{len(todo) - len(done)} of {len(todo)} files not uploaded; first failure: {reason}")
    return UploadReport(uploaded=len(done), skipped=len(manifest.files) - len(todo), uploaded_bytes=sum(done))


def write_marker(obs: ObsClient, bucket: str, key: str, marker: Marker) -> None:
    obs.put_bytes(bucket, key, marker.model_dump_json().encode(), "application/json")


def read_marker(obs: ObsClient, bucket: str, key: str) -> Marker | None:
    body = obs.get_bytes(bucket, key)
    if body is None:
        return None
    try:
        return Marker.model_validate(json.loads(body))
    except ValueError:
        return None  # not ours or damaged: treated as absent (the upload runs again)


def remove(obs: ObsClient, bucket: str, marker_key: str, dest: str, parallelism: int,
           log: Callable[[str], None] = lambda _m: None, known_keys: list[str] | None = None) -> int:
    """Marker first, then exactly the files it lists (or `known_keys`, relative to ``dest``), never
    "everything under the prefix". A missing bucket is success (nothing left)."""
    try:
        marker = read_marker(obs, bucket, marker_key)
        keys = marker.keys if marker is not None and marker.keys else (known_keys or [])
        obs.delete_object(bucket, marker_key)
    except ObsError as err:
        if err.code == "NoSuchBucket":
            log(f"obs://{bucket}: bucket already gone")
            return 0
        raise
    if not keys:
        log(f"obs://{bucket}/{dest}: the upload's file list is unknown (an upload older than file lists); "
            "its objects are left in place")
        return 0
    obs.delete_keys(bucket, [dest + k for k in keys], parallelism)
    return len(keys)

"""Copies between the local OBS and a task's directories, for the execution mode (execution.py).

The service downloads a job's code directory and input channels before the process starts and uploads
its output channels when it ends; we do the same against the local OBS (`--obs-endpoint`, same AK/SK
as the emulator, as obs_check.py). Errors become one line (``TransferError``) naming the OBS path.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from local_cloud.obs_probe import split_obs_path


class TransferError(RuntimeError):
    """A download or upload failed; the message is one line, without credentials."""


@functools.lru_cache(maxsize=4)
def _client(endpoint: str, access_key: str, secret_key: str) -> Any:
    import boto3
    from botocore.config import Config

    return boto3.client(
        "s3", endpoint_url=endpoint.rstrip("/"), region_name="cn-north-4", aws_access_key_id=access_key,
        aws_secret_access_key=secret_key,
        config=Config(s3={"addressing_style": "path"}, signature_version="s3v4", connect_timeout=2,
                      read_timeout=30, retries={"mode": "standard", "total_max_attempts": 2},
                      request_checksum_calculation="when_required",
                      response_checksum_validation="when_required"))


def _split(obs_path: str) -> tuple[str, str]:
    """(bucket, key prefix) of ``obs://bucket/dir/`` or ``/bucket/dir`` (the prefix may be empty)."""
    rest = obs_path[len("obs://"):] if obs_path.startswith("obs://") else obs_path.lstrip("/")
    bucket, _, key = rest.partition("/")
    if not bucket:
        raise TransferError(f"{obs_path}: not an OBS path (obs://bucket/path)")
    return bucket, key


class ObsTransfer:
    def __init__(self, endpoint: str, access_key: str, secret_key: str) -> None:
        self._args = (endpoint, access_key, secret_key)

    def download_dir(self, obs_path: str, dest: Path) -> int:
        """Every object under ``obs_path`` into ``dest`` (relative paths kept); a path naming one
        object downloads that file. The number of files; an empty or missing prefix gives none."""
        from botocore.exceptions import BotoCoreError, ClientError

        bucket, key = _split(obs_path)
        prefix = key if (not key or key.endswith("/")) else key + "/"
        dest.mkdir(parents=True, exist_ok=True)
        client = _client(*self._args)
        count = 0
        try:
            for page in client.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix):
                for obj in page.get("Contents") or []:
                    rel = obj["Key"][len(prefix):]
                    if not rel or rel.endswith("/"):
                        continue  # a folder marker
                    target = (dest / rel).resolve()
                    if not target.is_relative_to(dest.resolve()):
                        continue  # a key with ../ never escapes the task's directory
                    target.parent.mkdir(parents=True, exist_ok=True)
                    client.download_file(bucket, obj["Key"], str(target))
                    count += 1
            if count == 0 and key and not key.endswith("/"):  # obs://bucket/data.csv: one file
                bucket_, one = split_obs_path(obs_path)
                try:
                    client.download_file(bucket_, one, str(dest / Path(one).name))
                    count = 1
                except ClientError as err:
                    if err.response.get("ResponseMetadata", {}).get("HTTPStatusCode") != 404:
                        raise
        except ClientError as err:
            code = err.response.get("Error", {}).get("Code", "?")
            if code == "NoSuchBucket":
                raise TransferError(f"{obs_path}: the bucket {bucket} does not exist in OBS") from None
            raise TransferError(f"downloading {obs_path}: {code}") from None
        except BotoCoreError as err:
            raise TransferError(f"downloading {obs_path}: {type(err).__name__}") from None
        return count

    def upload_dir(self, src: Path, obs_path: str) -> int:
        """Every file under ``src`` to ``obs_path`` + its relative path; the number of files."""
        from botocore.exceptions import BotoCoreError, ClientError

        bucket, key = _split(obs_path)
        prefix = key if (not key or key.endswith("/")) else key + "/"
        client = _client(*self._args)
        count = 0
        try:
            for path in sorted(p for p in src.rglob("*") if p.is_file()):
                client.upload_file(str(path), bucket, prefix + path.relative_to(src).as_posix())
                count += 1
        except ClientError as err:
            code = err.response.get("Error", {}).get("Code", "?")
            raise TransferError(f"uploading to {obs_path}: {code}") from None
        except (BotoCoreError, OSError) as err:
            raise TransferError(f"uploading to {obs_path}: {type(err).__name__}") from None
        return count

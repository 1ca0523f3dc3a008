"""Does an object exist in an OBS (the local one or any S3-compatible endpoint)?

For the ModelArts emulator: fail a job whose boot file is not in OBS, as the real service does.

    from local_cloud.obs_probe import object_exists, split_obs_path

    bucket, key = split_obs_path("obs://my-bucket/code/mnist/1a2b/train.py")  # or "/my-bucket/..."
    if not object_exists("http://127.0.0.1:8781", bucket, key, access_key, secret_key):
        ...  # the job fails

One HEAD request (SigV4, path-style, 2 s connect / 5 s read timeouts, no retries: the caller decides).
True on 200, False on 404 (NoSuchKey or NoSuchBucket); any other answer or a connection failure
raises ``ProbeError`` (one line, no secrets): "cannot tell" is not "absent".
"""

from __future__ import annotations

import functools
from typing import Any

__all__ = ["ProbeError", "object_exists", "split_obs_path"]


class ProbeError(RuntimeError):
    """The OBS could not answer whether the object exists."""


def split_obs_path(path: str) -> tuple[str, str]:
    """``obs://bucket/key`` or ``/bucket/key`` (the ModelArts API's two spellings) -> (bucket, key)."""
    rest = path[len("obs://"):] if path.startswith("obs://") else path.lstrip("/")
    bucket, _, key = rest.partition("/")
    if not bucket or not key:
        raise ValueError(f"{path!r} is not an OBS object path (expected obs://bucket/key or /bucket/key)")
    return bucket, key


@functools.lru_cache(maxsize=8)
def _client(endpoint: str, access_key: str, secret_key: str, region: str) -> Any:
    import boto3
    from botocore.config import Config

    return boto3.client(
        "s3", endpoint_url=endpoint, region_name=region, aws_access_key_id=access_key,
        aws_secret_access_key=secret_key,
        config=Config(s3={"addressing_style": "path"}, signature_version="s3v4",
                      connect_timeout=2, read_timeout=5, retries={"mode": "standard", "total_max_attempts": 1},
                      request_checksum_calculation="when_required",
                      response_checksum_validation="when_required"))


def object_exists(obs_endpoint: str, bucket: str, key: str, access_key: str, secret_key: str,
                  *, region: str = "cn-north-4") -> bool:
    from botocore.exceptions import BotoCoreError, ClientError

    try:
        _client(obs_endpoint.rstrip("/"), access_key, secret_key, region).head_object(Bucket=bucket, Key=key)
        return True
    except ClientError as err:
        status = err.response.get("ResponseMetadata", {}).get("HTTPStatusCode")
        if status == 404:
            return False
        code = err.response.get("Error", {}).get("Code", "?")
        raise ProbeError(f"OBS HEAD {bucket}/{key}: {code} (HTTP {status})") from None
    except BotoCoreError as err:
        raise ProbeError(f"OBS HEAD {bucket}/{key}: {type(err).__name__}") from None

"""``ObsClient``: the few OBS operations the provider needs, on botocore (S3-compatible API).

* One botocore client per ObsClient: thread-safe for calls, one urllib3 pool of ``pool_size``
  keep-alive connections shared by every upload thread.
* Path-style addressing and SigV4: what OBS and the local OBS both accept; temporary credentials
  send their security token as ``x-amz-security-token``.
* Retries: botocore's standard mode (``max_attempts`` tries, exponential backoff with jitter) on
  throttling, 500/502/503/504 and connection errors. Every operation here is safe to repeat: PUT of
  the same bytes to the same key, GET/HEAD/LIST, DELETE, and bucket creation (a repeat answers
  BucketAlreadyOwnedByYou, taken as success).
* Checksums only when an operation requires one (``when_required``): botocore >= 1.36 otherwise adds
  CRC32 trailers (aws-chunked uploads) that S3-compatible services such as OBS do not all accept.
  Uploads carry Content-MD5 instead, which OBS verifies.
* Every failure is an ``ObsError``: one line with the operation, bucket/key and the S3 error code.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

from pydantic import BaseModel, ConfigDict

from .errors import CLIENT_CONNECTION, CLIENT_TIMEOUT, ObsError, bare_status_code
from .settings import ObsSettings

__all__ = ["ObjectInfo", "ObsClient"]

USER_AGENT = "modelarts-pulumi-obs/0.1"


class ObjectInfo(BaseModel):
    model_config = ConfigDict(frozen=True)

    key: str
    size: int
    etag: str  # without quotes; the MD5 hex of the bytes for a single-PUT object


class ListingPage(NamedTuple):
    """One page of a ListObjects (v1) answer, however it was read."""

    objects: list[ObjectInfo]
    truncated: bool
    next_marker: str | None  # given only with a delimiter: else the page's last key goes on


def listed(page_at: Callable[[str], ListingPage]) -> Iterator[ObjectInfo]:
    """Every object of a listing paged by marker: `page_at(marker)` reads one page ("" the first)."""
    marker = ""
    while True:
        page = page_at(marker)
        yield from page.objects
        if not page.truncated or not page.objects:
            return
        marker = page.next_marker or page.objects[-1].key


class ObsClient:
    def __init__(self, settings: ObsSettings) -> None:
        # botocore's own session, not boto3's: boto3 adds only resources and s3transfer's managed transfers, which
        # nothing here uses, and importing them costs 0.15 s of every command that reads OBS (issue 56).
        import botocore.session
        from botocore.config import Config

        self.settings = settings
        verify: bool | str = (settings.ca_bundle or True) if settings.verify_tls else False
        self._s3 = botocore.session.Session().create_client(
            "s3", endpoint_url=settings.endpoint, region_name=settings.region,
            aws_access_key_id=settings.access_key,
            aws_secret_access_key=settings.secret_key.get_secret_value(),
            aws_session_token=settings.security_token.get_secret_value() if settings.security_token else None,
            verify=verify,
            config=Config(
                s3={"addressing_style": settings.addressing_style}, signature_version="s3v4",
                retries={"mode": "standard", "total_max_attempts": settings.max_attempts},
                max_pool_connections=settings.pool_size, tcp_keepalive=True,
                connect_timeout=settings.connect_timeout, read_timeout=settings.read_timeout,
                request_checksum_calculation="when_required",
                response_checksum_validation="when_required",
                user_agent_extra=USER_AGENT))
        # Listings go without EncodingType=url (botocore adds it by default): OBS's marker paging
        # does not work with it (rclone's HuaweiOBS quirk); keys come back as they are.
        from botocore.handlers import set_list_objects_encoding_type_url

        self._s3.meta.events.unregister("before-parameter-build.s3.ListObjects",
                                        set_list_objects_encoding_type_url)

    @property
    def endpoint(self) -> str:
        return self.settings.endpoint

    def close(self) -> None:
        self._s3.close()

    # --- buckets ----------------------------------------------------------------------------------

    def bucket_exists(self, bucket: str) -> bool:
        """True when the bucket exists and we may use it; False when OBS says NoSuchBucket.

        HEAD answers have no body, so its 404 cannot tell a missing bucket from a wrong endpoint: a 404
        is confirmed by a LIST, whose answer names the code (one more call, only when HEAD said 404)."""
        try:
            self._call("head_bucket", bucket, None, Bucket=bucket)
            return True
        except ObsError as err:
            if err.status != 404:
                raise
        return self._unless("NoSuchBucket", "list_objects", bucket, Bucket=bucket, MaxKeys=1)

    def create_bucket(self, bucket: str) -> bool:
        """Create it in the settings' region. True: created now; False: it already was ours."""
        return self._unless("BucketAlreadyOwnedByYou", "create_bucket", bucket, Bucket=bucket,
                            CreateBucketConfiguration={"LocationConstraint": self.settings.region})

    def delete_bucket(self, bucket: str) -> bool:
        """False when it was already gone. A bucket that still holds objects raises (BucketNotEmpty)."""
        return self._unless("NoSuchBucket", "delete_bucket", bucket, Bucket=bucket)

    def bucket_tags(self, bucket: str) -> dict[str, str]:
        """The bucket's tags (OBS's bucket tagging, S3's API); none: {}."""
        try:
            answer = self._call("get_bucket_tagging", bucket, None, Bucket=bucket)
        except ObsError as err:
            if err.code in ("NoSuchTagSet", "NoSuchTagSetError"):
                return {}
            raise
        return {t["Key"]: t["Value"] for t in answer.get("TagSet", [])}

    def add_bucket_tags(self, bucket: str, tags: dict[str, str]) -> None:
        """`tags` set on the bucket beside the ones it has (the API replaces the whole set: read, merged, written)."""
        merged = {**self.bucket_tags(bucket), **tags}
        self._call("put_bucket_tagging", bucket, None, Bucket=bucket,
                   Tagging={"TagSet": [{"Key": k, "Value": v} for k, v in sorted(merged.items())]})

    def _unless(self, code: str, op: str, bucket: str, **params: Any) -> bool:
        """True when the bucket call succeeds; False when OBS answers `code` (the outcome was already so)."""
        try:
            self._call(op, bucket, None, **params)
            return True
        except ObsError as err:
            if err.code == code:
                return False
            raise

    # --- objects ----------------------------------------------------------------------------------

    def iter_objects(self, bucket: str, prefix: str = "", page_size: int = 1000) -> Iterator[ObjectInfo]:
        """Every object under the prefix, in key order, one LIST per page of ``page_size``.

        ListObjects (v1, marker paging): OBS parallel file system buckets do not support v2.
        """
        def page_at(marker: str) -> ListingPage:
            page = self._call("list_objects", bucket, prefix or None, Bucket=bucket, Prefix=prefix,
                              MaxKeys=page_size, Marker=marker)
            return ListingPage([ObjectInfo(key=item["Key"], size=int(item["Size"]), etag=item["ETag"].strip('"'))
                                for item in page.get("Contents", [])],
                               bool(page.get("IsTruncated")), page.get("NextMarker"))

        return listed(page_at)

    def has_objects(self, bucket: str, prefix: str = "") -> bool:
        return next(self.iter_objects(bucket, prefix, page_size=1), None) is not None

    def head_object(self, bucket: str, key: str) -> ObjectInfo | None:
        """The object's size and etag, or None on a 404. Only used to skip uploading what is there:
        never to decide that something is gone (a wrong endpoint then fails at the upload)."""
        try:
            r = self._call("head_object", bucket, key, Bucket=bucket, Key=key)
        except ObsError as err:
            if err.status == 404:
                return None
            raise
        return ObjectInfo(key=key, size=int(r["ContentLength"]), etag=r["ETag"].strip('"'))

    def get_bytes(self, bucket: str, key: str) -> bytes | None:
        try:
            r = self._call("get_object", bucket, key, Bucket=bucket, Key=key)
        except ObsError as err:
            if err.not_found:
                return None
            raise
        return r["Body"].read()

    def get_file(self, bucket: str, key: str, path: Path) -> None:
        """One object into a local file, streamed (a model may not fit in memory twice)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        r = self._call("get_object", bucket, key, Bucket=bucket, Key=key)
        with path.open("wb") as f:
            for chunk in r["Body"].iter_chunks(1 << 20):
                f.write(chunk)

    def put_file(self, bucket: str, key: str, path: Path, md5_hex: str,
                 content_type: str = "application/octet-stream") -> ObjectInfo:
        """Upload one file in one PUT (Content-MD5 checked by the service); its ETag is then md5_hex."""
        with open(path, "rb") as body:  # a seekable body: botocore rewinds it for a retry
            r = self._call("put_object", bucket, key, Bucket=bucket, Key=key, Body=body,
                           ContentMD5=base64.b64encode(bytes.fromhex(md5_hex)).decode(),
                           ContentType=content_type)
        return ObjectInfo(key=key, size=path.stat().st_size, etag=r["ETag"].strip('"'))

    def put_bytes(self, bucket: str, key: str, data: bytes,
                  content_type: str = "application/octet-stream") -> ObjectInfo:
        import hashlib

        md5 = hashlib.md5(data)  # noqa: S324 - Content-MD5 is an integrity check, not security
        r = self._call("put_object", bucket, key, Bucket=bucket, Key=key, Body=data,
                       ContentMD5=base64.b64encode(md5.digest()).decode(), ContentType=content_type)
        return ObjectInfo(key=key, size=len(data), etag=r["ETag"].strip('"'))

    def delete_object(self, bucket: str, key: str) -> None:
        """Idempotent: deleting a missing key succeeds (as S3 and OBS answer 204)."""
        self._call("delete_object", bucket, key, Bucket=bucket, Key=key)

    def delete_keys(self, bucket: str, keys: Iterable[str], parallelism: int = 8) -> int:
        """Delete many keys, ``parallelism`` at a time; the first failure is raised after the rest.

        One DeleteObject each rather than DeleteObjects: its required body checksum is sent by
        botocore >= 1.36 as CRC32, which not every S3-compatible service accepts.
        """
        from concurrent.futures import ThreadPoolExecutor

        todo = list(keys)
        if not todo:
            return 0
        with ThreadPoolExecutor(max_workers=min(parallelism, len(todo)), thread_name_prefix="obs-del") as pool:
            futures = [pool.submit(self.delete_object, bucket, k) for k in todo]
        for future in futures:
            future.result()
        return len(todo)

    # --- one call ---------------------------------------------------------------------------------

    def _call(self, op: str, bucket: str | None, key: str | None, **kw: Any) -> Any:
        from botocore.exceptions import (BotoCoreError, ClientError, ConnectTimeoutError,
                                         ReadTimeoutError)

        try:
            return getattr(self._s3, op)(**kw)
        except ClientError as err:
            meta = err.response.get("ResponseMetadata", {})
            error = err.response.get("Error", {})
            status = meta.get("HTTPStatusCode")
            # HEAD answers carry no body: name the status in S3's words
            code = error.get("Code") or "Unknown"
            if code.isdigit():
                code = bare_status_code(code)
            headers = meta.get("HTTPHeaders", {})
            request_id = (meta.get("RequestId") or headers.get("x-obs-request-id")
                          or headers.get("x-amz-request-id"))
            raise ObsError(op, bucket, key, code, status=status, message=error.get("Message", ""),
                           request_id=request_id, secrets=self.settings.secrets()) from None
        except (ConnectTimeoutError, ReadTimeoutError) as err:
            raise ObsError(op, bucket, key, CLIENT_TIMEOUT, message=f"{type(err).__name__}: {err}",
                           secrets=self.settings.secrets()) from None
        except BotoCoreError as err:
            raise ObsError(op, bucket, key, CLIENT_CONNECTION, message=f"{type(err).__name__}: {err}",
                           secrets=self.settings.secrets()) from None

"""OBS's own API dialect, spoken by a client that signs with OBS's scheme (``Authorization: OBS AK:sig``):
``x-obs-`` headers where the S3 dialect has ``x-amz-`` (user metadata ``x-obs-meta-*``, ``x-obs-acl``,
``x-obs-request-id``, ``x-obs-version-id``...), and a bucket's region as ``<Location>`` in CreateBucketConfiguration
where S3 has ``<LocationConstraint>`` (OBS API reference, "Creating a Bucket"; esdk-obs-python's OBS convertor
writes and reads exactly these). moto speaks S3 only, so an OBS-signed request is translated before moto sees it
and its answer's headers after, once the signature (over the headers as sent) has been verified.
"""

from __future__ import annotations

import re

OBS_PREFIX = "x-obs-"
S3_PREFIX = "x-amz-"
_LOCATION_RE = re.compile(rb"<(/?)Location>")


def speaks_obs(authorization: str) -> bool:
    return authorization.split(" ", 1)[0] == "OBS"


def request_header_name(name: str) -> str:
    """``x-obs-meta-epoch`` -> ``x-amz-meta-epoch``; any other name unchanged (case kept)."""
    if name.lower().startswith(OBS_PREFIX):
        return S3_PREFIX + name[len(OBS_PREFIX):]
    return name


def response_headers(headers: list[tuple[str, str]]) -> list[tuple[str, str]]:
    return [(OBS_PREFIX + name[len(S3_PREFIX):] if name.lower().startswith(S3_PREFIX) else name, value)
            for name, value in headers]


def create_bucket_body(body: bytes) -> bytes:
    """``<Location>`` -> ``<LocationConstraint>`` (the element OBS's dialect names the region with)."""
    return _LOCATION_RE.sub(rb"<\1LocationConstraint>", body)

"""The header signatures of OBS's own scheme (``Authorization: OBS AK:signature``) and of AWS signature V2
(``Authorization: AWS AK:signature``), which the real OBS accepts beside SigV4 (OBS API reference, "User Signature
Authentication" / "Authentication of Signature in a Header"; esdk-obs-python signs with one of them by default).

signature = Base64(HMAC-SHA1(SK, StringToSign)), StringToSign =
``VERB\\nContent-MD5\\nContent-Type\\nDate\\nCanonicalizedHeaders CanonicalizedResource``:

- Date: the ``Date`` header, or empty when ``x-obs-date`` (OBS) / ``x-amz-date`` (AWS) is sent, which then
  counts as the request time and is signed among the headers;
- CanonicalizedHeaders: every ``x-obs-`` (OBS) or ``x-amz-`` (AWS) header, names lower-cased, sorted, one
  ``name:value`` line each (repeated values joined with ',');
- CanonicalizedResource: ``/bucket/key`` as sent (path style: the local OBS serves no virtual-hosted names), then
  the sub-resources among the query parameters, sorted, ``?a&b=v``.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from collections.abc import Mapping
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from urllib.parse import parse_qsl

SCHEMES = {"OBS": "x-obs-", "AWS": "x-amz-"}  # scheme -> the prefix of the headers it signs
# The sub-resources that enter the signed resource (the OBS and S3 V2 lists: the rest of the query does not).
SUB_RESOURCES = frozenset({
    "acl", "append", "attname", "backtosource", "cors", "customdomain", "delete", "deletebucket", "directcoldaccess",
    "encryption", "inventory", "length", "lifecycle", "location", "logging", "metadata", "modify", "name",
    "notification", "partNumber", "policy", "position", "quota", "rename", "replication", "requestPayment",
    "response-cache-control", "response-content-disposition", "response-content-encoding",
    "response-content-language", "response-content-type", "response-expires", "restore", "storageClass",
    "storagePolicy", "storageinfo", "tagging", "torrent", "truncate", "uploadId", "uploads", "versionId",
    "versioning", "versions", "website", "x-image-process", "x-image-save-bucket", "x-image-save-object",
    "x-obs-security-token", "object-lock", "retention"})


def string_to_sign(scheme: str, method: str, raw_path: str, raw_query: str, headers: Mapping[str, str]) -> str:
    """``headers``: lower-case names."""
    prefix = SCHEMES[scheme]
    date = "" if prefix + "date" in headers else headers.get("date", "")
    signed = sorted((k, " ".join(v.split())) for k, v in headers.items() if k.startswith(prefix))
    canonical_headers = "".join(f"{k}:{v}\n" for k, v in signed)
    subs = sorted((k, v) for k, v in parse_qsl(raw_query, keep_blank_values=True) if k in SUB_RESOURCES)
    resource = (raw_path or "/") + ("?" + "&".join(f"{k}={v}" if v else k for k, v in subs) if subs else "")
    return "\n".join([method.upper(), headers.get("content-md5", ""), headers.get("content-type", ""), date,
                      canonical_headers + resource])


def signature(secret_key: str, text: str) -> str:
    return base64.b64encode(hmac.new(secret_key.encode(), text.encode(), hashlib.sha1).digest()).decode()


def request_time(scheme: str, headers: Mapping[str, str]) -> datetime | None:
    """The signed request time: x-obs-date / x-amz-date, else Date (RFC 1123)."""
    value = headers.get(SCHEMES[scheme] + "date") or headers.get("date") or ""
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return when if when.tzinfo else when.replace(tzinfo=timezone.utc)

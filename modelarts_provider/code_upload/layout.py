"""Where an upload lives in OBS: ``<prefix>/<job key>/<owner token>/<hash[:16]>/`` plus a sibling marker.

The owner token (a RandomId of the CodeUpload resource, in its state before anything is uploaded) makes
the prefix this resource's own: two stacks uploading the same job key never share objects, so one
stack's destroy cannot delete what the other's jobs read. Uploads made before the token existed keep
their ``<prefix>/<job key>/<hash[:16]>/`` (recorded in their outputs).

The marker (``<prefix>/<job key>/<hash[:16]>.complete.json``) is written after the last file and
deleted before the first: a prefix without it is partial (being uploaded or removed) and is never
handed to a job. It sits beside the code directory, not in it, so the training container never sees
it (ModelArts downloads the code directory into every container).
"""

from __future__ import annotations

__all__ = ["SHORT_HASH", "code_prefix", "marker_key", "obs_url"]

SHORT_HASH = 16  # hex characters of the content hash in the key (64 bits)


def _base(prefix: str, job_key: str, content_hash: str, owner_token: str | None) -> str:
    parts = [p for p in (prefix.strip("/"), job_key, owner_token, content_hash[:SHORT_HASH]) if p]
    return "/".join(parts)


def code_prefix(prefix: str, job_key: str, content_hash: str, owner_token: str | None = None) -> str:
    return _base(prefix, job_key, content_hash, owner_token) + "/"


def marker_key(prefix: str, job_key: str, content_hash: str, owner_token: str | None = None) -> str:
    return _base(prefix, job_key, content_hash, owner_token) + ".complete.json"


def key_of(bucket: str, url: str) -> str:
    """The key of an ``obs://bucket/key`` URL (a recorded output)."""
    return url.removeprefix(f"obs://{bucket}/")


def obs_url(bucket: str, key: str) -> str:
    return f"obs://{bucket}/{key}"

"""Where an upload lives in OBS: ``<prefix>/<job key>/<hash[:16]>/`` plus a sibling marker.

The marker (``<prefix>/<job key>/<hash[:16]>.complete.json``) is written after the last file and
deleted before the first: a prefix without it is partial (being uploaded or removed) and is never
handed to a job. It sits beside the code directory, not in it, so the training container never sees
it (ModelArts downloads the code directory into every container).
"""

from __future__ import annotations

__all__ = ["SHORT_HASH", "code_prefix", "marker_key", "obs_url"]

SHORT_HASH = 16  # hex characters of the content hash in the key (64 bits)


def _base(prefix: str, job_key: str, content_hash: str) -> str:
    parts = [p for p in (prefix.strip("/"), job_key, content_hash[:SHORT_HASH]) if p]
    return "/".join(parts)


def code_prefix(prefix: str, job_key: str, content_hash: str) -> str:
    return _base(prefix, job_key, content_hash) + "/"


def marker_key(prefix: str, job_key: str, content_hash: str) -> str:
    return _base(prefix, job_key, content_hash) + ".complete.json"


def obs_url(bucket: str, key: str) -> str:
    return f"obs://{bucket}/{key}"

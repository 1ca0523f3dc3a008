"""OBS locations as the service spells them: ``obs://bucket/path/`` and ``/bucket/path/``.

Apart from the wire models (models.py) because nothing here needs pydantic: the command-line tools (``outputs``)
read OBS paths without loading the models (a seventh of a second; issue 56: under a second).
"""

from __future__ import annotations

from typing import Optional


def normalize_obs_path(value: Optional[str]) -> Optional[str]:
    """``/bucket/path/`` or ``obs://bucket/path/`` -> ``obs://bucket/path/`` (other values unchanged).

    A trailing ``/`` (directory) is preserved; repeated slashes after the bucket are collapsed.
    """
    if not isinstance(value, str):
        return value  # None, or a number kept by the tolerance rule
    v = value.strip()
    if v.lower().startswith("obs://"):
        rest = v[6:]
    elif v.startswith("/") and not v.startswith("//"):
        rest = v[1:]
    else:
        return value
    trailing = rest.endswith("/")
    parts = [p for p in rest.split("/") if p]
    if not parts:
        return value
    out = "obs://" + "/".join(parts)
    return out + "/" if trailing and len(parts) >= 1 else out


def obs_path_to_bucket_form(value: Optional[str]) -> Optional[str]:
    """``obs://bucket/path/`` -> ``/bucket/path/`` (the form the service often returns)."""
    norm = normalize_obs_path(value)
    if not isinstance(norm, str) or not norm.startswith("obs://"):
        return norm
    return "/" + norm[6:]


def same_obs_path(a: Optional[str], b: Optional[str]) -> bool:
    return normalize_obs_path(a) == normalize_obs_path(b)

"""The Bucket dynamic resource (resource.py): create or use an OBS bucket."""

from __future__ import annotations

from importlib import import_module
from typing import Any

__all__ = ["Bucket", "BucketInputs", "BucketProvider"]

_WHERE = {"Bucket": ".resource", "BucketInputs": ".resource", "BucketProvider": ".provider"}


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(import_module(_WHERE[name], __name__), name)
    raise AttributeError(name)

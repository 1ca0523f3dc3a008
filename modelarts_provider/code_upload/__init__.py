"""Code from a local directory, through OBS: the CodeUpload dynamic resource (resource.py).

Modules: excludes (which files), manifest (scan, content hash), layout (OBS keys), args (provider
inputs/outputs), check (preview validation), transfer (parallel upload, marker, removal), provider.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

__all__ = ["CodeUpload", "CodeUploadInputs", "CodeUploadProvider"]

_WHERE = {"CodeUpload": ".resource", "CodeUploadInputs": ".resource", "CodeUploadProvider": ".provider"}


def __getattr__(name: str) -> Any:  # lazy: the hashing modules are usable without Pulumi
    if name in _WHERE:
        return getattr(import_module(_WHERE[name], __name__), name)
    raise AttributeError(name)

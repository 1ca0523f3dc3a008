"""A CodeUpload's constructor arguments -> the provider's inputs: what the program computes from the local
directory (its absolute path, content hash, file count and size).

Shared by both front doors: the Python `CodeUpload` resource calls it in the program, the provider plugin
(modelarts_provider.plugin) in check(), in the directory the engine runs both in (the Pulumi project).
The owner token is added by the caller (a RandomId in the program; the plugin's own random in check).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .manifest import Limits, ScanError, digest, scan, source_of

ARGS = frozenset({"local_dir", "boot_file", "bucket", "prefix", "job_key", "excludes", "max_total_bytes",
                  "max_files", "parallelism"})


def provider_inputs(resource_name: str, given: Mapping[str, Any]) -> dict[str, Any]:
    local_dir = str(given.get("local_dir") or "")
    boot_file = str(given.get("boot_file") or "").removeprefix("./")
    excludes = list(given.get("excludes") or [])
    limits = {k: given[k] for k in ("max_total_bytes", "max_files") if given.get(k) is not None}
    props: dict[str, Any] = {
        "local_dir": local_dir,
        "source_path": str(source_of(local_dir)) if local_dir else "",
        "bucket": given.get("bucket"),
        "prefix": given.get("prefix") if given.get("prefix") is not None else "code",
        "job_key": given.get("job_key") if given.get("job_key") is not None else resource_name,
        "boot_file_path": boot_file,
        "excludes": excludes,
        "parallelism": given.get("parallelism") if given.get("parallelism") is not None else 8,
        **limits,
    }
    props.update(_content(props["source_path"], local_dir, excludes, limits))
    return props


def _content(source: str, shown: str, excludes: list[str], limits: dict[str, Any]) -> dict[str, Any]:
    """content_hash, file_count, total_bytes; None each when the directory cannot be used (check()
    then names the problem at preview, instead of a traceback from the program)."""
    try:
        lim = Limits(**limits)
        manifest = scan(Path(source), shown, excludes, lim)
        return {"content_hash": digest(Path(source), manifest).content_hash,
                "file_count": len(manifest.files), "total_bytes": manifest.total_bytes}
    except (ScanError, ValueError, OSError):
        return {"content_hash": None, "file_count": None, "total_bytes": None}

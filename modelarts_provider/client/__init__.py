"""ModelArts client (no Pulumi imports): typed wire models, AK/SK and IAM-token auth, endpoints,
safe retries and clear errors. See docs/ARCHITECTURE.md ("Client contract").

The names below are loaded on first use (PEP 562): a module that needs only the wire models, the errors or the
clouds table (`from modelarts_provider.client.models import ...`) does not pull in the HTTP stack (requests,
the signer, the pool, search and tag operations). The stack program is such a module's importer: it runs once
per engine command and needs no connection (core/collector.py has the measure of what start-up costs).
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS: dict[str, tuple[str, ...]] = {
    ".api": ("ModelArtsClient",),
    ".auth": ("AkSkCredentials", "IamPasswordCredentials", "Credentials", "IamTokenAuth"),
    ".signer": ("SdkHmacAuth",),
    ".endpoints": ("Endpoints", "modelarts_endpoint", "iam_endpoint", "resolve_endpoints"),
    ".errors": ("ModelArtsError",),
    ".settings": ("ClientSettings",),
    ".models": (
        "Phase", "ACTIVE_PHASES", "FAILED_PHASES", "TERMINAL_PHASES", "CreateTrainingJobRequest", "TrainingJob",
        "JobMetadata", "JobAlgorithm", "JobSpec", "JobStatus", "Resource", "Engine", "Parameter", "Policies",
        "Input", "InputRemote", "Output", "OutputRemote", "ObsLocation", "DatasetLocation", "LogExportPath",
        "Volume", "Nfs", "AutoStop", "Task", "TaskStatus", "as_list", "as_text", "normalize_environments",
        "normalize_obs_path", "obs_path_to_bucket_form", "same_obs_path",
    ),
}
_WHERE = {name: module for module, names in _EXPORTS.items() for name in names}

__all__ = list(_WHERE)


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        value = getattr(import_module(_WHERE[name], __name__), name)
        globals()[name] = value  # once loaded, a plain module attribute
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))

"""Pulumi dynamic provider for ModelArts training jobs (Huawei Cloud, Open Telekom Cloud).

Public names: TrainingJob (the resource), TrainingJobArgs (validated args), TrainingJobProvider.
Imports of Pulumi stay here and out of `client/`, which has no Pulumi dependency.
"""

from __future__ import annotations

from typing import Any

__all__ = ["TrainingJob", "TrainingJobArgs", "TrainingJobInputs", "TrainingJobProvider"]


def __getattr__(name: str) -> Any:
    # Lazy: `import modelarts_provider.client` (emulator, client tests) must not pull in Pulumi.
    if name in ("TrainingJob", "TrainingJobInputs"):
        from . import resource

        return getattr(resource, name)
    if name == "TrainingJobArgs":
        from .args import TrainingJobArgs

        return TrainingJobArgs
    if name == "TrainingJobProvider":
        from .provider import TrainingJobProvider

        return TrainingJobProvider
    raise AttributeError(name)

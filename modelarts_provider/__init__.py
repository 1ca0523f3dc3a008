"""Pulumi dynamic provider for ModelArts training jobs (Huawei Cloud, Open Telekom Cloud).

Public names: TrainingJob (submits a job), JobsAwait / await_jobs (waits for many jobs at once),
CodeUpload (a local directory uploaded to OBS), Bucket, Network and ResourcePool (a dedicated pool the
stack creates), TrainingJobArgs (validated args), and the providers.
Layout: stack/ (stack config -> args), training_job/, awaiting/ (one folder per resource), client/
(the ModelArts client, no Pulumi imports).
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from .core.collector import imports_done

__all__ = ["Bucket", "BucketProvider", "CodeUpload", "CodeUploadProvider", "JobsAwait", "JobsAwaitProvider",
           "TrainingJob", "TrainingJobArgs", "TrainingJobInputs", "TrainingJobProvider", "await_jobs",
           "Network", "NetworkProvider", "ResourcePool", "ResourcePoolProvider"]

# Lazy: `import modelarts_provider.client` (emulator, client tests) must not pull in Pulumi.
_WHERE = {
    "TrainingJob": ".training_job.resource", "TrainingJobInputs": ".training_job.resource",
    "TrainingJobArgs": ".training_job.args", "TrainingJobProvider": ".training_job.provider",
    "JobsAwait": ".awaiting.resource", "await_jobs": ".awaiting.resource",
    "JobsAwaitProvider": ".awaiting.provider",
    "CodeUpload": ".code_upload.resource", "CodeUploadProvider": ".code_upload.provider",
    "Bucket": ".bucket.resource", "BucketProvider": ".bucket.provider",
    # dedicated pools and networks (issue 24)
    "Network": ".network.resource", "NetworkProvider": ".network.provider",
    "ResourcePool": ".resource_pool.resource", "ResourcePoolProvider": ".resource_pool.provider",
}


# The first touch of this package in a process (the program, the dynamic provider, the plugin, a CLI tool):
# what came before (Pulumi, the standard library) is in for good.
imports_done()


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(import_module(_WHERE[name], __name__), name)
    raise AttributeError(name)

"""The service downloads a job's code from OBS when the job starts: a boot file that is not there fails
the job. When the emulator is told where the local OBS is (`--obs-endpoint`), it does the same, so the
path from a local directory through OBS to a running job is tested end to end.
"""

from __future__ import annotations

import dataclasses

from ..jobs.validation import JobDraft

EXIT_CODE = 2  # what a Python process exits with when its script file does not exist


def boot_file_of(draft: JobDraft) -> str | None:
    """The OBS path of the draft's boot file (own code on OBS), or None (algorithm id, image, file://).

    An algorithm from algorithm management or a subscription brings its own code (the catalog's
    boot file is echoed, not the user's): only own code is checked."""
    alg = draft.algorithm or {}
    if alg.get("id") or alg.get("subscription_id"):
        return None
    boot = alg.get("boot_file")
    if isinstance(boot, str) and (boot.startswith("obs://") or (boot.startswith("/") and not boot.startswith("//"))):
        return boot
    return None


def check_boot_file(draft: JobDraft, endpoint: str, access_key: str, secret_key: str) -> JobDraft:
    """The draft unchanged when its boot file is in OBS; else a draft of a job that fails at start,
    with a message naming the file. OBS that cannot answer is not a verdict: the job runs."""
    from local_cloud.obs_probe import ProbeError, object_exists, split_obs_path

    boot = boot_file_of(draft)
    if boot is None:
        return draft
    try:
        bucket, key = split_obs_path(boot)
        if object_exists(endpoint, bucket, key, access_key, secret_key):
            return draft
    except (ProbeError, ValueError):
        return draft
    message = f"The boot file {boot} does not exist in OBS: the code directory could not be downloaded."
    return dataclasses.replace(draft, outcome="fail", exit_code=EXIT_CODE, message=message,
                               run_seconds=0.0)

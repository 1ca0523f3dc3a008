"""modelarts-jobs: ModelArts training jobs declared in stack config.

Reads the typed stack config (schema: modelarts_provider/stack_config.py; provider settings:
modelarts_provider/provider_config.py), validates all of it before any resource is declared (so a
bad key or value fails `pulumi preview` with one line naming it and no API call), declares one
TrainingJob per job and per sweep point, and exports per job its id, name, phase and output path:

    jobs: {<job key>: {id, name, phase, outputPath}}
"""

from __future__ import annotations

import os

import pulumi
from pulumi.runtime.config import CONFIG, get_config_env

from modelarts_provider import TrainingJob
from modelarts_provider.program import plan
from modelarts_provider.provider_config import NAMESPACE, ProviderConfigError, resolve_settings, unknown_keys
from modelarts_provider.stack_config import PROJECT, SECTIONS, StackConfigError, parse


def _all_config_keys() -> list[str]:
    return sorted(set(CONFIG.get()) | set(get_config_env()))


def main() -> None:
    keys = _all_config_keys()
    try:
        bad = unknown_keys(keys)
        if bad:
            raise ProviderConfigError(f"unknown provider setting {', '.join(bad)}")
        provider_cfg = pulumi.Config(NAMESPACE)
        resolve_settings(provider_cfg.get, os.environ)  # validated here; the provider re-reads it
        project_cfg = pulumi.Config(PROJECT)
        raw = {}
        for section in SECTIONS:
            try:
                raw[section] = project_cfg.get_object(section)
            except Exception:  # not JSON: a plain string where a map is expected
                raise StackConfigError(f"invalid stack config: {PROJECT}:{section} must be a map") from None
        plans = plan(parse(raw, keys))
    except (ProviderConfigError, StackConfigError) as err:
        raise pulumi.RunError(str(err)) from None

    exports = {}
    for p in plans:
        job = TrainingJob(p.key, p.args)
        exports[p.key] = {"id": job.job_id, "name": job.job_name, "phase": job.phase,
                          "outputPath": job.output_path}
    pulumi.export("jobs", exports)


main()

"""The local clouds for a test whose jobs run their own code: the local OBS, the local ModelArts in execution mode
(--execute: each job's uploaded script runs as a process, its stdout the task's log) reading and writing that OBS,
and the `modelarts:` settings that reach both (docs/local-execution.md). One `with` instead of four lines per test.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from testkit.faults import provider_config


@dataclass(frozen=True)
class Clouds:
    emu: Any  # modelarts_emulator.testing's running emulator
    obs: Any  # obs_emulator.testing's running OBS
    plain: dict[str, str]  # plain `modelarts:` config (region, project, endpoints, access key)
    secrets: dict[str, str]  # secret `modelarts:` config (the secret key)


@contextmanager
def executing_clouds(base: Path, phase_seconds: float = 0.2) -> Iterator[Clouds]:
    """Both services under `base` (stopped on exit) and the provider settings for them."""
    from modelarts_emulator.testing import running_emulator
    from obs_emulator.testing import running_obs

    with running_obs(base / "obs") as obs, running_emulator(base / "emulator", phase_seconds=phase_seconds,
                                                            obs_endpoint=obs.url, execute=True) as emu:
        plain, secrets = provider_config(emu)
        yield Clouds(emu=emu, obs=obs, plain={**plain, "modelarts:obsEndpoint": obs.url}, secrets=secrets)

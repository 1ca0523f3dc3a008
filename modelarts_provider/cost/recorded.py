"""What the stack's state records of its jobs, for the stack program: each TrainingJob's recorded `auto_stop`.

A derived limit (cost/enforced.py) must not replace a job the state already records (a change of
`spec.auto_stop` replaces a job), so the program needs to know which jobs are recorded and with which limit. The
state is read once per program run (`pulumi stack export` of this stack, which an `up` writes after every step),
only under the engine and only when some job's limit is derived; outside the engine (unit tests) nothing is
recorded.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

EXPORT_TIMEOUT_S = 120


class Recorded:
    """{resource name: recorded auto_stop hours (None: none)} of this stack's TrainingJobs; `readable` False when
    the state could not be read (then every job is taken as recorded without a limit: nothing is replaced)."""

    def __init__(self, jobs: Mapping[str, int | None], readable: bool = True) -> None:
        self.jobs = dict(jobs)
        self.readable = readable

    def holds(self, key: str) -> bool:
        return not self.readable or key in self.jobs

    def hours(self, key: str) -> int | None:
        return self.jobs.get(key)


NOTHING = Recorded({})


def jobs_of(deployment: Mapping[str, Any]) -> dict[str, int | None]:
    """The TrainingJobs of an exported deployment (either front door: auto_stop or autoStop) by resource name."""
    from .enforced import auto_stop_hours_of

    out: dict[str, int | None] = {}
    for res in deployment.get("resources") or []:
        if not isinstance(res, Mapping) or not str(res.get("type", "")).endswith("TrainingJob"):
            continue
        if res.get("delete") is True:  # pending deletion: the old half of a replacement
            continue
        inputs = res.get("inputs") if isinstance(res.get("inputs"), Mapping) else {}
        value = inputs.get("auto_stop", inputs.get("autoStop"))
        out[str(res.get("urn", "")).rsplit("::", 1)[-1]] = auto_stop_hours_of(value)
    return out


@lru_cache(maxsize=1)
def _read(stack: str) -> Recorded:
    from ..cli.pulumi_cli import find_pulumi

    env = {**os.environ, "PULUMI_SKIP_UPDATE_CHECK": "true"}
    try:
        proc = subprocess.run([find_pulumi(env), "stack", "export", "--stack", stack, "--non-interactive"], env=env,
                              text=True, capture_output=True, stdin=subprocess.DEVNULL, timeout=EXPORT_TIMEOUT_S)
        doc = json.loads(proc.stdout or "{}") if proc.returncode == 0 else None
    except (OSError, subprocess.TimeoutExpired, ValueError):
        doc = None
    if not isinstance(doc, Mapping):
        return Recorded({}, readable=False)
    deployment = doc.get("deployment")
    return Recorded(jobs_of(deployment if isinstance(deployment, Mapping) else {}))


def recorded() -> Recorded:
    """This stack's recorded jobs when the program runs under the engine, else NOTHING."""
    import pulumi
    from pulumi.runtime.settings import SETTINGS

    if getattr(SETTINGS, "monitor", None) is None:
        return NOTHING
    return _read(pulumi.get_stack())

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
    the state could not be read (then every job is taken as recorded without a limit: nothing is replaced).
    Beside it, for what can still bill (cost/still_bills.py): each job's recorded inputs and phase (the
    JobsAwait's, else the job's own), and each CodeUpload's inputs (its content hash), by resource name."""

    def __init__(self, jobs: Mapping[str, int | None], readable: bool = True, *,
                 inputs: Mapping[str, Mapping[str, Any]] | None = None, phases: Mapping[str, str] | None = None,
                 uploads: Mapping[str, Mapping[str, Any]] | None = None) -> None:
        self.jobs = dict(jobs)
        self.readable = readable
        self.inputs = dict(inputs or {})
        self.phases = dict(phases or {})
        self.uploads = dict(uploads or {})

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
    import pulumi

    from ..cli.pulumi_cli import find_pulumi

    env = {**os.environ, "PULUMI_SKIP_UPDATE_CHECK": "true"}
    why = ""
    try:
        proc = subprocess.run([find_pulumi(env), "stack", "export", "--stack", stack, "--non-interactive"], env=env,
                              text=True, capture_output=True, stdin=subprocess.DEVNULL, timeout=EXPORT_TIMEOUT_S)
        doc = json.loads(proc.stdout or "{}") if proc.returncode == 0 else None
        why = next((line.strip() for line in reversed(proc.stderr.splitlines()) if line.strip()), "")
    except (OSError, subprocess.TimeoutExpired, ValueError) as err:
        doc, why = None, type(err).__name__
    if not isinstance(doc, Mapping):
        # Said, not failed: nothing is replaced, and the cost lines say the service does not enforce the bounds.
        pulumi.log.warn(f"cost: the stack's state could not be read (`pulumi stack export --stack {stack}`: "
                        f"{why or 'no reason given'}): no job gets a derived autoStop in this run, and finished "
                        "runs count in the bound")
        return Recorded({}, readable=False)
    deployment = doc.get("deployment")
    return of_deployment(deployment if isinstance(deployment, Mapping) else {})


def _name(res: Mapping[str, Any]) -> str:
    return str(res.get("urn", "")).rsplit("::", 1)[-1]


def of_deployment(deployment: Mapping[str, Any]) -> Recorded:
    """Everything this module reads of an exported deployment."""
    inputs: dict[str, Mapping[str, Any]] = {}
    phases: dict[str, str] = {}
    waited: dict[str, str] = {}
    uploads: dict[str, Mapping[str, Any]] = {}
    for res in deployment.get("resources") or []:
        if not isinstance(res, Mapping) or res.get("delete") is True:
            continue
        kind = str(res.get("type", ""))
        given = res.get("inputs") if isinstance(res.get("inputs"), Mapping) else {}
        outs = res.get("outputs") if isinstance(res.get("outputs"), Mapping) else {}
        if kind.endswith("TrainingJob"):
            inputs[_name(res)] = given
            if isinstance(outs.get("phase"), str):
                phases[_name(res)] = outs["phase"]
        elif kind.endswith("JobsAwait") and isinstance(outs.get("phases"), Mapping):
            waited.update({k: v for k, v in outs["phases"].items() if isinstance(v, str)})
        elif kind.endswith("CodeUpload"):
            uploads[_name(res)] = given
    # the wait's phase is newer than the one a job recorded at its create
    phases.update({k: v for k, v in waited.items() if k in inputs})
    return Recorded(jobs_of(deployment), inputs=inputs, phases=phases, uploads=uploads)


def recorded() -> Recorded:
    """This stack's recorded jobs when the program runs under the engine, else NOTHING."""
    import pulumi
    from pulumi.runtime.settings import SETTINGS

    monitor = getattr(SETTINGS, "monitor", None)
    # No engine: a unit test's mocks (pulumi.runtime.set_mocks) have a monitor too, and no state to read; asking
    # the CLI for a stack of their name would read whatever backend the environment points at.
    if monitor is None or type(monitor).__name__ == "MockMonitor":
        return NOTHING
    return _read(pulumi.get_stack())

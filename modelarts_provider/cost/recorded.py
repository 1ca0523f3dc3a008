"""What the stack's state records of its jobs, for the cost preview: each TrainingJob's inputs and phase, and each
CodeUpload's inputs, by resource name.

A run that finished and will not run again is spent, not bound (cost/still_bills.py), and a recorded job is
bounded by the limit it keeps (training_job/service_limit.with_service_limit, the TrainingJob check's rule, given
its recorded inputs): the program needs what the state records of them. The state is read once per program run
(`pulumi stack export` of this stack, which an `up` writes after every step), only under the engine and only when
the stack asks for its cost (cost/preview.py); outside the engine (unit tests) nothing is recorded.
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
    """Each job's recorded inputs and phase (the JobsAwait's, else the job's own), and each CodeUpload's inputs
    (its content hash), by resource name; `readable` False when the state could not be read (nothing recorded)."""

    def __init__(self, inputs: Mapping[str, Mapping[str, Any]] | None = None,
                 phases: Mapping[str, str] | None = None, uploads: Mapping[str, Mapping[str, Any]] | None = None,
                 readable: bool = True) -> None:
        self.inputs = dict(inputs or {})
        self.phases = dict(phases or {})
        self.uploads = dict(uploads or {})
        self.readable = readable

    def inputs_of(self, names: tuple[str, ...]) -> dict[str, Any] | None:
        """The recorded inputs of the first of `names` the state holds (a job's key, then the keys it moved from)."""
        found = next((self.inputs[n] for n in names if n in self.inputs), None)
        return dict(found) if found is not None else None


NOTHING = Recorded()


@lru_cache(maxsize=1)
def _read(stack: str) -> Recorded:
    import pulumi

    from ..core.engine_cli import find_pulumi

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
        # Said, not failed: the bound then counts every job as new (finished runs in it, derived limits shown).
        pulumi.log.warn(f"cost: the stack's state could not be read (`pulumi stack export --stack {stack}`: "
                        f"{why or 'no reason given'}): finished runs count in the bound, and each job's line shows "
                        "the limit a new job gets")
        return Recorded(readable=False)
    deployment = doc.get("deployment")
    return of_deployment(deployment if isinstance(deployment, Mapping) else {})


def _name(res: Mapping[str, Any]) -> str:
    return str(res.get("urn", "")).rsplit("::", 1)[-1]


def of_deployment(deployment: Mapping[str, Any]) -> Recorded:
    """Everything this module reads of an exported deployment (either front door); a resource pending deletion
    (the old half of a replacement) is left out."""
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
    return Recorded(inputs, phases, uploads)


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

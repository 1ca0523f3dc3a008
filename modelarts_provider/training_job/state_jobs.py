"""Which jobs this stack's state holds, per owner token: the record a takeover must not contradict.

`pulumi up --replace <urn>` (and a tainted resource) replaces a job without asking its provider: the engine
checks the replacement's inputs with no old inputs and never diffs. The replacement then derives the same
name and owner token as the job it replaces, exactly as a resource whose earlier `up` was killed after its
POST, whose job must be taken over. The provider cannot tell the two apart from what the engine sends; the
stack's state can: the job of a killed `up` is in no resource's state, the job being replaced still is (the
engine deletes it after the replacement's create). So when a job of this resource's token already carries the
name a check is about to derive, the state is read (`pulumi stack export`, which an `up` writes after every
step; once per provider process) and a job it holds is never taken over: the replacement gets the next
generation of the name (training_job/naming.py), a new run.

The state is read only then: a resource with old inputs, or whose name no job of ours carries, needs nothing.
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
from collections.abc import Mapping
from typing import Any

from ..core.engine_cli import find_pulumi
from ..core.ownership import stack_of_label

EXPORT_TIMEOUT_S = 120
# (job id, job name) per owner token
Held = dict[str, dict[str, str]]


class StateUnreadable(Exception):
    """The stack's state could not be read; the message is one line."""


def _jobs_of(deployment: Mapping[str, Any]) -> Held:
    """The jobs of an exported deployment, through either front door (dynamic: job_id, job_name; plugin: jobId,
    jobName), by the owner token recorded with them. A resource pending deletion still holds its job."""
    held: Held = {}
    for res in deployment.get("resources") or []:
        outs = res.get("outputs") if isinstance(res, Mapping) else None
        if not isinstance(outs, Mapping):
            continue
        owner = outs.get("owner")
        job_id = outs.get("job_id", outs.get("jobId"))
        name = outs.get("job_name", outs.get("jobName"))
        if isinstance(owner, Mapping) and isinstance(owner.get("token"), str) and isinstance(job_id, str) and job_id:
            held.setdefault(owner["token"], {})[job_id] = name if isinstance(name, str) else ""
    return held


def _export(label: str) -> Mapping[str, Any]:
    """`pulumi stack export` of the stack an owner mark names (`organization/project/stack`), else of its
    `project/stack` part's stack alone (a backend whose organization the provider plugin's mark does not know)."""
    env = {**os.environ, "PULUMI_SKIP_UPDATE_CHECK": "true"}
    names = [label.split("::", 1)[0]]
    short = stack_of_label(label)
    if short is not None and short.split("/")[-1] not in names:
        names.append(short.split("/")[-1])
    last = ""
    for name in names:
        try:
            proc = subprocess.run([find_pulumi(env), "stack", "export", "--stack", name, "--non-interactive"],
                                  env=env, text=True, capture_output=True, stdin=subprocess.DEVNULL,
                                  timeout=EXPORT_TIMEOUT_S)
        except (OSError, subprocess.TimeoutExpired) as err:
            raise StateUnreadable(f"`pulumi stack export --stack {name}` did not run: {type(err).__name__}") from None
        if proc.returncode == 0:
            try:
                doc = json.loads(proc.stdout or "{}")
            except ValueError:
                raise StateUnreadable(f"`pulumi stack export --stack {name}` printed no JSON") from None
            deployment = doc.get("deployment") if isinstance(doc, Mapping) else None
            return deployment if isinstance(deployment, Mapping) else {}
        last = next((line.strip() for line in reversed(proc.stderr.splitlines()) if line.strip()), "")
    raise StateUnreadable(f"`pulumi stack export --stack {names[0]}` failed: {last or 'no reason given'}")


class StateJobs:
    """The state's jobs per stack, read once per provider process (the jobs a replacement must not take over
    were recorded before this `up` started)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._read: dict[str, Held] = {}

    def held(self, stack_label: str, token: str) -> dict[str, str]:
        """{job id: job name} of the jobs the state of `stack_label` records under `token`."""
        key = stack_label.split("::", 1)[0]
        with self._lock:
            if key not in self._read:
                self._read[key] = _jobs_of(_export(key))
            return dict(self._read[key].get(token, {}))


STATE_JOBS = StateJobs()

"""What the command-line tools read of a stack: its outputs, state and config.

`logs`, `results` and `status` share it: the job of a key or name (from the outputs, else the state, through
either front door), the stack's config with its secrets decrypted the way the program gets them (never
printed), and the client settings the provider would resolve from it. The outputs, the state and a config
without secrets are read straight from the backend and the stack's file (stack_state.py); the pulumi CLI is
started only for what needs it (a secret of another secrets provider, a backend not read here).
"""

from __future__ import annotations

import atexit
import json
import os
import subprocess
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

from pydantic import BaseModel, ConfigDict, ValidationError

from ..core.masking import secret_values
from .errors import LogsError
from .pulumi_cli import engine_bin, find_pulumi
from .stack_state import StackState
from ..wait_engine import REAL, Clock, Condition, Done, Failed, WaitFailed, wait

# "pulumi-python:dynamic/modelarts:TrainingJob" today, "pulumi-python:dynamic:Resource" in older states
DYNAMIC_TYPE_PREFIX = "pulumi-python:dynamic"
# The provider plugin's training job (YAML, TypeScript, generated SDKs): its outputs in the schema's camelCase.
PLUGIN_JOB_TYPE = "modelarts:index:TrainingJob"


def job_in_state(res: Any) -> tuple[str, str | None, str | None] | None:
    """(job id, job name, workspace id) of a state resource that is a training job, through either front door:
    a dynamic resource (outputs job_id, job_name, workspace_id) or the plugin's (jobId, jobName, workspaceId)."""
    if res.type == PLUGIN_JOB_TYPE:
        keys = ("jobId", "jobName", "workspaceId")
    elif res.type.startswith(DYNAMIC_TYPE_PREFIX) and not res.type.endswith(":JobsAwait"):
        keys = ("job_id", "job_name", "workspace_id")
    else:
        return None
    job_id, name, workspace = (res.outputs.get(k) for k in keys)
    if not isinstance(job_id, str) or not job_id:
        return None
    return job_id, name if isinstance(name, str) else None, workspace if isinstance(workspace, str) else None
PULUMI_TIMEOUT_S = 180


# --- what the Pulumi CLI prints (only the fields used; the rest is kept and ignored) ----------------

class _Loose(BaseModel):
    model_config = ConfigDict(extra="allow")


class JobExport(_Loose):
    """One entry of the program's ``jobs`` export: ``{id, name, phase, outputPath}``."""

    id: Optional[str] = None
    name: Optional[str] = None
    phase: Optional[str] = None


class StackOutputs(_Loose):
    jobs: dict[str, Any] = {}  # values: JobExport, or "[secret]" when a whole entry is secret


class ConfigEntry(_Loose):
    """``pulumi config --json`` value: ``{"value": ..., "secret": bool}`` (``objectValue`` too)."""

    value: Any = None
    secret: bool = False


class StateResource(_Loose):
    urn: str = ""
    type: str = ""
    outputs: dict[str, Any] = {}


class Deployment(_Loose):
    resources: Optional[list[StateResource]] = None


class StackExport(_Loose):
    deployment: Deployment = Deployment()


@dataclass(frozen=True)
class JobRef:
    id: str
    label: str  # "key (name)" or the name: how notes call the job
    key: str = ""  # the stack's key for it: followed across a replacement


# --- Pulumi CLI ----------------------------------------------------------------------------------------

CONFIG_WITH_SECRETS = ("config", "--json", "--show-secrets")  # holds secrets: never printed
# The reads answered without the CLI when stack_state can (its methods by the CLI's arguments).
_DIRECT: dict[tuple[str, ...], Callable[[StackState], Any]] = {
    ("stack", "output", "--json"): StackState.outputs,
    ("stack", "export"): StackState.deployment,
    ("config", "--json"): StackState.config,
    CONFIG_WITH_SECRETS: lambda state: state.config(show_secrets=True),
}


@dataclass
class PulumiCli:
    """The stack's outputs, state and config as the pulumi CLI prints them (`json("stack", "export")`): read from
    the backend and the stack's file where stack_state can, else from the CLI."""

    cwd: Path
    stack: str
    env: dict[str, str] = field(default_factory=lambda: dict(os.environ))
    _started: dict[tuple[str, ...], subprocess.Popen[str]] = field(default_factory=dict, repr=False)
    _ahead: dict[tuple[str, ...], threading.Thread] = field(default_factory=dict, repr=False)
    _read_ahead: dict[tuple[str, ...], Any] = field(default_factory=dict, repr=False)

    def json(self, *args: str) -> Any:
        read = _DIRECT.get(args)
        ahead = self._ahead.pop(args, None)
        if ahead is not None:
            ahead.join()
        if read is not None:
            found = self._read_ahead.pop(args, None) if ahead is not None else read(self._state())
            if found is not None:
                if args[0] == "stack" and args[1] == "export":
                    return {"deployment": found}
                return found
        return self._cli(args)

    def prefetch(self, *args: str) -> None:
        """Start reading `json(*args)` now, on a thread (a passphrase's key derivation lets go of the GIL), or the
        CLI for it where it cannot be read here: either runs while the command imports and reads the rest."""
        if args in self._ahead or args in self._started:
            return
        thread = threading.Thread(target=self._fetch, args=(args,), daemon=True)
        self._ahead[args] = thread
        thread.start()

    def _fetch(self, args: tuple[str, ...]) -> None:
        read = _DIRECT.get(args)
        try:
            found = read(self._state()) if read is not None else None
        except LogsError:
            found = None  # json() reads again and says it
        self._read_ahead[args] = found
        if found is not None:
            return
        try:
            proc = self._popen(args)
        except OSError:
            return  # json() runs it again and says why it cannot
        self._started[args] = proc
        atexit.register(_end, proc)  # a command that stops before it needs the answer leaves nothing running

    def _state(self) -> StackState:
        return StackState(self.cwd, self.stack, self.env)

    def _popen(self, args: tuple[str, ...]) -> subprocess.Popen[str]:
        cmd = [find_pulumi(self.env), *args, "--stack", self.stack, "--non-interactive"]
        return subprocess.Popen(cmd, cwd=self.cwd, env=self.env, text=True, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)

    def _cli(self, args: tuple[str, ...]) -> Any:
        proc = self._started.pop(args, None)
        try:
            proc = proc or self._popen(args)
        except FileNotFoundError:
            raise LogsError(f"the pulumi CLI is not on PATH nor in {engine_bin()} (./dev setup installs it)") from None
        try:
            stdout, stderr = proc.communicate(timeout=PULUMI_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            raise LogsError(f"`pulumi {' '.join(args[:2])}` did not answer in {PULUMI_TIMEOUT_S}s") from None
        if proc.returncode != 0:
            last = next((line.strip() for line in reversed(stderr.splitlines()) if line.strip()), "")
            raise LogsError(f"`pulumi {' '.join(args[:2])} --stack {self.stack}` failed: {last or proc.returncode}")
        try:
            return json.loads(stdout or "{}")
        except ValueError:
            raise LogsError(f"`pulumi {' '.join(args[:2])}` printed no JSON") from None


def prefetch_config(pulumi: Any) -> None:
    """Start decrypting the stack's config now, for a command that will build a client from it (a reader of
    another kind, e.g. a test's recorded documents, has nothing to start)."""
    if isinstance(pulumi, PulumiCli):
        pulumi.prefetch(*CONFIG_WITH_SECRETS)


def _end(proc: subprocess.Popen[str]) -> None:
    if proc.poll() is None:
        proc.kill()
        proc.communicate()


def find_job(pulumi: PulumiCli, wanted: str) -> JobRef:
    """The job of key or name ``wanted``: from the stack outputs, else from the state."""
    known: list[str] = []
    try:
        outputs = StackOutputs.model_validate(pulumi.json("stack", "output", "--json"))
    except ValidationError:
        outputs = StackOutputs()
    for key, raw in outputs.jobs.items():
        entry = JobExport.model_validate(raw) if isinstance(raw, dict) else JobExport()
        known.append(key)
        if wanted in (key, entry.name) and entry.id and entry.id != "[secret]":
            return JobRef(entry.id, key if entry.name in (None, key) else f"{key} ({entry.name})", key)
    # a stack whose program never exported (failed up, older program): the state has the jobs
    found = state_job(pulumi, wanted, known)
    if found is not None:
        return found
    names = ", ".join(sorted(set(known))) or "none"
    raise LogsError(f"no job {wanted!r} in stack {pulumi.stack} (its jobs: {names})")


def state_job(pulumi: PulumiCli, wanted: str, known: list[str] | None = None) -> JobRef | None:
    """The job of key or name ``wanted`` in the state, which an `up` writes after each step (the stack
    outputs only at its end): what a key points at while the key's job is being replaced."""
    try:
        exported = StackExport.model_validate(pulumi.json("stack", "export"))
    except ValidationError:
        exported = StackExport()
    for res in exported.deployment.resources or []:
        job = job_in_state(res)
        if job is None or (res.model_extra or {}).get("delete") is True:
            continue  # a replaced job the `up` is about to delete: the key points at its successor
        job_id, name, _ = job
        key = res.urn.rsplit("::", 1)[-1]
        if known is not None:
            known.append(key)
        if wanted in (key, name):
            return JobRef(job_id, key if name in (None, key) else f"{key} ({name})", key)
    return None


def successor(pulumi: PulumiCli, ref: JobRef, wait_s: float, interval: float, clock: Clock = REAL) -> JobRef | None:
    """The job ``ref``'s key points at now, if the stack replaced it; polled up to ``wait_s`` (a replacement
    that deletes first records its new job only after the old one is gone)."""
    def judge(now: JobRef | None) -> Done[JobRef] | None:
        return Done(now) if now is not None and now.id != ref.id else None

    try:
        return wait(Condition("job replaced", lambda: state_job(pulumi, ref.key), judge,
                              too_late=lambda _now: Failed("")), timeout_s=wait_s, poll_s=interval, clock=clock)
    except WaitFailed:
        return None


def stack_config(pulumi: PulumiCli, note: Callable[[str], None]) -> tuple[Any, list[str]]:
    """The stack's config, decrypted the way the program gets it (the stack's own secrets provider), and
    the values of its secrets (every leaf of a key set with --secret, any length). When the secrets cannot
    be decrypted (no passphrase, no access to the KMS key), says so in one line and goes on without them:
    lines are then masked by shape only."""
    try:
        raw = pulumi.json(*CONFIG_WITH_SECRETS)
    except LogsError as err:
        note(f"note: cannot read the stack's secrets ({err}); masking secret-looking values by shape only")
        try:
            return pulumi.json("config", "--json"), []
        except LogsError:
            return {}, []
    values: list[str] = []
    if not any(isinstance(e, dict) and e.get("secret") for e in (raw.values() if isinstance(raw, dict) else [])):
        return raw, values  # no secret: nothing to mask by value (and no need of the stack program's modules)
    from ..stack.config_file import secured_parts  # noqa: PLC0415 - only for a config with secrets

    written = _stack_file_config(pulumi)
    for full_key, entry in (raw.items() if isinstance(raw, dict) else []):
        if isinstance(entry, dict) and entry.get("secret"):
            got = entry.get("objectValue", entry.get("value"))
            if isinstance(got, str) and got.lstrip()[:1] in ("{", "["):  # a whole map set as one secret
                try:
                    got = json.loads(got)
                except ValueError:
                    pass
            parts = secured_parts(written.get(full_key), got) if isinstance(got, (dict, list)) else None
            if parts is not None:
                # A map with secret leaves (`config set --secret --path`): those leaves, not the whole map (its
                # names and plain values, e.g. a search's objective, would be masked in every line).
                values += [v for part in parts for v in
                           (secret_values(part) if isinstance(part, (dict, list))
                            else [str(part)] if isinstance(part, (str, int, float)) and not isinstance(part, bool)
                            else [])]
                continue
            # a whole section's counts, phases and short words are not masked (masking.secret_material)
            values += secret_values(got) if isinstance(got, (dict, list)) else \
                [str(got)] if isinstance(got, (str, int, float)) and not isinstance(got, bool) else []
            if isinstance(entry.get("value"), str) and isinstance(got, (dict, list)):
                values.append(entry["value"])
    return raw, [v for v in values if v.strip()]


def _stack_file_config(pulumi: PulumiCli) -> dict[str, Any]:
    """The stack file's config as written (`secure:` markers where `--secret` set a value), or {}."""
    from ..stack.config_file import read_stack_config  # noqa: PLC0415 - the stack program's reading of the file

    return read_stack_config(pulumi.cwd, pulumi.stack.rsplit("/", 1)[-1]) or {}


def stack_settings(pulumi: PulumiCli, environ: dict[str, str], raw: Any = None) -> Any:
    """ClientSettings from the stack's ``modelarts:`` config (secrets decrypted) and ``environ``."""
    from ..core.provider_config import NAMESPACE, ProviderConfigError, resolve_settings

    if raw is None:
        raw = pulumi.json(*CONFIG_WITH_SECRETS)
    values: dict[str, Any] = {}
    for full, entry in (raw.items() if isinstance(raw, dict) else []):
        ns, _, key = str(full).partition(":")
        if ns == NAMESPACE and isinstance(entry, dict):
            values[key] = ConfigEntry.model_validate(entry).value
    try:
        return resolve_settings(values.get, environ).to_client_settings()
    except ProviderConfigError as err:  # names keys, never values
        raise LogsError(str(err)) from None

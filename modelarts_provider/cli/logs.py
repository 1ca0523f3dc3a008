"""``python -m modelarts_provider logs``: print, and follow, a training job's task logs through its stack.

    python -m modelarts_provider logs --stack STACK JOB [--task worker-0] [--follow] [--cwd DIR]

JOB is a job key of the stack config or a job name. Its id comes from the stack's outputs
(``jobs.<key>.id``) or else from its state (training jobs of either front door: job_id / jobId); the
client is built from the stack's ``modelarts:`` config (``pulumi config --show-secrets``) and the
HW_* / OS_* environment, exactly as the provider resolves it. Without ``--task`` every task's log is
printed (lines prefixed ``[task] `` when there are several). ``--follow`` prints only new lines until
the job ends; when the stack replaces the job meanwhile (its key points at a new job in the state), it
says so in one line and follows the new one. The log goes to stdout; notes and errors go to stderr, one line each. No credential is
ever printed: lines pass through ``logs.safe_line`` (the one masking step: the stack's config secrets,
read the way the program reads them, the client's credentials, and secret-looking values by shape) and
errors name keys, never values.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional, TextIO

from pydantic import BaseModel, ConfigDict, ValidationError

from ..core.job_logs import client_secrets, one_line_error, safe_line
from ..core.masking import secret_values
from .pulumi_cli import engine_bin, find_pulumi

__all__ = ["register", "run", "find_job", "stack_settings", "LogFollower", "LogsError"]

WAITING_PHASES = frozenset({"Creating", "Pending"})  # no process yet, so no log
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
# How long --follow waits, after its job was deleted, for the key to point at a job replacing it.
REPLACEMENT_WAIT_S = 120.0


class LogsError(Exception):
    """A one-line reason the command cannot go on (no secrets)."""


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

@dataclass
class PulumiCli:
    cwd: Path
    stack: str
    env: dict[str, str] = field(default_factory=lambda: dict(os.environ))

    def json(self, *args: str) -> Any:
        cmd = [find_pulumi(self.env), *args, "--stack", self.stack, "--non-interactive"]
        try:
            proc = subprocess.run(cmd, cwd=self.cwd, env=self.env, text=True, capture_output=True,
                                  stdin=subprocess.DEVNULL, timeout=PULUMI_TIMEOUT_S)
        except FileNotFoundError:
            raise LogsError(f"the pulumi CLI is not on PATH nor in {engine_bin()} (./dev setup installs it)") from None
        except subprocess.TimeoutExpired:
            raise LogsError(f"`pulumi {' '.join(args[:2])}` did not answer in {PULUMI_TIMEOUT_S}s") from None
        if proc.returncode != 0:
            last = next((line.strip() for line in reversed(proc.stderr.splitlines()) if line.strip()), "")
            raise LogsError(f"`pulumi {' '.join(args[:2])} --stack {self.stack}` failed: {last or proc.returncode}")
        try:
            return json.loads(proc.stdout or "{}")
        except ValueError:
            raise LogsError(f"`pulumi {' '.join(args[:2])}` printed no JSON") from None


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
        if job is None:
            continue
        job_id, name, _ = job
        key = res.urn.rsplit("::", 1)[-1]
        if known is not None:
            known.append(key)
        if wanted in (key, name):
            return JobRef(job_id, key if name in (None, key) else f"{key} ({name})", key)
    return None


def successor(pulumi: PulumiCli, ref: JobRef, wait_s: float, interval: float,
              sleep: Callable[[float], None] = time.sleep, clock: Callable[[], float] = time.monotonic) -> JobRef | None:
    """The job ``ref``'s key points at now, if the stack replaced it; polled up to ``wait_s`` (a replacement
    that deletes first records its new job only after the old one is gone)."""
    deadline = clock() + wait_s
    while True:
        now = state_job(pulumi, ref.key)
        if now is not None and now.id != ref.id:
            return now
        if clock() >= deadline:
            return None
        sleep(interval)


def stack_config(pulumi: PulumiCli, note: Callable[[str], None]) -> tuple[Any, list[str]]:
    """The stack's config, decrypted the way the program gets it (the stack's own secrets provider), and
    the values of its secrets (every leaf of a key set with --secret, any length). When the secrets cannot
    be decrypted (no passphrase, no access to the KMS key), says so in one line and goes on without them:
    lines are then masked by shape only."""
    try:
        raw = pulumi.json("config", "--json", "--show-secrets")  # holds secrets: never printed
    except LogsError as err:
        note(f"note: cannot read the stack's secrets ({err}); masking secret-looking values by shape only")
        try:
            return pulumi.json("config", "--json"), []
        except LogsError:
            return {}, []
    values: list[str] = []
    for entry in (raw.values() if isinstance(raw, dict) else []):
        if isinstance(entry, dict) and entry.get("secret"):
            got = entry.get("objectValue", entry.get("value"))
            if isinstance(got, str) and got.lstrip()[:1] in ("{", "["):  # a whole map set as one secret
                try:
                    got = json.loads(got)
                except ValueError:
                    pass
            # a whole section's counts, phases and short words are not masked (masking.secret_material)
            values += secret_values(got) if isinstance(got, (dict, list)) else \
                [str(got)] if isinstance(got, (str, int, float)) and not isinstance(got, bool) else []
            if isinstance(entry.get("value"), str) and isinstance(got, (dict, list)):
                values.append(entry["value"])
    return raw, [v for v in values if v.strip()]


def stack_settings(pulumi: PulumiCli, environ: dict[str, str], raw: Any = None) -> Any:
    """ClientSettings from the stack's ``modelarts:`` config (secrets decrypted) and ``environ``."""
    from ..core.provider_config import NAMESPACE, ProviderConfigError, resolve_settings

    if raw is None:
        raw = pulumi.json("config", "--json", "--show-secrets")  # holds secrets: never printed
    values: dict[str, Any] = {}
    for full, entry in (raw.items() if isinstance(raw, dict) else []):
        ns, _, key = str(full).partition(":")
        if ns == NAMESPACE and isinstance(entry, dict):
            values[key] = ConfigEntry.model_validate(entry).value
    try:
        return resolve_settings(values.get, environ).to_client_settings()
    except ProviderConfigError as err:  # names keys, never values
        raise LogsError(str(err)) from None


# --- printing ------------------------------------------------------------------------------------------

@dataclass
class _TaskState:
    offset: int = 0  # bytes of the whole log already taken in
    partial: bytes = b""  # an unfinished last line, held back until it ends


class LogFollower:
    """Prints each task's log once: what a preview adds beyond what was printed, whole lines only.

    The preview is the newest ``current_size`` bytes of a ``full_size``-byte log, so the bytes already
    seen are known even when the log outgrows the preview (the gap is reported, not guessed).
    """

    def __init__(self, tasks: list[str], secrets: list[str], out: TextIO, note: Callable[[str], None]) -> None:
        self.prefix = len(tasks) > 1
        self.secrets = secrets
        self.out = out
        self.note = note
        self.state = {task: _TaskState() for task in tasks}
        self.printed = 0

    def feed(self, task: str, preview: Any, *, final: bool) -> None:
        data = preview.text.encode()
        _, full = preview.sizes
        full = len(data) if full is None or full < len(data) else full
        begin = full - len(data)  # where this preview starts in the whole log
        st = self.state.setdefault(task, _TaskState())
        if full < st.offset:  # the log got shorter: a new log; start over
            st.offset, st.partial = begin, b""
        if st.offset < begin:
            self.note(f"{task}: {begin - st.offset} bytes of log not shown (older than the preview)")
            st.offset, st.partial = begin, b""
        buf = st.partial + data[st.offset - begin:]
        st.offset = full
        if final:
            done, st.partial = buf, b""
        else:
            cut = buf.rfind(b"\n") + 1
            done, st.partial = buf[:cut], buf[cut:]
        for line in done.decode(errors="replace").splitlines():
            self.out.write((f"[{task}] " if self.prefix else "") + safe_line(line, self.secrets) + "\n")
            self.printed += 1
        self.out.flush()


def _note(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def run(args: argparse.Namespace, *, out: TextIO = sys.stdout, note: Callable[[str], None] = _note) -> int:
    from ..client import ModelArtsClient, ModelArtsError
    from ..client.models import TERMINAL_PHASES, task_ids

    pulumi = PulumiCli(Path(args.cwd).resolve(), args.stack)
    ref = find_job(pulumi, args.job)
    raw, config_secrets = stack_config(pulumi, note)
    with ModelArtsClient(stack_settings(pulumi, dict(os.environ), raw)) as client:
        secrets = client_secrets(client) + config_secrets
        try:
            job = client.get_job(ref.id)
            if job is None:
                raise LogsError(f"training job {ref.label} ({ref.id}) does not exist any more")
            tasks = [args.task] if args.task else task_ids(job)
            follower = LogFollower(tasks, secrets, out, note)
            waiting_noted: set[tuple[str, str]] = set()
            while True:
                phase = job.phase or "unknown"
                ended = phase in TERMINAL_PHASES
                for task in tasks:
                    if phase in WAITING_PHASES:  # no process yet: nothing to fetch
                        if (task, phase) not in waiting_noted:
                            waiting_noted.add((task, phase))
                            note(f"{task}: job is {phase}, "
                                 + ("waiting for the log..." if args.follow else "no log yet (--follow waits for it)"))
                        continue
                    follower.feed(task, client.get_task_log_preview(ref.id, task), final=ended or not args.follow)
                if not args.follow:
                    return 0
                if ended:
                    # Terminated: perhaps by a replacement that created its successor first (the key
                    # already points at it); otherwise the job simply ended.
                    after = successor(pulumi, ref, 0, args.interval) if phase == "Terminated" and ref.key else None
                    if after is None:
                        note(f"{ref.label}: job ended {phase}")
                        return 0
                else:
                    time.sleep(args.interval)
                    polled = _poll(client, ref, job, note, secrets)
                    if polled is not None:
                        job = polled
                        continue
                    # Deleted: a replacement that stops the old job first records the new one after.
                    note(f"{ref.label}: job deleted; waiting up to {REPLACEMENT_WAIT_S:g}s for a job replacing it")
                    after = successor(pulumi, ref, REPLACEMENT_WAIT_S, args.interval) if ref.key else None
                    if after is None:
                        raise LogsError(f"training job {ref.label} ({ref.id}) was deleted")
                note(f"{ref.label}: replaced by {after.label} ({after.id}); following it")
                ref = after
                fresh = client.get_job(ref.id)
                if fresh is None:
                    raise LogsError(f"training job {ref.label} ({ref.id}) does not exist any more")
                job = fresh
                tasks = [args.task] if args.task else task_ids(job)
                follower = LogFollower(tasks, secrets, out, note)
                waiting_noted = set()
        except ModelArtsError as err:
            raise LogsError(one_line_error(err, secrets)) from None


def _poll(client: Any, ref: JobRef, last: Any, note: Callable[[str], None], secrets: list[str]) -> Any:
    """The job again, or None once it is deleted; a transient error (throttling, 5xx, network) keeps the
    last one for a round."""
    from ..client import ModelArtsError

    try:
        job = client.get_job(ref.id)
    except ModelArtsError as err:
        if not err.retryable:
            raise
        note(f"{ref.label}: {one_line_error(err, secrets)}; retrying")
        return last
    return job  # None: deleted


# --- command line --------------------------------------------------------------------------------------

def _interval(text: str) -> float:
    value = float(text)
    if not 0 < value <= 300:
        raise argparse.ArgumentTypeError("must be more than 0 and at most 300 seconds")
    return value


def register(subparsers: Any) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "logs", help="print (and follow) a training job's task logs",
        description="Print a training job's task logs; the job is found through a stack's outputs or state.")
    p.add_argument("job", metavar="JOB", help="job key (stack config) or job name")
    p.add_argument("--stack", required=True, help="Pulumi stack whose job it is (e.g. local)")
    p.add_argument("--task", help="task id, e.g. worker-0 (default: every task of the job)")
    p.add_argument("--follow", "-f", action="store_true", help="print new lines until the job ends")
    p.add_argument("--cwd", default=".", help="the Pulumi project directory (default: .)")
    p.add_argument("--interval", type=_interval, default=2.0, help="seconds between polls with --follow")
    p.set_defaults(handler=main_logs)
    return p


def main_logs(args: argparse.Namespace) -> int:
    try:
        return run(args)
    except LogsError as err:
        _note(f"logs: {err}")
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `... | head`: the reader has all it wanted
        sys.stderr.close()
        return 0

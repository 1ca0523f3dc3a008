"""Shared helpers of the fault, bad-input and security suites (and the benchmarks): the repository's
real stack program (`__main__.py`) in a throwaway Pulumi project, pointed at a local emulator.

    emu = running_emulator(tmp_path / "emu", **FAST_EMULATOR)
    stack = job_stack(tmp_path, emu, jobs={"a": job()}, sweeps={...})
    stack.up(); assert_converged(emu, stack, expected_names)
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import time
from collections.abc import Callable, Iterator

import yaml
from pathlib import Path
from typing import Any

from modelarts_provider.core.ownership import OWNER_ANNOTATION
from testkit import harness
from testkit.harness import REPO_ROOT, Stack, new_stack

# Emulator phases for the suites: Creating/Pending/Terminating 0.2 s, Running 600 s: jobs stay Running
# during a test however loaded the machine ("no orphan" includes "nothing left running"); a test that
# wants them finished moves the emulator's clock (`emu.advance`, `up_advancing`).
FAST_EMULATOR: dict[str, Any] = {"phase_seconds": 0.2, "run_seconds": 600}

FLAVOR = "modelarts.p3.large.public"
ENGINE = {"name": "PyTorch", "version": "pytorch_1.8.0-cuda_10.2-py_3.7-ubuntu_18.04-x86_64"}
POOLS = {"gpu": {"flavor": FLAVOR, "maxNodes": 4}}
OBS = {"main": {"bucket": "emulator-bucket"}}
PROJECT = "modelarts-jobs"

# Tracebacks are never the main message of a failed command.
TRACEBACK_RE = re.compile(r"Traceback \(most recent call last\)")


def job(**overrides: Any) -> dict[str, Any]:
    """A valid job entry of `modelarts-jobs:jobs` (own code + engine), fast provider options."""
    base = {"pool": "gpu", "codeDir": "mnist/", "bootFile": "train.py", "engine": dict(ENGINE),
            "parameters": {"lr": 0.01}, "pollIntervalSeconds": 0.2, "waitTimeoutSeconds": 120,
            "deleteTimeoutSeconds": 120}
    base.update(overrides)
    return {k: v for k, v in base.items() if v is not None}


def sweep(grid: dict[str, list[Any]], **overrides: Any) -> dict[str, Any]:
    s = job(**overrides)
    s.pop("parameters", None)
    s["grid"] = grid
    return s


def provider_config(emu: Any) -> tuple[dict[str, str], dict[str, str]]:
    """(plain, secret) `modelarts:` settings for the emulator, AK/SK auth."""
    plain = {"modelarts:region": "cn-north-4", "modelarts:projectId": emu.project_id,
             "modelarts:endpoint": emu.url, "modelarts:accessKey": emu.access_key}
    return plain, {"modelarts:secretKey": emu.secret_key}


# --- dedicated pools (a stack creating its own pool on its own network "main") -----------------------------

POOL_FLAVOR = "modelarts.vm.gpu.tnt004"


@contextlib.contextmanager
def pool_emulator(base: Path, pool_seconds: float, *, drop_annotations: bool = False) -> Iterator[Any]:
    """An emulator whose networks turn Active in 0.3 s and whose pool nodes take `pool_seconds` (of its clock);
    `drop_annotations`: it answers without metadata.annotations (as the service may)."""
    from modelarts_emulator.testing import running_emulator

    with running_emulator(base, phase_seconds=0.2, run_seconds=2, network_seconds=0.3,
                          pool_seconds=pool_seconds, drop_annotations=drop_annotations) as emu:
        yield emu


def own_pool(nodes: int, timeout_seconds: float) -> dict[str, Any]:
    """The stack's `pools` config: one pool "own" of `nodes` GPU nodes the stack creates on network "main"."""
    return {"own": {"create": {"flavor": POOL_FLAVOR, "nodes": nodes, "network": "main", "pollIntervalSeconds": 0.2,
                               "timeoutSeconds": timeout_seconds}}}


def pools_of(emu: Any, *, live: bool = False) -> list[dict[str, Any]]:
    """The emulator's pool records (not its networks); `live`: only those not deleted yet."""
    return [p for p in emu.pools()["items"] if p["kind"] == "Pool" and not (live and p["gone"])]


def job_stack(base: Path, emu: Any, *, jobs: dict[str, Any] | None = None,
              sweeps: dict[str, Any] | None = None, pools: dict[str, Any] | None = None,
              obs: dict[str, Any] | None = None, stack: str = "test",
              plain: dict[str, str] | None = None, secrets: dict[str, str] | None = None) -> Stack:
    """The repository's stack program in a fresh project under `base`, configured for `emu`."""
    if emu is not None and plain is None and secrets is None:
        plain, secrets = provider_config(emu)
    st = new_stack(base, REPO_ROOT, stack=stack, config=plain or {}, secrets=secrets or {})
    st.env["PYTHONPATH"] = str(REPO_ROOT)  # the program and the provider import the repository's packages
    configure_jobs(st, jobs=jobs, sweeps=sweeps, pools=POOLS if pools is None else pools,
                   obs=OBS if obs is None else obs)
    return st


def configure_jobs(st: Stack, *, jobs: dict[str, Any] | None = None, sweeps: dict[str, Any] | None = None,
                   pools: dict[str, Any] | None = None, obs: dict[str, Any] | None = None) -> None:
    update_config(st, {f"{PROJECT}:{section}": value
                       for section, value in (("obs", obs), ("pools", pools), ("jobs", jobs), ("sweeps", sweeps))
                       if value is not None})


def _config_path(st: Stack) -> Path:
    return st.workdir / f"Pulumi.{st.name}.yaml"


def read_config(st: Stack) -> dict[str, Any]:
    return dict((yaml.safe_load(_config_path(st).read_text()) or {}).get("config") or {})


def update_config(st: Stack, values: dict[str, Any], *, remove: tuple[str, ...] = ()) -> None:
    """Set structured (maps, lists) or plain values straight in the stack's config file, keeping its
    encryption salt and secure values. (`pulumi config set --json` does not exist in this CLI version,
    and one file write is much faster than a `pulumi config set` per key.) A value of None removes."""
    path = _config_path(st)
    doc = yaml.safe_load(path.read_text()) if path.exists() else None
    doc = doc or {}
    cfg = dict(doc.get("config") or {})
    for key in remove:
        cfg.pop(key, None)
    for key, value in values.items():
        if value is None:
            cfg.pop(key, None)
        else:
            cfg[key] = value
    doc["config"] = cfg
    path.write_text(yaml.safe_dump(doc, sort_keys=True))


def replace_config(st: Stack, config: dict[str, Any]) -> None:
    """Replace every config value (the salt stays)."""
    path = _config_path(st)
    doc = yaml.safe_load(path.read_text()) if path.exists() else None
    doc = doc or {}
    doc["config"] = dict(config)
    path.write_text(yaml.safe_dump(doc, sort_keys=True))


def live_jobs(emu: Any) -> list[dict[str, Any]]:
    return emu.jobs()


def phase_of(j: dict[str, Any]) -> str:
    return (j.get("status") or {}).get("phase") or ""


def name_of(j: dict[str, Any]) -> str:
    return (j.get("metadata") or {}).get("name") or ""


def owner_key(j: dict[str, Any]) -> str | None:
    """The stack resource a live job belongs to, from its owner mark (modelarts_provider.core.ownership)."""
    owner = ((j.get("metadata") or {}).get("annotations") or {}).get(OWNER_ANNOTATION)
    return owner.rsplit("::", 1)[1] if owner else None


def label_of(j: dict[str, Any], expected: set[str]) -> str:
    """A live job as `expected` names it: its name, or (derived names, e.g. sweep points) its resource key."""
    name = name_of(j)
    return name if name in expected else (owner_key(j) or name)


def job_labelled(emu: Any, label: str) -> dict[str, Any]:
    """The live job named `label`, or whose owner mark names the resource `label`."""
    return next(j for j in emu.jobs() if label_of(j, {label}) == label)


def state_job_ids(st: Stack) -> dict[str, str]:
    """{job name: job id} of the TrainingJob resources in the stack state."""
    out = {}
    for r in st.resources():
        if r.get("type", "").endswith(":TrainingJob"):
            outs = r.get("outputs") or {}
            out[outs.get("job_name") or outs.get("name")] = r.get("id")
    return out


def assert_converged(emu: Any, st: Stack | None, expected: int | set[str]) -> list[dict[str, Any]]:
    """Exactly the declared jobs exist in the emulator (no duplicate name, no orphan), and the state
    tracks exactly those ids. `expected`: number of jobs, or their exact names."""
    jobs = live_jobs(emu)
    names = [name_of(j) for j in jobs]
    dupes = sorted({n for n in names if names.count(n) > 1})
    assert not dupes, f"duplicate jobs in the emulator: {dupes}\n{_brief(jobs)}"
    if isinstance(expected, int):
        assert len(jobs) == expected, f"expected {expected} jobs, emulator has {len(jobs)}:\n{_brief(jobs)}"
    else:
        labels = {label_of(j, expected) for j in jobs}
        assert labels == expected, (f"emulator jobs differ from the declaration: extra "
                                    f"{sorted(labels - expected)}, missing {sorted(expected - labels)}")
    if st is not None:
        tracked = state_job_ids(st)
        live_ids = {j["metadata"]["id"] for j in jobs}
        assert set(tracked.values()) == live_ids, (
            f"state and emulator disagree: state {sorted(tracked.values())} vs emulator {sorted(live_ids)}")
    return jobs


def _brief(jobs: list[dict[str, Any]]) -> str:
    return "\n".join(f"  {name_of(j)} {j['metadata'].get('id')} {phase_of(j)}" for j in jobs)


def output_of(proc: Any) -> str:
    return (proc.stdout or "") + "\n" + (proc.stderr or "")


# --- background commands (interrupt tests) ---------------------------------------------------------


class Background:
    """A pulumi command running in its own process group (so the whole tree can be signalled)."""

    def __init__(self, st: Stack, *args: str, log: Path) -> None:
        harness.require_engine(f"`pulumi {args[0]}`")
        self.log_path = log
        self._log = open(log, "w")
        cmd = ["pulumi", *args, "--non-interactive", "--stack", st.name]
        self.proc = subprocess.Popen(cmd, cwd=st.workdir, env=st.env, stdout=self._log,
                                     stderr=subprocess.STDOUT, text=True, start_new_session=True)

    def signal_group(self, sig: int) -> None:
        try:
            os.killpg(self.proc.pid, sig)
        except ProcessLookupError:
            pass

    def signal(self, sig: int) -> None:
        self.proc.send_signal(sig)

    def tree(self) -> dict[int, bytes]:
        """{pid: cmdline} of every live descendant (plugins run in their own process groups, so a
        signal to pulumi's group does not reach them)."""
        kids: dict[int, list[int]] = {}
        for entry in os.scandir("/proc"):
            if entry.name.isdigit():
                try:
                    with open(f"/proc/{entry.name}/stat", "rb") as f:
                        ppid = int(f.read().rsplit(b")", 1)[1].split()[1])
                except (OSError, ValueError, IndexError):
                    continue
                kids.setdefault(ppid, []).append(int(entry.name))
        out, todo = {}, [self.proc.pid]
        while todo:
            for k in kids.get(todo.pop(), []):
                out[k] = _cmdline(k)
                todo.append(k)
        return out


    def wait(self, timeout: float = 120) -> int:
        try:
            return self.proc.wait(timeout)
        finally:
            self._log.close()

    def kill_if_running(self) -> None:
        """SIGKILL the command's whole group if it still runs: a failed test leaves no engine behind."""
        if self.proc.poll() is None:
            self.signal_group(signal.SIGKILL)
            self.wait(30)

    @property
    def output(self) -> str:
        return self.log_path.read_text(errors="replace")


def up_in_background(st: Stack, log: Path) -> Background:
    return Background(st, "up", "--yes", "--skip-preview", log=log)


@contextlib.contextmanager
def running_up(st: Stack, log: Path) -> Iterator[Background]:
    """`up_in_background` for the body of a `with`, killed on the way out if it still runs."""
    bg = up_in_background(st, log=log)
    try:
        yield bg
    finally:
        bg.kill_if_running()


def up_advancing(st: Stack, emu: Any, seconds: float, *, log: Path, once: str = "waiting for",
                 check: bool = True, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """`pulumi up` whose jobs are held by the emulator (long run times) until its output shows `once`
    (by default: the wait has started, so every job was submitted); then the emulator's clock moves
    `seconds` forward and the up finishes. Nothing it sees depends on how fast the machine is, and no
    test waits for a job in real time."""
    with running_up(st, log) as bg:
        wait_until(lambda: once in bg.output or bg.proc.poll() is not None, timeout, what=repr(once))
        if once in bg.output:
            emu.advance(seconds)
        code = bg.wait(timeout)
    done = subprocess.CompletedProcess(bg.proc.args, code, stdout=bg.output, stderr="")
    if check and code != 0:
        raise harness.PulumiError(f"`pulumi up` exited {code}\n{done.stdout}")
    return done


def wait_until(cond: Callable[[], Any], timeout: float = 60, every: float = 0.05, what: str = "condition") -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = cond()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(every)


def _cmdline(pid: int) -> bytes:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read()
    except OSError:
        return b""


def reap_needed(processes: dict[int, bytes]) -> list[int]:
    """The given processes that are still alive (same command line: no pid reuse)."""
    return [pid for pid, cmd in processes.items() if cmd and _cmdline(pid) == cmd]


def reap(processes: dict[int, bytes]) -> list[int]:
    """SIGKILL the given processes that are still alive (same command line: no pid reuse)."""
    killed = []
    for pid, cmd in processes.items():
        if cmd and _cmdline(pid) == cmd:
            try:
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
            except ProcessLookupError:
                pass
    return killed


@contextlib.contextmanager
def killed_up(st: Stack, emu: Any, log: Path, slow: list[dict[str, Any]], *, first_create_within: float = 60,
              provider_exit_within: float = 15) -> Iterator[Background]:
    """A `pulumi up` (slowed by the `slow` faults) SIGKILLed as a process group after its first create.

    The engine starts plugins in their own process groups, so the kill does not reach the dynamic-provider
    process: it must notice that its engine is gone and exit by itself, which is awaited before the body
    runs (faults cleared). Anything of the killed run still alive afterwards is reaped."""
    emu.set_faults(slow)
    bg = up_in_background(st, log=log)
    wait_until(lambda: emu.counters()["create"] >= 1, first_create_within, what="the first create")
    tree = bg.tree()
    bg.signal_group(signal.SIGKILL)
    assert bg.wait(30) == -signal.SIGKILL
    try:
        emu.clear_faults()
        providers = {pid: cmd for pid, cmd in tree.items() if b"pulumi.dynamic" in cmd}
        assert providers, "no provider process in the killed run's tree"
        wait_until(lambda: not reap_needed(providers), provider_exit_within,
                   what="the orphaned provider to exit by itself")
        yield bg
    finally:
        reap(tree)


CHANGING_CALLS = ("create", "delete", "terminate", "update")  # the emulator's counters of calls that change a job


def assert_refused_by_preview_and_up(st: Stack, emu: Any, line: str, *, never: tuple[str, ...] = ()) -> dict[str, int]:
    """`pulumi preview`, then `pulumi up`, each fail with `line` in their output (no traceback, none of `never`),
    and no call that changes a job reaches the service. The emulator's counters' change over both."""
    before = emu.counters()
    for command in (st.preview, st.up):
        proc = command(check=False)
        out = proc.stdout + proc.stderr
        assert proc.returncode != 0 and line in out, out
        assert "Traceback" not in out and not [w for w in never if w in out], out
    after = emu.counters()
    change = {k: after.get(k, 0) - before.get(k, 0) for k in {*before, *after}}
    assert {k: change.get(k, 0) for k in CHANGING_CALLS} == dict.fromkeys(CHANGING_CALLS, 0), change
    return change


def converge(st: Stack, emu: Any, expected: int | set[str]) -> None:
    """Second up without faults: exactly the declared jobs; then a preview with no changes and no API call."""
    emu.clear_faults()
    st.up()
    assert_converged(emu, st, expected)
    before = emu.counters()["total"]
    st.preview("--expect-no-changes")
    assert emu.counters()["total"] == before, "preview made API calls"


def copied_stack(st: Stack, tmp_path: Path, name: str = "copy") -> Stack:
    """A copy of `st` as a user makes one (issue 43 finding 6): `stack export`, the URNs renamed to stack `name`,
    `stack import` into a new stack with the same settings and secrets (one passphrase): it holds `st`'s seed."""
    import json

    exported = json.dumps(st.export()).replace(f"urn:pulumi:{st.name}::", f"urn:pulumi:{name}::")
    (tmp_path / f"{name}.json").write_text(exported)
    config = (st.workdir / f"Pulumi.{st.name}.yaml").read_text()
    st.run("stack", "init", name, stack_flag=False)
    (st.workdir / f"Pulumi.{name}.yaml").write_text(config)
    st.run("stack", "select", st.name, stack_flag=False)
    copy = type(st)(workdir=st.workdir, name=name, env=st.env)
    copy.run("stack", "import", "--file", str(tmp_path / f"{name}.json"))
    return copy

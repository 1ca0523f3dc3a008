"""B1 (`pulumi up` scale) and B2 (preview and refresh of the N=100 stack), job stack vs baseline stack.

Job stack: the repository's stack program with one sweep of N points (one TrainingJob per point)
against an emulator with --latency-ms L. Baseline: N trivial dynamic resources (benchmarks/trivial.py)
that make no API call. Both run on the same engine and dynamic-provider process model, so
`extra = t(job) - t(baseline)` is the time spent in our provider's work, and its lower bound is
`N x (API calls per job) x L / P` (P = the provider calls in flight at once: CALLS_IN_FLIGHT, to which the
provider widens the Python dynamic-provider server's thread pool of 4).
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.engine_profile import profiling_args, summarize as summarize_engine
from benchmarks.trivial import PROGRAM as TRIVIAL_PROGRAM
from modelarts_provider.core.provider_server import CALLS_IN_FLIGHT
from testkit.harness import REPO_ROOT, Stack, new_stack
from testkit.faults import job_stack, sweep

JOB_TYPE = "pulumi-python:dynamic/modelarts:TrainingJob"
TRIVIAL_TYPE = "pulumi-python:dynamic:Resource"
PROFILER_DIR = Path(__file__).resolve().parent / "profiler"


# --- process tree memory --------------------------------------------------------------------------


def _children_map() -> dict[int, list[int]]:
    kids: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        ppid = int(stat.rsplit(b")", 1)[1].split()[1])
        kids.setdefault(ppid, []).append(int(entry.name))
    return kids


def _descendants(root: int) -> list[int]:
    kids = _children_map()
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        for k in kids.get(pid, []):
            out.append(k)
            todo.append(k)
    return out


def _role(pid: int, root: int) -> str | None:
    """Which part of a `pulumi` command a process is: the engine (the command itself), the program (the
    language host's python running the stack program), the dynamic provider, another resource plugin
    (pulumi-resource-random), or None (launchers, language host)."""
    if pid == root:
        return "engine"
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            argv = f.read().split(b"\0")
    except OSError:
        return None
    if b"pulumi.dynamic" in argv:  # `python -u -m pulumi.dynamic ...` (not its sh launcher)
        return "provider"
    exe = argv[0].rsplit(b"/", 1)[-1]
    if exe.startswith(b"pulumi-resource-"):
        return exe.decode()[len("pulumi-resource-"):]
    if exe.startswith(b"python") and any(a.endswith(b"pulumi-language-python-exec") for a in argv):
        return "program"
    return None


def _hwm_kb(pid: int) -> int | None:
    """VmHWM: the peak resident set of a process, in kB."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


_TICK = os.sysconf("SC_CLK_TCK")


def _cpu_s(pid: int) -> float | None:
    """User + system CPU seconds a process has used so far (/proc/<pid>/stat utime, stime)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / _TICK


class ProviderMemory:
    """Polls the command's process tree; keeps the peak RSS and the CPU time of each part (engine, program,
    provider, plugins; a part's CPU is the last reading of each of its processes, so up to one poll interval
    of a process's last moments is missed). `peak_kb` stays the dynamic provider's (the figure the tables had
    before)."""

    def __init__(self, root_pid: int, every: float = 0.1) -> None:
        self.root, self.every = root_pid, every
        self.peaks_kb: dict[str, int] = {}
        self.cpu: dict[int, float] = {}
        self.roles: dict[int, str | None] = {}
        self._stop = threading.Event()
        self._t = threading.Thread(target=self._run, daemon=True)
        self._t.start()

    @property
    def peak_kb(self) -> int:
        return self.peaks_kb.get("provider", 0)

    def _run(self) -> None:
        while not self._stop.is_set():
            for pid in [self.root, *_descendants(self.root)]:
                if pid not in self.roles:  # a pid's role is read once: cmdlines do not change
                    self.roles[pid] = _role(pid, self.root)
                role = self.roles[pid]
                kb = _hwm_kb(pid) if role else None
                if role and kb is not None:
                    self.peaks_kb[role] = max(self.peaks_kb.get(role, 0), kb)
                cpu = _cpu_s(pid) if role else None
                if cpu is not None:
                    self.cpu[pid] = cpu
            self._stop.wait(self.every)

    def stop(self) -> int:
        self._stop.set()
        self._t.join()
        return self.peak_kb

    def cpu_by_role(self) -> dict[str, float]:
        out: dict[str, float] = {}
        for pid, seconds in self.cpu.items():
            role = self.roles.get(pid)
            if role:
                out[role] = round(out.get(role, 0.0) + seconds, 2)
        return dict(sorted(out.items()))


@dataclass
class Timed:
    seconds: float
    returncode: int
    peak_rss_mb: float | None
    output_tail: str = ""
    peaks_mb: dict[str, float] = field(default_factory=dict)  # per part: engine, program, provider, random
    cpu_s: dict[str, float] = field(default_factory=dict)  # per part: CPU seconds (user + system)


def timed(st: Stack, *args: str, timeout: float = 3600) -> Timed:
    cmd = ["pulumi", *args, "--non-interactive", "--stack", st.name]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=st.workdir, env=st.env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    mem = ProviderMemory(proc.pid)
    out, _ = proc.communicate(timeout=timeout)
    seconds = time.perf_counter() - t0
    peak = mem.stop()
    return Timed(seconds, proc.returncode, round(peak / 1024, 1) if peak else None, out[-4000:],
                 {k: round(v / 1024, 1) for k, v in sorted(mem.peaks_kb.items())}, mem.cpu_by_role())


# --- stacks ---------------------------------------------------------------------------------------


def job_sweep_stack(base: Path, emu: Any, n: int, profile_dir: Path | None) -> Stack:
    grid = {"i": list(range(n))}
    s = sweep(grid, pollIntervalSeconds=0.05, maxJobs=max(n, 1))
    st = job_stack(base, emu, sweeps={"bench": s}, jobs={})
    _profile_env(st, profile_dir)
    return st


def baseline_stack(base: Path, n: int, profile_dir: Path | None) -> Stack:
    st = new_stack(base, TRIVIAL_PROGRAM, project="bench-baseline", config={"bench:n": str(n)})
    st.env["PYTHONPATH"] = str(REPO_ROOT)
    _profile_env(st, profile_dir)
    return st


def _profile_env(st: Stack, profile_dir: Path | None) -> None:
    if profile_dir is not None:
        profile_dir.mkdir(parents=True, exist_ok=True)
        st.env["PYTHONPATH"] = os.pathsep.join([str(PROFILER_DIR), st.env["PYTHONPATH"]])
        st.env["MODELARTS_BENCH_PROFILE"] = str(profile_dir)


# --- results --------------------------------------------------------------------------------------


@dataclass
class ScaleRow:
    n: int
    latency_ms: float
    job_s: float
    baseline_s: float
    extra_s: float
    calls: dict[str, int]
    calls_per_job: float
    bound_s: float
    ratio: float | None
    job_peak_rss_mb: float | None
    baseline_peak_rss_mb: float | None
    jobs_in_emulator: int
    # Where the job stack's time went (emulator create times, same host clock): start -> first POST,
    # first -> last POST, last POST -> end of `up` (the JobsAwait, engine finishing).
    to_first_post_s: float | None = None
    create_span_s: float | None = None
    after_last_post_s: float | None = None
    # Peak RSS (VmHWM, MB) of each process of the `up`: engine, program, provider, random (plugin).
    job_peaks_mb: dict[str, float] = field(default_factory=dict)
    baseline_peaks_mb: dict[str, float] = field(default_factory=dict)
    # CPU seconds of each process of the `up` (same parts).
    job_cpu_s: dict[str, float] = field(default_factory=dict)
    baseline_cpu_s: dict[str, float] = field(default_factory=dict)
    # The state the `up` left (the file backend's checkpoint): its size, and one resource's (compact JSON, the
    # median TrainingJob / trivial resource). Every step of an `up` writes the whole state again.
    job_state_kb: float | None = None
    baseline_state_kb: float | None = None
    job_resource_bytes: int | None = None
    baseline_resource_bytes: int | None = None


@dataclass
class OpRow:
    op: str
    n: int
    job_s: float
    baseline_s: float
    extra_s: float
    calls: dict[str, int]
    bound_s: float
    ratio: float | None
    ok: bool
    note: str = ""


@dataclass
class ScaleResults:
    latency_ms: float
    rows: list[ScaleRow] = field(default_factory=list)
    ops: list[OpRow] = field(default_factory=list)
    profiles: dict[str, Any] = field(default_factory=dict)
    engine_profiles: dict[str, Any] = field(default_factory=dict)  # N -> {jobs, baseline}: engine_profile.py

    def to_json(self) -> dict[str, Any]:
        return {"latency_ms": self.latency_ms, "b1": [asdict(r) for r in self.rows],
                "b2": [asdict(r) for r in self.ops], "profiles": self.profiles,
                "engine_profiles": self.engine_profiles}


def state_size(st: Stack, resource_type: str) -> tuple[float | None, int | None]:
    """(KB of the stack's checkpoint file, bytes of its median resource of `resource_type` as compact JSON)."""
    path = st._checkpoint_path()
    if path is None or not path.exists():
        return None, None
    sizes = sorted(len(json.dumps(r, separators=(",", ":"))) for r in st.resources() if r.get("type") == resource_type)
    return round(path.stat().st_size / 1024, 1), (sizes[len(sizes) // 2] if sizes else None)


def _delta(after: dict[str, int], before: dict[str, int]) -> dict[str, int]:
    return {k: after[k] - before.get(k, 0) for k in after if after[k] - before.get(k, 0)}


def _must(t: Timed, what: str) -> None:
    if t.returncode != 0:
        raise RuntimeError(f"{what} failed (exit {t.returncode}):\n{t.output_tail}")


def run_scale(work: Path, sizes: list[int], latency_ms: float, b2_size: int | None,
              profile_sizes: set[int], log=print, extra_env: dict[str, str] | None = None,
              engine_profile_sizes: set[int] = frozenset()) -> ScaleResults:
    from modelarts_emulator.testing import running_emulator

    res = ScaleResults(latency_ms=latency_ms)
    L = latency_ms / 1000
    wanted = sorted(set(sizes) | ({b2_size} if b2_size else set()))
    for n in wanted:
        prof = work / f"profile-{n}" if n in profile_sizes else None
        with running_emulator(work / f"emu-{n}", latency_ms=latency_ms, phase_seconds=0.05,
                              run_seconds=24 * 3600) as emu:
            log(f"[B1] N={n}: setting up stacks")
            js = job_sweep_stack(work / f"jobs-{n}", emu, n, prof / "jobs" if prof else None)
            bs = baseline_stack(work / f"base-{n}", n, prof / "baseline" if prof else None)
            for st in (js, bs):
                st.env.update(extra_env or {})
                if "PULUMI_BACKEND_URL" in (extra_env or {}):  # another backend (an OBS bucket): the stacks live there
                    st.run("stack", "init", st.name, stack_flag=False)
            log(f"[B1] N={n}: baseline up")
            eprof = work / f"engine-profile-{n}" if n in engine_profile_sizes else None
            tb = timed(bs, "up", "--yes", "--skip-preview", *(profiling_args(eprof / "baseline") if eprof else []))
            _must(tb, f"baseline up N={n}")
            log(f"[B1] N={n}: baseline {tb.seconds:.1f}s; job stack up (L={latency_ms:g} ms)")
            before = emu.counters()
            t_start = time.time()
            tj = timed(js, "up", "--yes", "--skip-preview", *(profiling_args(eprof / "jobs") if eprof else []))
            _must(tj, f"job stack up N={n}")
            calls = _delta(emu.counters(), before)
            creates = sorted((j.get("metadata") or {}).get("create_time") or 0 for j in emu.jobs())
            split = (round(creates[0] / 1000 - t_start, 2), round((creates[-1] - creates[0]) / 1000, 2),
                     round(t_start + tj.seconds - creates[-1] / 1000, 2)) if creates and creates[0] else (None,) * 3
            total = calls.get("total", 0)
            per_job = total / n
            bound = n * per_job * L / CALLS_IN_FLIGHT
            extra = tj.seconds - tb.seconds
            jobs = len(emu.jobs())
            job_state, base_state = state_size(js, JOB_TYPE), state_size(bs, TRIVIAL_TYPE)
            row = ScaleRow(n, latency_ms, round(tj.seconds, 2), round(tb.seconds, 2), round(extra, 2), calls,
                           round(per_job, 2), round(bound, 2), round(extra / bound, 2) if bound else None,
                           tj.peak_rss_mb, tb.peak_rss_mb, jobs, *split, tj.peaks_mb, tb.peaks_mb,
                           tj.cpu_s, tb.cpu_s, job_state[0], base_state[0], job_state[1], base_state[1])
            log(f"[B1] N={n}: jobs {tj.seconds:.1f}s, extra {extra:.1f}s, bound {bound:.1f}s, "
                f"calls/job {per_job:.2f}, provider peak RSS {tj.peak_rss_mb} MB, jobs {jobs}; "
                f"start -> first POST {split[0]}s, create span {split[1]}s, last POST -> end {split[2]}s; "
                f"peak RSS MB {tj.peaks_mb} (baseline {tb.peaks_mb}); CPU s {tj.cpu_s} (baseline {tb.cpu_s})")
            if n in sizes:
                res.rows.append(row)
            if b2_size == n:
                res.ops += run_b2(js, bs, emu, n, L, log)
            if prof:
                res.profiles[str(n)] = summarize_profiles(prof)
            if eprof:
                binary = shutil.which("pulumi", path=js.env.get("PATH"))
                res.engine_profiles[str(n)] = {kind: summarize_engine(eprof / kind, binary)
                                               for kind in ("jobs", "baseline")}
    return res


REFRESH_NOTE = ("must make one read (GET) per job, plus one listing round for the JobsAwait "
                "(at most ceil(N/50) + 1 searches)")


def refresh_ok(n: int, calls: dict[str, int]) -> bool:
    """A refresh reads every TrainingJob (one GET each) and the JobsAwait, whose read refreshes every
    awaited job's phase with one round of the list API: pages of 50, plus the second request that tells
    whether `offset` counts jobs or pages. Nothing else."""
    searches = calls.get("search", 0)
    return (calls.get("get", 0) == n and searches <= math.ceil(n / 50) + 1
            and calls.get("total", 0) == n + searches)


def run_b2(js: Stack, bs: Stack, emu: Any, n: int, L: float, log=print) -> list[OpRow]:
    rows = []
    log(f"[B2] N={n}: preview")
    tb = timed(bs, "preview")
    _must(tb, "baseline preview")
    before = emu.counters()
    tj = timed(js, "preview", "--expect-no-changes")
    _must(tj, "job stack preview")
    calls = _delta(emu.counters(), before)
    total = calls.get("total", 0)
    rows.append(OpRow("preview", n, round(tj.seconds, 2), round(tb.seconds, 2), round(tj.seconds - tb.seconds, 2),
                      calls, 0.0, None, total == 0, "must make 0 API calls"))
    log(f"[B2] preview: {tj.seconds:.1f}s vs {tb.seconds:.1f}s, calls {calls}")
    log(f"[B2] N={n}: refresh")
    tb = timed(bs, "refresh", "--yes", "--skip-preview")
    _must(tb, "baseline refresh")
    before = emu.counters()
    tj = timed(js, "refresh", "--yes", "--skip-preview")
    _must(tj, "job stack refresh")
    calls = _delta(emu.counters(), before)
    total = calls.get("total", 0)
    bound = n * (total / n) * L / CALLS_IN_FLIGHT
    extra = tj.seconds - tb.seconds
    rows.append(OpRow("refresh", n, round(tj.seconds, 2), round(tb.seconds, 2), round(extra, 2), calls,
                      round(bound, 2), round(extra / bound, 2) if bound else None,
                      refresh_ok(n, calls), REFRESH_NOTE))
    log(f"[B2] refresh: {tj.seconds:.1f}s vs {tb.seconds:.1f}s, calls {calls}, bound {bound:.1f}s")
    return rows


def summarize_profiles(prof: Path) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for kind in ("jobs", "baseline"):
        files = sorted((prof / kind).glob("provider-*.json")) if (prof / kind).exists() else []
        merged: dict[str, Any] = {}
        for f in files:
            data = json.loads(f.read_text())
            if not merged or data["samples"] > merged["samples"]:
                merged = data
        if merged:
            hist = {int(k): v for k, v in merged["active_threads"].items()}
            busy = {k: v for k, v in hist.items() if k > 0}
            samples = sum(busy.values()) or 1
            out[kind] = {
                "samples_busy": sum(busy.values()),
                "mean_active_threads_when_busy": round(sum(k * v for k, v in busy.items()) / samples, 2),
                "active_thread_histogram": dict(sorted(hist.items())),
                "top_self": merged["self"][:12],
                "top_total": merged["total"][:25],
            }
    return out

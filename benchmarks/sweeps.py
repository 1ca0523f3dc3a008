"""B4: sweeps that wait, side by side. `pulumi up --skip-preview` of one sweep of N jobs against a fresh
emulator whose jobs take `phase` s Creating, `phase` s Pending and `run` s Running (so a job completes
2 x phase + run after its POST):

- `waitFor: completed`, N = 1, 8, 32, 128: wall time of each `up`, and its ratio to the N = 1 wall of
  the same polling strategy. The ideal is 1.0: the jobs train in parallel and one JobsAwait waits for
  all of them. Run with the default strategy (`auto`) and with the strategy forced to `list` and to
  `get` (MODELARTS_AWAIT_STRATEGY, read by modelarts_provider/awaiting/watcher.py), which also gives
  API calls per job for each: the measurement the default is chosen by.
- `waitFor: none` and `waitFor: created`, N >= 32: API calls per job (emulator counters); `created`
  also with each strategy forced (`none` does not wait: no strategy).

The completed sweeps poll every `poll_s` (default 1 s), the none/created sweeps every `calls_poll_s`
(default 5 s, the stack's default). A wait sees a job complete at its next poll, up to one interval
late, and the polls drift by the time each takes (a page of 50 jobs, or N GETs 8 at a time): with
5 s polls against 12 s jobs that lag alone moves a wall by 0-5 s depending on N and the strategy,
which would swamp what the ratio is meant to show (what N costs).

Each run also records where its time went, from the emulator's job records (create times are the
emulator's clock, the same host's): start -> first POST (program, engine, provider start),
the create span (first to last POST), the training of the last job, and the tail (from the moment the
last job completed to the end of `pulumi up`: the poll interval's lag, the engine finishing).
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.scale import _delta, _must, timed
from testkit.faults import job_stack, sweep

STRATEGIES = ("auto", "list", "get")
STRATEGY_ENV = "MODELARTS_AWAIT_STRATEGY"  # = modelarts_provider.awaiting.watcher.STRATEGY_ENV
WAIT_FORS = ("none", "created", "running", "completed")

# Goals of issue 9 item 6, and issue 59's: 96 jobs within 1.25x one job.
RATIO_GOALS = {32: 1.2, 96: 1.25, 128: 1.5}  # wall(N) / wall(1), waitFor: completed, default strategy
CALLS_GOALS = {"none": 1.2, "created": 2.0}  # API calls per job, default strategy


@dataclass
class B4Settings:
    sizes: list[int]
    call_sizes: list[int]
    strategies: list[str]
    latency_ms: float
    poll_s: float
    calls_poll_s: float
    run_s: float
    phase_s: float

    @property
    def train_s(self) -> float:
        """From a job's POST to Completed."""
        return 2 * self.phase_s + self.run_s


@dataclass
class SweepRun:
    wait_for: str
    strategy: str
    n: int
    poll_s: float
    wall_s: float
    calls: dict[str, int]
    calls_per_job: float
    jobs_in_emulator: int
    phases: dict[str, int]
    to_first_post_s: float | None
    create_span_s: float | None
    tail_s: float | None  # end of `up` - (last POST + train_s); completed runs only
    ratio: float | None = None  # wall / wall(N = 1) of the same wait_for and strategy
    provider_peak_rss_mb: float | None = None


@dataclass
class B4Results:
    settings: B4Settings
    runs: list[SweepRun] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"settings": asdict(self.settings), "runs": [asdict(r) for r in self.runs],
                "goals": goals(self.runs)}


def _sweep_stack(base: Path, emu: Any, n: int, wait_for: str, poll_s: float, timeout_s: float):
    s = sweep({"i": list(range(n))}, waitFor=wait_for, pollIntervalSeconds=poll_s,
              waitTimeoutSeconds=timeout_s, maxJobs=max(n, 1))
    return job_stack(base, emu, sweeps={"b4": s}, jobs={})


def run_one(work: Path, cfg: B4Settings, n: int, wait_for: str, strategy: str, poll_s: float, log=print,
            extra_env: dict[str, str] | None = None) -> SweepRun:
    from modelarts_emulator.testing import running_emulator

    tag = f"{wait_for}-{strategy}-{n}"
    with running_emulator(work / f"emu-{tag}", latency_ms=cfg.latency_ms, phase_seconds=cfg.phase_s,
                          run_seconds=cfg.run_s) as emu:
        st = _sweep_stack(work / f"stack-{tag}", emu, n, wait_for, poll_s, timeout_s=600 + 10 * n)
        st.env.update(extra_env or {})
        st.env.pop(STRATEGY_ENV, None)
        if strategy != "auto":
            st.env[STRATEGY_ENV] = strategy
        before = emu.counters()
        t_start = time.time()
        t = timed(st, "up", "--yes", "--skip-preview", timeout=1800 + 10 * n)
        t_end = t_start + t.seconds
        _must(t, f"B4 up ({tag})")
        calls = _delta(emu.counters(), before)
        jobs = emu.jobs()
    creates = sorted((j.get("metadata") or {}).get("create_time") or 0 for j in jobs)
    first = creates[0] / 1000 if creates else None
    last = creates[-1] / 1000 if creates else None
    phases = dict(Counter((j.get("status") or {}).get("phase") or "?" for j in jobs))
    run = SweepRun(
        wait_for=wait_for, strategy=strategy, n=n, poll_s=poll_s, wall_s=round(t.seconds, 2), calls=calls,
        calls_per_job=round(calls.get("total", 0) / n, 3), jobs_in_emulator=len(jobs), phases=phases,
        to_first_post_s=round(first - t_start, 2) if first else None,
        create_span_s=round(last - first, 2) if first and last else None,
        tail_s=round(t_end - (last + cfg.train_s), 2) if last and wait_for == "completed" else None,
        provider_peak_rss_mb=t.peak_rss_mb)
    if wait_for == "completed" and phases.get("Completed", 0) != n:
        raise RuntimeError(f"B4 {tag}: expected {n} Completed jobs, the emulator has {phases}")
    log(f"[B4] {tag}: {run.wall_s:.1f}s, calls/job {run.calls_per_job:.2f} ({calls}), "
        f"first POST +{run.to_first_post_s}s, create span {run.create_span_s}s, tail {run.tail_s}s, phases {phases}")
    return run


def run_b4(work: Path, cfg: B4Settings, log=print, extra_env: dict[str, str] | None = None) -> B4Results:
    """Completed sweeps interleaved (for each N, every strategy back to back: machine load drifts
    alike for all), then the calls-per-job sweeps of waitFor none (default strategy: it does not wait)
    and created (every strategy)."""
    for s in cfg.strategies:
        if s not in STRATEGIES:
            raise ValueError(f"unknown strategy {s!r}: one of {', '.join(STRATEGIES)}")
    res = B4Results(cfg)
    for n in cfg.sizes:
        for strategy in cfg.strategies:
            res.runs.append(run_one(work, cfg, n, "completed", strategy, cfg.poll_s, log, extra_env))
    for n in cfg.call_sizes:
        for wait_for, strategies in (("none", ["auto"]), ("created", cfg.strategies)):
            for strategy in strategies:
                res.runs.append(run_one(work, cfg, n, wait_for, strategy, cfg.calls_poll_s, log, extra_env))
    for r in res.runs:
        one = next((o for o in res.runs if o.n == 1 and o.wait_for == r.wait_for and o.strategy == r.strategy), None)
        r.ratio = round(r.wall_s / one.wall_s, 3) if one else None
    for line in headline(res.runs):
        log(f"[B4] {line}")
    return res


def calls_by_wait_for(runs: list[SweepRun]) -> dict[str, SweepRun]:
    """For each waitFor measured: the default strategy's run at its largest N (the calls per job a sweep costs)."""
    out: dict[str, SweepRun] = {}
    for r in runs:
        if r.strategy == "auto" and (r.wait_for not in out or r.n > out[r.wait_for].n):
            out[r.wait_for] = r
    return {w: out[w] for w in WAIT_FORS if w in out}


def headline(runs: list[SweepRun]) -> list[str]:
    """What a run says in two lines (issue 59): the largest sweep's wall against one job's, measured side by side in
    this run, with the goal where there is one; API calls per job for each waitFor (default strategy)."""
    lines = []
    done = {r.n: r for r in runs if r.wait_for == "completed" and r.strategy == "auto"}
    if 1 in done and len(done) > 1:
        ratios = []
        for n in sorted(k for k in done if k != 1):
            goal = RATIO_GOALS.get(n)
            ratios.append(f"N = {n} {done[n].wall_s:.2f} s / {done[1].wall_s:.2f} s = {done[n].wall_s / done[1].wall_s:.2f}"
                          + (f" (goal <= {goal:g}: {'met' if done[n].wall_s / done[1].wall_s <= goal else 'NOT met'})"
                             if goal else ""))
        lines.append("waitFor completed, wall against one job (side by side, this run): " + "; ".join(ratios))
    per = calls_by_wait_for(runs)
    if per:
        lines.append("API calls per job (default strategy): " + ", ".join(
            f"{w} {r.calls_per_job:.2f} (N = {r.n})" for w, r in per.items()))
    return lines


def goals(runs: list[SweepRun]) -> list[dict[str, Any]]:
    """Each goal of the issue with the measured value and whether it is met (None: not measured)."""
    out = []
    for n, limit in RATIO_GOALS.items():
        r = next((r for r in runs if r.wait_for == "completed" and r.strategy == "auto" and r.n == n), None)
        value = r.ratio if r else None
        out.append({"goal": f"waitFor completed, N = {n}: wall / wall(N = 1) <= {limit}", "value": value,
                    "met": None if value is None else value <= limit})
    for wait_for, limit in CALLS_GOALS.items():
        rs = [r for r in runs if r.wait_for == wait_for and r.strategy == "auto" and r.n >= 32]
        value = max((r.calls_per_job for r in rs), default=None)
        out.append({"goal": f"waitFor {wait_for}, N >= 32: API calls per job <= {limit}"
                            + (f" (worst of N = {', '.join(str(r.n) for r in rs)})" if rs else ""),
                    "value": value, "met": None if value is None else value <= limit})
    return out

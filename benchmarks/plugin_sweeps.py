"""B4 through the provider plugin, beside the dynamic provider's figures (issue 25 item 5).

    .venv/bin/python -m benchmarks.plugin_sweeps                 # N = 1, 8, 32 (~3 min)
    .venv/bin/python -m benchmarks.plugin_sweeps --sizes 1,8,32,128
    ./dev bench --b4-plugin                                      # B4 as usual, then the same N through the plugin

For each N, back to back (machine load drifts alike for both): B4's `waitFor: completed` sweep of the stack
program (the Python program's dynamic providers, default awaiting strategy), then the same N jobs declared in a
Pulumi YAML program through plugin/modelarts (N TrainingJobs with derived names, one JobsAwait waiting for all,
`poll_seconds` = B4's poll). Same emulator settings as B4 (12 s jobs, L = 100 ms). Writes
benchmarks/results/plugin-b4.md and plugin-b4.json.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from benchmarks.scale import _delta, _must, timed
from benchmarks.sweeps import B4Settings, SweepRun, run_one
from testkit.plugin_program import yaml_stack

ALGORITHM_ID = "8d1b2f4c-5a6e-4f70-9b81-c2d3e4f5a6b7"
CPU = "modelarts.vm.cpu.2u"
RESULTS = Path(__file__).resolve().parent / "results"


def _program(n: int, poll_s: float, timeout_s: float) -> dict[str, Any]:
    resources: dict[str, Any] = {
        f"b4-{i}": {"type": "modelarts:index:TrainingJob",
                    "properties": {"algorithm": {"id": ALGORITHM_ID, "parameters": [{"name": "i", "value": str(i)}]},
                                   "flavorId": CPU}} for i in range(n)}
    resources["jobs-await"] = {"type": "modelarts:index:JobsAwait", "properties": {"jobs": {
        f"b4-{i}": {"jobId": f"${{b4-{i}.jobId}}", "jobName": f"${{b4-{i}.jobName}}", "waitFor": "completed",
                    "timeoutSeconds": timeout_s, "pollSeconds": poll_s} for i in range(n)}}}
    return resources


def run_plugin(work: Path, cfg: B4Settings, n: int, log=print) -> SweepRun:
    from modelarts_emulator.testing import running_emulator

    tag = f"plugin-{n}"
    with running_emulator(work / f"emu-{tag}", latency_ms=cfg.latency_ms, phase_seconds=cfg.phase_s,
                          run_seconds=cfg.run_s) as emu:
        st = yaml_stack(work / f"stack-{tag}", emu, _program(n, cfg.poll_s, 600 + 10 * n))
        before = emu.counters()
        t_start = time.time()
        t = timed(st, "up", "--yes", "--skip-preview", timeout=1800 + 10 * n)
        _must(t, f"B4 up ({tag})")
        calls = _delta(emu.counters(), before)
        jobs = emu.jobs()
    creates = sorted((j.get("metadata") or {}).get("create_time") or 0 for j in jobs)
    first, last = (creates[0] / 1000, creates[-1] / 1000) if creates else (None, None)
    phases: dict[str, int] = {}
    for j in jobs:
        phase = (j.get("status") or {}).get("phase") or "?"
        phases[phase] = phases.get(phase, 0) + 1
    if phases.get("Completed", 0) != n:
        raise RuntimeError(f"B4 {tag}: expected {n} Completed jobs, the emulator has {phases}")
    run = SweepRun(wait_for="completed", strategy="plugin", n=n, poll_s=cfg.poll_s, wall_s=round(t.seconds, 2),
                   calls=calls, calls_per_job=round(calls.get("total", 0) / n, 3), jobs_in_emulator=len(jobs),
                   phases=phases, to_first_post_s=round(first - t_start, 2) if first else None,
                   create_span_s=round(last - first, 2) if first and last else None,
                   tail_s=round(t_start + t.seconds - (last + cfg.train_s), 2) if last else None)
    log(f"[B4 plugin] N = {n}: {run.wall_s:.1f}s, calls/job {run.calls_per_job:.2f}, first POST "
        f"+{run.to_first_post_s}s, create span {run.create_span_s}s, tail {run.tail_s}s")
    return run


def markdown(runs: list[SweepRun], cfg: B4Settings) -> str:
    by = {(r.strategy, r.n): r for r in runs}
    one = {s: by.get((s, 1)) for s in ("auto", "plugin")}
    lines = ["# B4 through the provider plugin, beside the dynamic provider", "",
             f"`waitFor: completed`, {cfg.train_s:g} s jobs (run {cfg.run_s:g} s, phases {cfg.phase_s:g} s), "
             f"L = {cfg.latency_ms:g} ms, poll {cfg.poll_s:g} s; each N: the Python stack program (dynamic "
             "providers, default strategy), then a YAML program through plugin/modelarts, back to back.", "",
             "| N | wall dynamic (s) | ratio dynamic | wall plugin (s) | ratio plugin | first POST dynamic / plugin (s) "
             "| create span dynamic / plugin (s) | calls/job dynamic / plugin |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for n in sorted({r.n for r in runs}):
        d, p = by.get(("auto", n)), by.get(("plugin", n))
        if not d or not p:
            continue
        rd = d.wall_s / one["auto"].wall_s if one["auto"] else float("nan")
        rp = p.wall_s / one["plugin"].wall_s if one["plugin"] else float("nan")
        lines.append(f"| {n} | {d.wall_s:.2f} | {rd:.2f} | {p.wall_s:.2f} | {rp:.2f} | {d.to_first_post_s} / "
                     f"{p.to_first_post_s} | {d.create_span_s} / {p.create_span_s} | {d.calls_per_job:.2f} / "
                     f"{p.calls_per_job:.2f} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1,8,32")
    ap.add_argument("--out", type=Path, default=RESULTS)
    args = ap.parse_args()
    cfg = B4Settings(sizes=[int(x) for x in args.sizes.split(",")], call_sizes=[], strategies=["auto"],
                     latency_ms=100, poll_s=1.0, calls_poll_s=5.0, run_s=10.0, phase_s=1.0)
    runs: list[SweepRun] = []
    with tempfile.TemporaryDirectory(prefix="b4-plugin-") as tmp:
        for n in cfg.sizes:
            runs.append(run_one(Path(tmp), cfg, n, "completed", "auto", cfg.poll_s))
            runs.append(run_plugin(Path(tmp), cfg, n))
    write(args.out, cfg, runs)
    print(markdown(runs, cfg))


def write(out: Path, cfg: B4Settings, runs: list[SweepRun]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "plugin-b4.json").write_text(json.dumps({"settings": asdict(cfg), "runs": [asdict(r) for r in runs]},
                                                   indent=1) + "\n")
    (out / "plugin-b4.md").write_text(markdown(runs, cfg))


if __name__ == "__main__":
    main()

"""B5: how long `logs`, `results`, `status` and `outputs` take to answer on the local stack (issue 56, item 5).

    ./dev up --yes                                   # the local stack, as a person has it
    ./dev bench --cli [--runs 7] [--stack local]     # = python -m benchmarks.cli_latency ...

Each command is run `--runs` times after one run that is not counted (it warms the page cache), the four in turn
(a busy moment weighs on all alike), in two forms: through `./dev COMMAND` (what a person types: its set-up
checks, the stack check, the local clouds' check) and as `python -m modelarts_provider COMMAND --stack STACK` (the
tool alone, with the environment ./dev gives it). Figures: wall seconds (a monotonic clock around the process)
and CPU seconds (user + system of the process and every process it waited for, the pulumi CLI included), min /
median / max; quote the median. Nothing is asserted: the figures are printed (and written to --json when given).
The job and sweep the commands read are the first of the stack's `jobs` and `sweeps` exports, unless given.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEV = ROOT / "dev"


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float, int]:
    """(wall s, CPU s, exit code) of one run of `cmd` (its output kept from the terminal)."""
    cpu0, t0 = _children_cpu(), time.monotonic()
    proc = subprocess.run(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          stdin=subprocess.DEVNULL, text=True)
    wall = time.monotonic() - t0
    if proc.returncode != 0:
        print(f"  {' '.join(cmd[:4])}: exit {proc.returncode}: {proc.stderr.strip()[-300:]}", file=sys.stderr)
    return wall, _children_cpu() - cpu0, proc.returncode


def _tool_env(stack: str) -> dict[str, str]:
    """The environment ./dev gives the tools (scripts/env.sh, the local passphrase)."""
    out = subprocess.run(["bash", "-c", ". scripts/env.sh && env -0"], cwd=ROOT, capture_output=True, check=True)
    env = dict(item.split("=", 1) for item in out.stdout.decode().split("\0") if "=" in item)
    env.setdefault("PULUMI_CONFIG_PASSPHRASE", "local")
    return env


def _first_keys(env: dict[str, str], stack: str) -> tuple[str, str]:
    """The first job key and the first sweep of the stack's exports (the CLI, before any timing)."""
    out = subprocess.run([str(DEV), "pulumi", "stack", "output", "--json", "--stack", stack], cwd=ROOT, env=env,
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"cli_latency: cannot read the outputs of stack {stack} (./dev up --yes makes local): "
                         f"{out.stderr.strip()[-300:]}")
    outputs = json.loads(out.stdout or "{}")
    jobs, sweeps = sorted(outputs.get("jobs") or {}), sorted(outputs.get("sweeps") or {})
    if not jobs or not sweeps:
        raise SystemExit(f"cli_latency: stack {stack} exports no job or no sweep: give --job and --sweep")
    return jobs[0], sweeps[0]


def _spread(values: list[float]) -> dict[str, float]:
    return {"min": min(values), "median": statistics.median(values), "max": max(values)}


def run(runs: int, stack: str, job: str | None, sweep: str | None) -> list[dict[str, object]]:
    env = _tool_env(stack)
    if job is None or sweep is None:
        first_job, first_sweep = _first_keys(dict(os.environ), stack)
        job, sweep = job or first_job, sweep or first_sweep
    commands = {"logs": ["logs", job], "results": ["results", sweep], "status": ["status"], "outputs": ["outputs", job]}
    forms = {"./dev": lambda args: [str(DEV), *args, "--stack", stack],
             "python -m": lambda args: [sys.executable, "-m", "modelarts_provider", *args, "--stack", stack]}
    figures: dict[tuple[str, str], dict[str, list[float]]] = {}
    for form, build in forms.items():
        run_env = dict(os.environ) if form == "./dev" else env
        for args in commands.values():
            timed(build(args), run_env)  # not counted: the page cache, the emulator's first answers
        for _ in range(runs):
            for name, args in commands.items():
                wall, cpu, code = timed(build(args), run_env)
                row = figures.setdefault((form, name), {"wall": [], "cpu": [], "failed": []})
                row["wall"].append(wall)
                row["cpu"].append(cpu)
                if code != 0:
                    row["failed"].append(float(code))
    rows = []
    for (form, name), got in figures.items():
        rows.append({"form": form, "command": " ".join(commands[name]), "runs": len(got["wall"]),
                     "failed": len(got["failed"]), "wall_s": _spread(got["wall"]), "cpu_s": _spread(got["cpu"])})
    return rows


def table(rows: list[dict[str, object]]) -> list[str]:
    lines = [f"{'form':<10} {'command':<28} {'wall s min / median / max':>28} {'cpu s min / median / max':>28}  runs"]
    for r in rows:
        w, c = r["wall_s"], r["cpu_s"]
        assert isinstance(w, dict) and isinstance(c, dict)
        failed = f" ({r['failed']} failed)" if r["failed"] else ""
        lines.append(f"{r['form']:<10} {str(r['command']):<28} "
                     f"{w['min']:>8.3f} / {w['median']:>6.3f} / {w['max']:>6.3f}   "
                     f"{c['min']:>8.3f} / {c['median']:>6.3f} / {c['max']:>6.3f}   {r['runs']}{failed}")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.cli_latency", description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=7, help="counted runs of each command (default 7)")
    ap.add_argument("--stack", default="local")
    ap.add_argument("--job", help="the job key `logs` and `outputs` read (default: the first exported)")
    ap.add_argument("--sweep", help="the sweep `results` reads (default: the first exported)")
    ap.add_argument("--json", type=Path, help="also write the figures there")
    args = ap.parse_args(argv)
    if args.runs < 1:
        ap.error("--runs must be at least 1")
    rows = run(args.runs, args.stack, args.job, args.sweep)
    print(f"[B5] CLI latency on stack {args.stack}, {args.runs} runs each, {os.cpu_count()} CPUs "
          f"(load average {os.getloadavg()[0]:.1f} at the end)")
    for line in table(rows):
        print(line)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

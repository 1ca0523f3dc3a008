"""`python -m benchmarks` (= `./dev bench`): B1 `pulumi up` scale, B2 preview/refresh, B3 client RPS, B4 sweeps that wait.

    ./dev bench                              # N = 1,10,100,300, L = 100 ms, B2 on N = 100, B3, B4
    ./dev bench --sizes 1,10 --no-b2 --no-b3 --no-b4   # a quick subset
    ./dev bench --no-b1 --no-b2 --no-b3 --b4-sizes 1,8 --b4-calls-sizes 32   # B4 alone, small
    ./dev bench --profile 100                # also sample the provider process at N = 100
    ./dev bench --engine-profile 300         # also the engine's own CPU profile at N = 300 (where checkpoints go)
    ./dev bench --cli [--cli-runs 7]         # B5 alone: logs/results/status/outputs on the local stack (./dev up first)

Writes benchmarks/results/{results.md,results.json,scale.png,sweeps.png} (or --out DIR).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _analysis(data: dict, pool: int) -> list[str]:
    notes = []
    for r in data["b1"]:
        ratio = r["ratio"]
        if ratio is None:
            continue
        if r["bound_s"] < 1.0 and r["extra_s"] < 3.0:
            notes.append(f"N={r['n']}: the bound ({r['bound_s']:.2f}s) is below the fixed cost of a run: the extra "
                         f"{r['extra_s']:.1f}s is mostly importing modelarts_provider (pydantic models, client) in the "
                         f"program and in the provider process, plus the serial calls of the first job (POST after "
                         f"the shared listing, then the wait).")
        elif ratio > 1.5:
            notes.append(f"N={r['n']}: extra time is {ratio:.1f}× the bound — see the profile section "
                         f"(`--profile {r['n']}`) for where the provider threads wait.")
        elif ratio < 0.8:
            notes.append(f"N={r['n']}: extra time is below the bound ({ratio:.2f}×): the engine's own per-resource "
                         f"work overlaps with our API waits, and at small N fixed costs dominate the difference.")
    for r in data["b2"]:
        if not r["ok"]:
            notes.append(f"B2 {r['op']}: requirement not met ({r['note']}): calls {r['calls']}.")
    cmp = data.get("b1_vs_before")
    if cmp and cmp["now"]["calls_per_job"] != cmp["before"]["calls_per_job"]:
        b, n = cmp["before"], cmp["now"]
        notes.append(f"B1 N={b['n']}: {n['calls_per_job']:g} API calls per job now (a POST plus a share of the "
                     f"process's one listing and of the JobsAwait's polls) against {b['calls_per_job']:g} before, "
                     f"so the bound is {n['bound_s']:.1f}s instead of {b['bound_s']:.1f}s: compare the walls "
                     f"({n['job_s']:.1f}s vs {b['job_s']:.1f}s) as well as extra / bound.")
    notes += _b4_analysis(data.get("b4"), pool)
    return notes


def _b4_analysis(b4: dict | None, pool: int) -> list[str]:
    """Where the extra wall of the largest completed sweep went, per strategy; the goals not met."""
    if not b4:
        return []
    notes = []
    runs = [r for r in b4["runs"] if r["wait_for"] == "completed"]
    for s in b4["settings"]["strategies"]:
        rs = {r["n"]: r for r in runs if r["strategy"] == s}
        if 1 not in rs or len(rs) < 2:
            continue
        one, big = rs[1], rs[max(rs)]
        parts = [(k, (big[k] or 0) - (one[k] or 0)) for k in ("to_first_post_s", "create_span_s", "tail_s")]
        names = {"to_first_post_s": "start → first POST", "create_span_s": "create span", "tail_s": "tail"}
        notes.append(f"B4 {s}: wall(N={big['n']}) − wall(1) = {big['wall_s'] - one['wall_s']:.1f}s, of which "
                     + ", ".join(f"{names[k]} {v:+.1f}s" for k, v in parts)
                     + f" (creates: {big['n']} POSTs, at most {pool} in flight"
                     f" at L = {b4['settings']['latency_ms']:g} ms, engine steps and state checkpoints).")
    for g in b4.get("goals") or []:
        if g["met"] is False:
            notes.append(f"B4 goal not met: {g['goal']} (measured {g['value']}).")
    return notes


def recorded_command(args: list[str]) -> str:
    """The command line as results.md records it, through the project's one masking step: a secret passed
    with --pulumi-env (a state bucket's AWS_SECRET_ACCESS_KEY, a passphrase) is not written down."""
    from modelarts_provider.core.masking import mask

    return mask(" ".join(["./dev bench", *args]))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1,10,100,300", help="comma-separated N for B1")
    ap.add_argument("--latency-ms", type=float, default=100.0, help="emulator latency per API call (L)")
    ap.add_argument("--b2-size", type=int, default=100, help="N of the stack B2 previews and refreshes")
    ap.add_argument("--no-b1", action="store_true", help="skip B1 (B2 still ups its own N unless --no-b2)")
    ap.add_argument("--no-b2", action="store_true")
    ap.add_argument("--no-b3", action="store_true")
    ap.add_argument("--b3-calls", type=int, default=500)
    ap.add_argument("--no-b4", action="store_true")
    ap.add_argument("--b4-sizes", default="1,8,32,128", help="N of the waitFor: completed sweeps (ratio to N = 1)")
    ap.add_argument("--b4-calls-sizes", default="32,128", help="N of the waitFor: none / created sweeps (calls/job)")
    ap.add_argument("--b4-strategies", default="auto,list,get",
                    help="awaiting strategies of the completed and created sweeps (auto = the default, no override)")
    ap.add_argument("--b4-latency-ms", type=float, default=None, help="emulator latency for B4 (default: --latency-ms)")
    ap.add_argument("--b4-poll-seconds", type=float, default=1.0,
                    help="pollIntervalSeconds of the waitFor: completed sweeps")
    ap.add_argument("--b4-calls-poll-seconds", type=float, default=5.0,
                    help="pollIntervalSeconds of the waitFor: none / created sweeps (5 = the stack default)")
    ap.add_argument("--b4-run-seconds", type=float, default=10.0, help="emulator --run-seconds for B4")
    ap.add_argument("--b4-phase-seconds", type=float, default=1.0, help="emulator --phase-seconds for B4")
    ap.add_argument("--b4-plugin", action="store_true",
                    help="B4's completed sweeps also through the provider plugin (a YAML program), beside the dynamic "
                         "provider's: plugin-b4.md (issue 25; `python -m benchmarks.plugin_sweeps` runs them alone)")
    ap.add_argument("--profile", default="", help="comma-separated N whose provider process is sampled")
    ap.add_argument("--engine-profile", default="",
                    help="comma-separated N whose `up`s (job stack and baseline) write the engine's CPU profile: "
                         "results.md splits the engine's CPU (checkpoints and their parts, GC)")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    ap.add_argument("--pulumi-env", action="append", default=[], metavar="KEY=VALUE",
                    help="extra environment for every pulumi command, e.g. PULUMI_SKIP_CHECKPOINTS=true")
    ap.add_argument("--keep", action="store_true", help="keep the temporary stacks and emulator databases")
    ap.add_argument("--render", type=Path, metavar="RESULTS_JSON",
                    help="measure nothing: write results.md and the plots again from a results.json (its figures "
                         "as measured; the requirements and goals judged again by the current code)")
    ap.add_argument("--cli", action="store_true",
                    help="B5 alone: how long logs, results, status and outputs take on the local stack (./dev up "
                         "first), min/median/max of --cli-runs runs (benchmarks/cli_latency.py)")
    ap.add_argument("--cli-runs", type=int, default=7)
    ap.add_argument("--cli-stack", default="local")
    args = ap.parse_args(argv)
    if args.render:
        return render(args.render, args.out)
    if args.cli:
        from benchmarks.cli_latency import main as cli_latency

        return cli_latency(["--runs", str(args.cli_runs), "--stack", args.cli_stack])

    sizes = [] if args.no_b1 else [int(x) for x in args.sizes.split(",") if x.strip()]
    profile = {int(x) for x in args.profile.split(",") if x.strip()}
    engine_profile = {int(x) for x in args.engine_profile.split(",") if x.strip()}
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("PULUMI_RUNTIME_VIRTUALENV", str(ROOT / ".venv"))
    from modelarts_provider.core.provider_server import CALLS_IN_FLIGHT
    from benchmarks.report import b1_comparison, calls_in_flight, markdown, plot, plot_b4
    from benchmarks.scale import run_scale
    from benchmarks.sweeps import B4Settings, run_b4
    from testkit.harness import PULUMI_VERSION, engine_bin_dir

    if not shutil.which("pulumi", path=str(engine_bin_dir())) and not shutil.which("pulumi"):
        print("pulumi not found: run ./dev setup (or ./dev bench, which does it)", file=sys.stderr)
        return 2

    work = Path(tempfile.mkdtemp(prefix="modelarts-bench-"))
    t0 = time.time()
    try:
        extra_env = dict(kv.split("=", 1) for kv in args.pulumi_env)
        res = run_scale(work, sizes, args.latency_ms, None if args.no_b2 else args.b2_size, profile,
                        log=lambda m: print(m, flush=True), extra_env=extra_env, engine_profile_sizes=engine_profile)
        b4 = None
        if not args.no_b4:
            cfg = B4Settings(sizes=[int(x) for x in args.b4_sizes.split(",") if x.strip()],
                             call_sizes=[int(x) for x in args.b4_calls_sizes.split(",") if x.strip()],
                             strategies=[x.strip() for x in args.b4_strategies.split(",") if x.strip()],
                             latency_ms=args.latency_ms if args.b4_latency_ms is None else args.b4_latency_ms,
                             poll_s=args.b4_poll_seconds,
                             calls_poll_s=args.b4_calls_poll_seconds, run_s=args.b4_run_seconds, phase_s=args.b4_phase_seconds)
            b4_res = run_b4(work, cfg, log=lambda m: print(m, flush=True), extra_env=extra_env)
            b4 = b4_res.to_json()
            if args.b4_plugin:
                from benchmarks.plugin_sweeps import run_plugin, write

                dynamic = [r for r in b4_res.runs if r.wait_for == "completed" and r.strategy == "auto"]
                write(args.out, cfg, dynamic + [run_plugin(work, cfg, n, log=lambda m: print(m, flush=True))
                                                for n in cfg.sizes])
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"kept {work}")
    data = res.to_json()
    data["b1_vs_before"] = None if extra_env else b1_comparison(data)  # the reference ran without extra env
    data["b4"] = b4

    b3_text = None
    if not args.no_b3:
        script = ROOT / "benchmarks" / "client_rps.py"
        if script.exists():
            print("[B3] client requests per second", flush=True)
            proc = subprocess.run([sys.executable, str(script), "--calls", str(args.b3_calls)], cwd=ROOT,
                                  text=True, capture_output=True, timeout=900)
            b3_text = proc.stdout + (f"\n(exit {proc.returncode})\n{proc.stderr[-2000:]}" if proc.returncode else "")
            print(b3_text, flush=True)
        else:
            b3_text = "benchmarks/client_rps.py is not present"

    cmd = recorded_command(sys.argv[1:] if argv is None else argv)
    meta = {"command": cmd, "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "machine": f"{platform.machine()}, {os.cpu_count()} CPUs (shared), Python {platform.python_version()}",
            "pulumi": f"v{PULUMI_VERSION}", "duration_s": round(time.time() - t0, 1),
            "calls_in_flight": CALLS_IN_FLIGHT}  # P, read back by report.calls_in_flight
    args.out.mkdir(parents=True, exist_ok=True)
    notes = _analysis(data, calls_in_flight(meta))
    plot_note = plot(data, args.out / "scale.png") if data["b1"] else "no B1 rows: scale.png not written"
    if plot_note:
        notes.append(plot_note)
    b4_plot_note = plot_b4(b4, args.out / "sweeps.png") if b4 else None
    if b4_plot_note:
        notes.append(b4_plot_note)
    (args.out / "results.json").write_text(json.dumps({"meta": meta, **data, "b3": b3_text}, indent=2) + "\n")
    (args.out / "results.md").write_text(markdown(data, meta, b3_text, notes))
    print((args.out / "results.md").read_text())
    print(f"wrote {args.out / 'results.md'}, {args.out / 'results.json'}" +
          ("" if plot_note else f", {args.out / 'scale.png'}") +
          (f", {args.out / 'sweeps.png'}" if b4 and not b4_plot_note else ""))
    return 0


def render(source: Path, out: Path) -> int:
    sys.path.insert(0, str(ROOT))
    from benchmarks.report import b1_comparison, calls_in_flight, markdown, plot, plot_b4
    from benchmarks.scale import REFRESH_NOTE, refresh_ok
    from benchmarks.sweeps import SweepRun, goals

    raw = json.loads(source.read_text())
    meta, b3_text = raw.pop("meta"), raw.pop("b3", None)
    data = raw
    for r in data.get("b2") or []:
        if r["op"] == "refresh":
            r["ok"], r["note"] = refresh_ok(r["n"], r["calls"]), REFRESH_NOTE
    data["b1_vs_before"] = None if "--pulumi-env" in meta["command"] else b1_comparison(data)
    if data.get("b4"):
        data["b4"]["goals"] = goals([SweepRun(**r) for r in data["b4"]["runs"]])
    meta["rendered"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    out.mkdir(parents=True, exist_ok=True)
    notes = _analysis(data, calls_in_flight(meta))
    for note in (plot(data, out / "scale.png") if data.get("b1") else None,
                 plot_b4(data["b4"], out / "sweeps.png") if data.get("b4") else None):
        if note:
            notes.append(note)
    (out / "results.json").write_text(json.dumps({"meta": meta, **data, "b3": b3_text}, indent=2) + "\n")
    (out / "results.md").write_text(markdown(data, meta, b3_text, notes))
    print(f"rendered {out / 'results.md'} from {source}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

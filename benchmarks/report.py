"""Markdown table, PNG plot and README summary of a benchmark run."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def _fmt(v: Any) -> str:
    if v is None:
        return "–"
    if isinstance(v, float):
        return f"{v:.2f}"
    return str(v)


def _calls(c: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in c.items() if k != "total") + f" (total {c.get('total', 0)})"


# B1 at N = 300 before the waiting design of issue 9 (a create waited for its own job: 3 calls per job),
# commit a811b92, benchmarks/README.md: the figure B1 must not regress from.
B1_REFERENCE = {"commit": "a811b92", "date": "2026-11-22 15:42 UTC", "n": 300, "latency_ms": 100.0,
                "job_s": 36.26, "baseline_s": 11.88, "extra_s": 24.38, "calls_per_job": 3.0, "bound_s": 22.5,
                "ratio": 1.08}


def b1_comparison(data: dict[str, Any]) -> dict[str, Any] | None:
    """This run's B1 row at the reference N and L against B1_REFERENCE (None when not measured)."""
    ref = B1_REFERENCE
    row = next((r for r in data.get("b1") or [] if r["n"] == ref["n"] and r["latency_ms"] == ref["latency_ms"]), None)
    if row is None:
        return None
    return {"before": ref, "now": {k: row[k] for k in ("job_s", "baseline_s", "extra_s", "calls_per_job",
                                                       "bound_s", "ratio")},
            "job_s_change": round(row["job_s"] / ref["job_s"], 3),
            "regressed": row["job_s"] > ref["job_s"] * 1.1 and row["extra_s"] > ref["extra_s"] * 1.1}


# The order of the processes in the peak-memory table.
_PARTS = ["engine", "program", "provider", "random"]


def calls_in_flight(meta: dict[str, Any]) -> int:
    """P, the provider calls in flight at once, as recorded (4: the dynamic-provider server's own threads,
    before the provider widened them)."""
    return int(meta.get("calls_in_flight") or 4)


def markdown(data: dict[str, Any], meta: dict[str, Any], b3_text: str | None, notes: list[str]) -> str:
    L = data["latency_ms"]
    lines = [
        "# Benchmark results",
        "",
        f"Command: `{meta['command']}`  " + (f"(re-rendered {meta['rendered']} with `--render`: same figures, "
                                             f"requirements judged by the current code)  " if meta.get("rendered") else ""),
        f"Date: {meta['date']}; machine: {meta['machine']}; Pulumi {meta['pulumi']}; emulator latency L = {L:g} ms "
        f"per API call; provider calls in flight at once P = {calls_in_flight(meta)}.",
        "",
        "## B1 — `pulumi up` of a sweep of N jobs vs N trivial dynamic resources",
        "",
        f"bound = N × (API calls per job, measured) × L / P (P = {calls_in_flight(meta)}); ratio = extra / bound "
        "(1.0 = the limit of P calls in flight).",
        "",
        "| N | job stack up (s) | baseline up (s) | extra (s) | API calls/job | bound (s) | extra / bound "
        "| provider peak RSS (MB) | baseline provider RSS (MB) | jobs in emulator |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in data["b1"]:
        lines.append(f"| {r['n']} | {_fmt(r['job_s'])} | {_fmt(r['baseline_s'])} | {_fmt(r['extra_s'])} | "
                     f"{_fmt(r['calls_per_job'])} | {_fmt(r['bound_s'])} | {_fmt(r['ratio'])} | "
                     f"{_fmt(r['job_peak_rss_mb'])} | {_fmt(r['baseline_peak_rss_mb'])} | {r['jobs_in_emulator']} |")
    if data["b1"]:
        lines += ["", "API calls by operation (job stack up): " + "; ".join(
            f"N={r['n']}: {_calls(r['calls'])}" for r in data["b1"])]
        split = [r for r in data["b1"] if r.get("create_span_s") is not None]
        if split:
            lines += ["", "Job stack up, where the time went (emulator create times): " + "; ".join(
                f"N={r['n']}: start → first POST {_fmt(r['to_first_post_s'])}s, POSTs {_fmt(r['create_span_s'])}s, "
                f"last POST → end {_fmt(r['after_last_post_s'])}s" for r in split)]
    peaks = [r for r in data["b1"] if r.get("job_peaks_mb")]
    if peaks:
        parts = sorted({k for r in peaks for k in (*r["job_peaks_mb"], *r.get("baseline_peaks_mb", {}))},
                       key=lambda k: (_PARTS.index(k) if k in _PARTS else len(_PARTS), k))
        lines += ["", "Peak memory (VmHWM, MB) of each process of the `up`, job stack / baseline:", "",
                  "| N | " + " | ".join(parts) + " |", "|---:|" + "---:|" * len(parts)]
        for r in peaks:
            base = r.get("baseline_peaks_mb") or {}
            lines.append(f"| {r['n']} | " + " | ".join(
                f"{_fmt(r['job_peaks_mb'].get(k))} / {_fmt(base.get(k))}" for k in parts) + " |")
    cpus = [r for r in data["b1"] if r.get("job_cpu_s")]
    if cpus:
        parts = sorted({k for r in cpus for k in (*r["job_cpu_s"], *r.get("baseline_cpu_s", {}))},
                       key=lambda k: (_PARTS.index(k) if k in _PARTS else len(_PARTS), k))
        lines += ["", "CPU seconds (user + system) of each process of the `up`, job stack / baseline "
                      "(2 cores: a wall of W seconds has at most 2W CPU seconds):", "",
                  "| N | wall (s) | " + " | ".join(parts) + " |", "|---:|---:|" + "---:|" * len(parts)]
        for r in cpus:
            base = r.get("baseline_cpu_s") or {}
            lines.append(f"| {r['n']} | {_fmt(r['job_s'])} / {_fmt(r['baseline_s'])} | " + " | ".join(
                f"{_fmt(r['job_cpu_s'].get(k))} / {_fmt(base.get(k))}" for k in parts) + " |")
    states = [r for r in data["b1"] if r.get("job_state_kb") is not None]
    if states:
        lines += ["", "State the `up` left (file backend), job stack / baseline: the checkpoint file, and one resource "
                      "(compact JSON, median TrainingJob / trivial resource). Every step writes the whole state.", "",
                  "| N | state file (KB) | one resource (bytes) |", "|---:|---:|---:|"]
        lines += [f"| {r['n']} | {_fmt(r['job_state_kb'])} / {_fmt(r.get('baseline_state_kb'))} | "
                  f"{_fmt(r.get('job_resource_bytes'))} / {_fmt(r.get('baseline_resource_bytes'))} |" for r in states]
    lines += _engine_profiles(data.get("engine_profiles") or {})
    lines += _scale_goals(data)
    cmp = data.get("b1_vs_before")
    if cmp:
        b, n = cmp["before"], cmp["now"]
        lines += ["", f"B1 at N = {b['n']} against the committed figure before the new waiting design "
                      f"(commit {b['commit']}, {b['date']}):", "",
                  "| | job stack up (s) | baseline up (s) | extra (s) | API calls/job | bound (s) | extra / bound |",
                  "|---|---:|---:|---:|---:|---:|---:|",
                  f"| before | {_fmt(b['job_s'])} | {_fmt(b['baseline_s'])} | {_fmt(b['extra_s'])} | "
                  f"{_fmt(b['calls_per_job'])} | {_fmt(b['bound_s'])} | {_fmt(b['ratio'])} |",
                  f"| now | {_fmt(n['job_s'])} | {_fmt(n['baseline_s'])} | {_fmt(n['extra_s'])} | "
                  f"{_fmt(n['calls_per_job'])} | {_fmt(n['bound_s'])} | {_fmt(n['ratio'])} |", "",
                  f"Job stack up now / before: {cmp['job_s_change']:.2f}× — "
                  + ("**regressed**." if cmp["regressed"] else "no regression.")]
    if data["b2"]:
        lines += ["", f"## B2 — preview and refresh of the N = {data['b2'][0]['n']} stack", "",
                  "| command | job stack (s) | baseline (s) | extra (s) | API calls | bound (s) | extra / bound | "
                  "requirement | met |",
                  "|---|---:|---:|---:|---|---:|---:|---|---|"]
        for r in data["b2"]:
            lines.append(f"| {r['op']} | {_fmt(r['job_s'])} | {_fmt(r['baseline_s'])} | {_fmt(r['extra_s'])} | "
                         f"{_calls(r['calls']) if r['calls'] else 'none'} | {_fmt(r['bound_s'])} | {_fmt(r['ratio'])} | "
                         f"{r['note']} | {'yes' if r['ok'] else '**NO**'} |")
    if b3_text is not None:
        lines += ["", "## B3 — the client alone (benchmarks/client_rps.py)", "", "```", b3_text.rstrip(), "```"]
    if data.get("b4"):
        lines += b4_markdown(data["b4"])
    prof = data.get("profiles") or {}
    if prof:
        lines += ["", "## Profiles (wall-clock sampling of the dynamic-provider process)", ""]
        for n, kinds in prof.items():
            for kind, p in kinds.items():
                lines.append(f"- N={n} {kind}: mean busy provider threads {p['mean_active_threads_when_busy']} "
                             f"(histogram {p['active_thread_histogram']}); top self time: " +
                             ", ".join(f"{name} {cnt}" for name, cnt in p["top_self"][:6]))
    if notes:
        lines += ["", "## Analysis", ""] + [f"- {n}" for n in notes]
    return "\n".join(lines) + "\n"


def _save(fig: Any, path: Path) -> None:
    """Write a finished figure and free it (pyplot keeps every open figure alive)."""
    import matplotlib.pyplot as plt

    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def plot(data: dict[str, Any], path: Path) -> str | None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "matplotlib is not installed (pip install -e '.[bench]'): no PNG written"
    rows = data["b1"]
    if not rows:
        return "no B1 rows: no plot"
    ns = [r["n"] for r in rows]
    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=120)
    ax.plot(ns, [r["job_s"] for r in rows], "o-", label="TrainingJob sweep: pulumi up")
    ax.plot(ns, [r["baseline_s"] for r in rows], "s-", label="baseline: N trivial dynamic resources")
    ax.plot(ns, [r["baseline_s"] + r["bound_s"] for r in rows], "k--", linewidth=1,
            label="baseline + bound (N × calls/job × L / P)")
    ax.set_xlabel("N (jobs / resources)")
    ax.set_ylabel("wall time (s)")
    ax.set_title(f"pulumi up vs N (emulator latency {data['latency_ms']:g} ms per call)")
    if max(ns) / max(min(ns), 1) >= 30:
        ax.set_xscale("log")
        ax.set_yscale("log")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    _save(fig, path)
    return None


# --- B4 -------------------------------------------------------------------------------------------


def _engine_profiles(profiles: dict[str, Any]) -> list[str]:
    """The engine's CPU by part (benchmarks/engine_profile.py), job stack and baseline side by side."""
    if not profiles:
        return []
    lines = ["", "Engine CPU, by part (its own CPU profile, `--engine-profile`; cumulative seconds and share of "
                 "the engine's samples, job stack / baseline):", ""]
    for n, kinds in profiles.items():
        jobs, base = kinds.get("jobs") or {}, kinds.get("baseline") or {}
        if "parts" not in jobs:
            lines.append(f"- N={n}: {jobs.get('note', 'no profile')}")
            continue
        lines += [f"| N = {n} | job stack | baseline |", "|---|---:|---:|",
                  f"| engine samples (s) | {_fmt(jobs.get('total_s'))} | {_fmt(base.get('total_s'))} |"]
        for label, (sec, pct) in jobs["parts"].items():
            b = (base.get("parts") or {}).get(label)
            lines.append(f"| {label} | {_fmt(sec)} s ({pct:.0f} %) | "
                         + (f"{_fmt(b[0])} s ({b[1]:.0f} %)" if b else "–") + " |")
        lines.append("")
    return lines


def scale_goals(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The scale goals (sweeps at scale): B4 wall ratios at N = 96 and 512; B1 at N = 1,000 against ten times
    N = 100 and against the no-op baseline of the same N. value None: not measured in this run."""
    b1 = {r["n"]: r for r in data.get("b1") or []}
    b4 = data.get("b4") or {}
    runs = {r["n"]: r["wall_s"] for r in b4.get("runs") or []
            if r.get("wait_for") == "completed" and r.get("strategy") == "auto"}
    out = []
    for n, limit in ((96, 1.25), (512, 1.5)):
        value = round(runs[n] / runs[1], 2) if n in runs and 1 in runs else None
        out.append({"goal": f"B4 waitFor completed, N = {n}: wall / wall(N = 1) <= {limit}", "value": value,
                    "met": None if value is None else value <= limit})
    ten = round(b1[1000]["job_s"] / (10 * b1[100]["job_s"]), 2) if 1000 in b1 and 100 in b1 else None
    out.append({"goal": "B1 N = 1,000: up / (10 x up at N = 100) <= 3", "value": ten,
                "met": None if ten is None else ten <= 3})
    base = round(b1[1000]["job_s"] / b1[1000]["baseline_s"], 2) if 1000 in b1 else None
    out.append({"goal": "B1 N = 1,000: up / no-op baseline up of N = 1,000 <= 2", "value": base,
                "met": None if base is None else base <= 2})
    return out


def _scale_goals(data: dict[str, Any]) -> list[str]:
    goals = [g for g in scale_goals(data) if g["value"] is not None]
    if not goals:
        return []
    return ["", "Scale goals (sweeps at scale; one run):", "", "| goal | measured | met |", "|---|---:|---|"] + [
        f"| {g['goal']} | {_fmt(g['value'])} | {_met(g['met'])} |" for g in goals]


def _met(v: bool | None) -> str:
    return "–" if v is None else ("yes" if v else "**NO**")


def b4_markdown(b4: dict[str, Any]) -> list[str]:
    cfg, runs = b4["settings"], b4["runs"]
    done = [r for r in runs if r["wait_for"] == "completed"]
    lines = ["", "## B4 — sweeps that wait: N jobs side by side, and API calls per job", "",
             f"Fresh emulator per run: `--run-seconds {cfg['run_s']:g} --phase-seconds {cfg['phase_s']:g} "
             f"--latency-ms {cfg['latency_ms']:g}` (a job completes {2 * cfg['phase_s'] + cfg['run_s']:g} s after "
             f"its POST); one sweep of N jobs; wall = `pulumi up "
             f"--skip-preview`. Strategy = the awaiting poll (`auto` = the default; `list` / `get` forced with "
             f"MODELARTS_AWAIT_STRATEGY). ratio = wall / wall(N = 1) of the same strategy."]
    strategies = list(cfg["strategies"])
    summary = _b4_headline(runs)
    if summary:
        lines += ["", "### In short", "", *[f"- {line}" for line in summary]]
    if done:
        head = "| N | " + " | ".join(f"wall {s} (s) | ratio {s}" for s in strategies) + " | " + \
            " | ".join(f"calls/job {s}" for s in strategies) + " |"
        lines += ["", f"### `waitFor: completed`, side by side (`pollIntervalSeconds: {cfg['poll_s']:g}`)", "", head,
                  "|---:|" + "---:|" * (3 * len(strategies))]
        for n in cfg["sizes"]:
            by = {r["strategy"]: r for r in done if r["n"] == n}
            cells = [f"{_fmt(by[s]['wall_s']) if s in by else '–'} | {_fmt(by[s]['ratio']) if s in by else '–'}"
                     for s in strategies]
            cells += [_fmt(by[s]["calls_per_job"]) if s in by else "–" for s in strategies]
            lines.append(f"| {n} | " + " | ".join(cells) + " |")
        lines += ["", "Where the time went (emulator job records; tail = end of `up` − the moment the last job "
                      "completed: poll lag + engine finishing):", "",
                  "| N | strategy | wall (s) | start → first POST (s) | create span (s) | training (s) | tail (s) "
                  "| API calls (by operation) | provider peak RSS (MB) |",
                  "|---:|---|---:|---:|---:|---:|---:|---|---:|"]
        for r in done:
            lines.append(f"| {r['n']} | {r['strategy']} | {_fmt(r['wall_s'])} | {_fmt(r['to_first_post_s'])} | "
                         f"{_fmt(r['create_span_s'])} | {2 * cfg['phase_s'] + cfg['run_s']:g} | {_fmt(r['tail_s'])} | "
                         f"{_calls(r['calls'])} | {_fmt(r['provider_peak_rss_mb'])} |")
    others = [r for r in runs if r["wait_for"] != "completed"]
    if others:
        lines += ["", f"### API calls per job, `waitFor: none` and `waitFor: created` "
                      f"(`pollIntervalSeconds: {cfg['calls_poll_s']:g}`)", "",
                  "| waitFor | N | strategy | wall (s) | API calls/job | API calls (by operation) | phases at the end |",
                  "|---|---:|---|---:|---:|---|---|"]
        for r in others:
            lines.append(f"| {r['wait_for']} | {r['n']} | {r['strategy'] if r['wait_for'] != 'none' else '(no wait)'} | "
                         f"{_fmt(r['wall_s'])} | {_fmt(r['calls_per_job'])} | "
                         f"{_calls(r['calls'])} | {', '.join(f'{k} {v}' for k, v in r['phases'].items())} |")
    if b4.get("goals"):
        lines += ["", "### Goals (issue 9 item 6)", "", "| goal | measured | met |", "|---|---:|---|"]
        for g in b4["goals"]:
            lines.append(f"| {g['goal']} | {_fmt(g['value'])} | {_met(g['met'])} |")
    return lines


def _b4_headline(runs: list[dict[str, Any]]) -> list[str]:
    from benchmarks.sweeps import SweepRun, headline

    return headline([SweepRun(**r) for r in runs])


def plot_b4(b4: dict[str, Any], path: Path) -> str | None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "matplotlib is not installed (pip install -e '.[bench]'): no B4 PNG written"
    done = [r for r in b4["runs"] if r["wait_for"] == "completed"]
    if not done:
        return None
    cfg = b4["settings"]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4.2), dpi=120)
    for s, mark in zip(cfg["strategies"], "osd"):
        rs = sorted((r for r in done if r["strategy"] == s), key=lambda r: r["n"])
        ns = [r["n"] for r in rs]
        ax1.plot(ns, [r["ratio"] for r in rs], mark + "-", label=f"{s}" + (" (default)" if s == "auto" else ""))
        ax2.plot(ns, [r["calls_per_job"] for r in rs], mark + ("--" if s == "auto" else "-"), label=s)
    ax1.plot([32, 128], [1.2, 1.5], "rv", label="goal (max)")
    ax1.axhline(1.0, color="k", linewidth=0.8, linestyle="--")
    ax1.set_title(f"waitFor completed: wall / wall(N=1)\n(job = {2 * cfg['phase_s'] + cfg['run_s']:g} s, "
                  f"L = {cfg['latency_ms']:g} ms, poll {cfg['poll_s']:g} s)", fontsize=9)
    ax2.set_title("waitFor completed: API calls per job", fontsize=9)
    from matplotlib.ticker import NullFormatter, ScalarFormatter

    ns = sorted({r["n"] for r in done} | {32, 128})
    ax2.set_ylim(bottom=0)
    for ax in (ax1, ax2):
        ax.set_xscale("log", base=2)
        ax.set_xticks(ns)
        ax.xaxis.set_major_formatter(ScalarFormatter())
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_xlabel("N (jobs in the sweep)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    _save(fig, path)
    return None

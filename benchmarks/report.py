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


def markdown(data: dict[str, Any], meta: dict[str, Any], b3_text: str | None, notes: list[str]) -> str:
    L = data["latency_ms"]
    lines = [
        "# Benchmark results",
        "",
        f"Command: `{meta['command']}`  ",
        f"Date: {meta['date']}; machine: {meta['machine']}; Pulumi {meta['pulumi']}; emulator latency L = {L:g} ms "
        f"per API call; dynamic-provider thread pool = 4.",
        "",
        "## B1 — `pulumi up` of a sweep of N jobs vs N trivial dynamic resources",
        "",
        "bound = N × (API calls per job, measured) × L / 4; ratio = extra / bound (1.0 = the thread-pool limit).",
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
            label="baseline + bound (N × calls/job × L / 4)")
    ax.set_xlabel("N (jobs / resources)")
    ax.set_ylabel("wall time (s)")
    ax.set_title(f"pulumi up vs N (emulator latency {data['latency_ms']:g} ms per call)")
    if max(ns) / max(min(ns), 1) >= 30:
        ax.set_xscale("log")
        ax.set_yscale("log")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return None

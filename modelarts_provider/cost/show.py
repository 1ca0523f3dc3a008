"""The `cost` export as lines for `results` and `status` (pure: tested without Pulumi)."""

from __future__ import annotations

from typing import Any

from .money import spent as _money  # cents half up from the export's decimal text; never a non-zero as 0.00


def _job_line(key: str, e: dict[str, Any]) -> str:
    if not isinstance(e.get("nodeHours"), (int, float)):
        return f"{key}: {e.get('note') or 'no duration yet'}"
    head = f"{key}: {e['nodeHours']:.4f} node-hours"
    if not isinstance(e.get("cost"), (int, float)):
        return f"{head}, {e.get('note') or 'no price'}"
    return f"{head} x {_money(e['pricePerNodeHour'])} {e['currency']} = {_money(e['cost'])} {e['currency']}"


def cost_lines(cost: Any, name: str) -> list[str]:
    """Each run's node-hours and cost of the sweep (or the job/search) `name`, and the sweep's sum."""
    if not isinstance(cost, dict) or not isinstance(cost.get("jobs"), dict):
        return []
    jobs = {k: e for k, e in cost["jobs"].items() if isinstance(e, dict)}
    keys = [k for k, e in jobs.items() if e.get("sweep") == name] or ([name] if name in jobs else [])
    if not keys:
        return []
    lines = ["cost (the service's running duration x nodes x the price read at the last up):"]
    lines += [_job_line(k, jobs[k]) for k in sorted(keys)]
    s = (cost.get("sweeps") or {}).get(name)
    if isinstance(s, dict):
        runs = s.get("runs")
        # Every run on record (spent.py): more than the lines above when a point ran more than once.
        every = f", {runs} runs on record" if isinstance(runs, int) and runs != s["jobs"] else ""
        lines.append(f"{name}: {_money(s['cost'])} {s['currency']} in all ({s['nodeHours']:.4f} node-hours, "
                     f"{s['jobs']} jobs{every})")
    return lines


def total_line(cost: Any) -> str | None:
    """`spent: X CNY (N node-hours)` for the stack, from the cost export: every run on record (spent.py)."""
    if not isinstance(cost, dict) or not isinstance(cost.get("total"), (int, float)):
        return None
    return (f"spent: {_money(cost['total'])} {cost.get('currency') or 'CNY'} ({cost.get('nodeHours', 0):.4f} "
            f"node-hours, every run on record, at the last up's prices; jobs on pools are billed by the pool)")


def history_cost_lines(cost: Any, key: str) -> list[str]:
    """Each recorded run of a job key with its node-hours and cost (results KEY --history), newest last."""
    if not isinstance(cost, dict) or not isinstance((cost.get("jobs") or {}).get(key), dict):
        return []
    entry = cost["jobs"][key]
    runs = [r for r in entry.get("runs") or [] if isinstance(r, dict)]
    if not runs:
        return []
    cur = entry.get("currency") or ""
    lines = ["cost per run (the service's running duration x nodes x the price read at the last up):"]
    for i, r in enumerate(runs, start=1):
        if not isinstance(r.get("nodeHours"), (int, float)):
            lines.append(f"#{i} {r.get('jobId')}: no duration recorded")
        elif isinstance(r.get("cost"), (int, float)):
            lines.append(f"#{i} {r.get('jobId')}: {r['nodeHours']:.4f} node-hours = {_money(r['cost'])} {cur}")
        else:
            lines.append(f"#{i} {r.get('jobId')}: {r['nodeHours']:.4f} node-hours, {entry.get('note') or 'no price'}")
    return lines

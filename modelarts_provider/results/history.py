"""`results KEY --history`: every run of a job key from the stack's `runs` export, newest last.

The export is written by the stack program from the JobsAwait's run history (awaiting/history.py); no
ModelArts call. One row per run: job name, phase, objective, duration, start time, parameters, output path.
"""

from __future__ import annotations

from typing import Any

from .show import duration_text


def history_lines(key: str, runs: list[dict[str, Any]]) -> list[str]:
    rows = [["#", "name", "phase", "objective", "duration", "started", "parameters", "output"]]
    for i, r in enumerate(runs, start=1):
        objective = r.get("objective")
        params = r.get("parameters") if isinstance(r.get("parameters"), dict) else {}
        rows.append([str(i), str(r.get("name") or r.get("jobId") or "-"),
                     str(r.get("phase") or "-") + (f" ({r['note']})" if r.get("note") else ""),
                     f"{objective:.6g}" if isinstance(objective, (int, float)) else "-",
                     duration_text(r.get("durationSeconds") if isinstance(r.get("durationSeconds"), (int, float)) else None),
                     str(r.get("startTime") or "-"),
                     " ".join(f"{k}={v}" for k, v in params.items()) or "-",
                     str(r.get("outputPath") or "-")])
    widths = [max(len(row[c]) for row in rows) for c in range(len(rows[0]))]
    lines = [f"{key}: {len(runs)} run{'s' if len(runs) != 1 else ''}, newest last"]
    lines += ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]
    return lines


# The export's names of a run record's fields (awaiting/history.RunRecord): the `runs` export and the CLI's reading
# of a state's runs share them (here, below the program: `results --history` never loads the Pulumi SDK).
RUN_FIELDS = {"job_id": "jobId", "job_name": "name", "parameters": "parameters", "phase": "phase",
              "objective": "objective", "output_path": "outputPath", "create_time": "createTime",
              "start_time": "startTime", "duration_s": "durationSeconds", "note": "note"}


def build_runs(runs: dict[str, Any] | None) -> dict[str, list[dict[str, Any]]]:
    """The JobsAwait's `runs` output under the export's names: every run of each key, newest last."""
    return {key: [{RUN_FIELDS[k]: v for k, v in r.items() if k in RUN_FIELDS} for r in records if isinstance(r, dict)]
            for key, records in sorted((runs or {}).items()) if isinstance(records, list)}

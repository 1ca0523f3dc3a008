"""Where the engine's CPU goes in an `up`: its own CPU profile (`pulumi up --profiling PREFIX`), read with
`go tool pprof -top -cum` (Go is on every machine that built the engine) and cut into the parts that matter
for scale: the state checkpoints and what they are made of, and the garbage collector.

    ./dev bench --sizes 300 --engine-profile 300 ...   # results.md: "Engine CPU, by part"
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

# (label, pprof function name): cumulative CPU of each; the parts overlap (a checkpoint contains the rest).
PARTS = (
    ("checkpoints (SnapshotManager.saveSnapshot: all of the below)", "backend.(*SnapshotManager).saveSnapshot"),
    ("in checkpoints: state -> deployment (SerializeDeployment)", "stack.SerializeDeploymentWithMetadata"),
    ("in checkpoints: deployment -> JSON (encoding/json)", "encoding/json.(*Encoder).Encode"),
    ("in checkpoints: file checksum (md5 sidecar)", "crypto/md5.(*digest).Write"),
    ("in checkpoints: backup copy (.bak)", "diy.backupTarget"),
    ("garbage collector (background mark)", "runtime.gcBgMarkWorker"),
)
_ROW = re.compile(r"^\s*[\d.]+(?:m?s)?\s+[\d.]+%\s+[\d.]+%\s+([\d.]+)(m?s)\s+([\d.]+)%\s+(.+)$")
_TOTAL = re.compile(r"Total samples = ([\d.]+)(m?s)")


def profiling_args(prefix: Path) -> list[str]:
    """The `pulumi up` flags that write the engine's profiles under `prefix` (PREFIX.<pid>.cpu, .mem, .trace)."""
    prefix.parent.mkdir(parents=True, exist_ok=True)
    return ["--profiling", str(prefix)]


def _seconds(value: str, unit: str) -> float:
    return float(value) / (1000 if unit == "ms" else 1)


def summarize(prefix: Path, binary: str | None) -> dict[str, Any]:
    """{total_s, parts: {label: [seconds, percent]}} of the newest CPU profile under `prefix`, or {note}."""
    profiles = sorted(prefix.parent.glob(prefix.name + ".*.cpu"), key=lambda p: p.stat().st_mtime)
    go = shutil.which("go")
    if not profiles or go is None or binary is None:
        return {"note": "no engine CPU profile" if not profiles else "go not found: profile not read"}
    top = subprocess.run([go, "tool", "pprof", "-top", "-cum", "-nodecount=400", binary, str(profiles[-1])],
                         capture_output=True, text=True, timeout=300)
    total = _TOTAL.search(top.stdout)
    out: dict[str, Any] = {"total_s": _seconds(*total.groups()) if total else None, "parts": {}}
    rows = [m.groups() for m in map(_ROW.match, top.stdout.splitlines()) if m]
    for label, name in PARTS:
        hit = next((r for r in rows if r[3].strip().endswith(name)), None)
        out["parts"][label] = [round(_seconds(hit[0], hit[1]), 2), float(hit[2])] if hit else [0.0, 0.0]
    return out

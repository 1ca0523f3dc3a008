"""What one engine command costs in CPU on a small stack, with and without freezing what imports built.

    .venv/bin/python -m benchmarks.startup_cost [--runs 6]

The engine starts fresh processes for every command (the CLI, the language host and its package scan, the
stack program, the dynamic provider), so a test suite or a CI job pays their start-up hundreds of times. This
runs the repository's stack program with one job on a local ModelArts, `pulumi up` once, then `pulumi
preview` `--runs` times in each of two set-ups, interleaved (a busy moment weighs on both alike): as shipped,
and with `gc.freeze` made a no-op in every Python process of the command (a `sitecustomize` on PYTHONPATH),
i.e. each full collection walks everything the imports built (core/collector.py). Figures: the median CPU
seconds (user+system) of all the command's processes together, and their ratio.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NO_FREEZE = "import gc\ngc.freeze = lambda: None  # benchmarks/startup_cost.py: the collector walks everything\n"


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def command_cpu(cmd: list[str], cwd: Path, env: dict[str, str]) -> float:
    """CPU seconds of `cmd` and every process it waited for."""
    before = _children_cpu()
    subprocess.run(cmd, cwd=cwd, env=env, check=True, capture_output=True, text=True)
    return _children_cpu() - before


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=6)
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from modelarts_emulator.testing import running_emulator
    from testkit import faults

    with tempfile.TemporaryDirectory(prefix="startup-cost-") as tmp:
        base = Path(tmp)
        (base / "no-freeze").mkdir()
        (base / "no-freeze" / "sitecustomize.py").write_text(NO_FREEZE)
        with running_emulator(base / "emulator", phase_seconds=0.2, run_seconds=1) as emu:
            st = faults.job_stack(base, emu, jobs={"a": faults.job()})
            st.up()
            shipped_env = dict(st.env)
            unfrozen_env = dict(st.env, PYTHONPATH=f"{base / 'no-freeze'}:{st.env['PYTHONPATH']}")
            preview = ["pulumi", "preview", "--non-interactive", "--stack", st.name]
            shipped, unfrozen = [], []
            for _ in range(args.runs):
                shipped.append(command_cpu(preview, st.workdir, shipped_env))
                unfrozen.append(command_cpu(preview, st.workdir, unfrozen_env))
    a, b = statistics.median(shipped), statistics.median(unfrozen)
    print(f"pulumi preview, one job: CPU s of all its processes, median of {args.runs}")
    print(f"  as shipped   {a:.2f}")
    print(f"  no freeze    {b:.2f}")
    print(f"  ratio        {a / b:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

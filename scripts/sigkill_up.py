"""SIGKILL `pulumi up` at random moments, then run what ./dev runs before its next command, and check that the
next documented command can read the state (issue 44). Prints the figures; exits non-zero if any kill left an
unreadable state.

    .venv/bin/python scripts/sigkill_up.py [--kills 20] [--seed 44] [--jobs 4]

Each round changes a parameter of every job (so the `up` replaces them, submits, waits), starts
`pulumi up --yes --skip-preview` on the repository's stack program against a local ModelArts, SIGKILLs the
`pulumi` process after a random 0.3-8 s, then: scripts/dev_recover.py (./dev's repair: empty attrs, orphans),
`pulumi cancel --yes` (the documented step for a killed up), `pulumi stack export` (must succeed).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from modelarts_emulator.testing import running_emulator  # noqa: E402
from testkit.faults import provider_config  # noqa: E402
from testkit.harness import REPO_ROOT, new_stack  # noqa: E402

ALGORITHM_ID = "8d1b2f4c-5a6e-4f70-9b81-c2d3e4f5a6b7"


def config(round_: int, jobs: int) -> dict[str, object]:
    return {"modelarts-jobs:obs": {"main": {"bucket": "emulator-bucket"}},
            "modelarts-jobs:pools": {"cpu": {"flavor": "modelarts.vm.cpu.2u", "maxNodes": 4}},
            "modelarts-jobs:jobs": {f"j{i}": {"pool": "cpu", "algorithmId": ALGORITHM_ID, "pollIntervalSeconds": 0.2,
                                              "waitFor": "running", "parameters": {"round": round_}}
                                    for i in range(jobs)}}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--kills", type=int, default=20)
    ap.add_argument("--seed", type=int, default=44)
    ap.add_argument("--jobs", type=int, default=4)
    args = ap.parse_args()
    rnd = random.Random(args.seed)
    figures = {"kills": 0, "empty_or_bad_attrs_repaired": 0, "orphans_ended": 0, "export_ok": 0,
               "export_failed": 0, "up_finished_before_kill": 0}
    with tempfile.TemporaryDirectory() as tmp, running_emulator(Path(tmp) / "emu", run_seconds=3,
                                                               phase_seconds=0.5) as emu:
        base = Path(tmp) / "stack"
        plain, secrets = provider_config(emu)
        st = new_stack(base, REPO_ROOT, config=plain, secrets=secrets)
        st.env["MODELARTS_STATE"] = str(base)  # as ./dev exports it: the marker of this state's processes
        recover = [sys.executable, str(REPO_ROOT / "scripts" / "dev_recover.py"), str(base),
                   str(Path(os.environ.get("MODELARTS_ENGINE_CACHE", Path.home() / ".cache" / "modelarts-pulumi"))),
                   str(REPO_ROOT)]
        for round_ in range(args.kills):
            st.write_config(config(round_, args.jobs))
            proc = subprocess.Popen(["pulumi", "up", "--yes", "--skip-preview", "--non-interactive", "--stack",
                                     st.name], cwd=st.workdir, env=st.env, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL)
            delay = rnd.uniform(0.3, 8.0)
            time.sleep(delay)
            if proc.poll() is not None:
                figures["up_finished_before_kill"] += 1
            else:
                proc.send_signal(signal.SIGKILL)
                figures["kills"] += 1
            proc.wait()
            fixed = subprocess.run(recover, capture_output=True, text=True, env=st.env)
            figures["empty_or_bad_attrs_repaired"] += fixed.stderr.count("dev: removed")
            figures["orphans_ended"] += fixed.stderr.count("dev: ended")
            st.run("cancel", "--yes", check=False)
            exported = st.run("stack", "export", check=False)
            ok = exported.returncode == 0 and "deployment" in json.loads(exported.stdout or "{}")
            figures["export_ok" if ok else "export_failed"] += 1
            print(f"round {round_ + 1}: killed after {delay:.1f} s; {fixed.stderr.strip() or 'nothing to repair'}; "
                  f"export {'ok' if ok else 'FAILED: ' + exported.stderr.strip()}", flush=True)
        final = st.up(check=False)
        figures["final_up_ok"] = final.returncode == 0
        st.destroy(check=False)
    print(json.dumps(figures, indent=2))
    return 0 if figures["export_failed"] == 0 and figures["final_up_ok"] else 1


if __name__ == "__main__":
    sys.exit(main())

"""The service's own hyperparameter search under the real engine, against the local ModelArts over HTTP.

Few engine commands: a search that completes (its trials and best trial exported, the table at the end of
the `up`, `results` with its chart, an unchanged second `up` calling nothing); a bad space and an unknown
algorithm refused at preview (no call for the rule, catalog reads only for the algorithm); a running search
stopped by `destroy`. Every rule and message is a unit test (tests/bad_input, tests/search).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from testkit.harness import REPO_ROOT, Stack
from testkit.faults import job, job_stack, output_of

SEARCH = {"objective": {"name": "accuracy", "regex": "accuracy=([0-9.]+)", "goal": "max"},
          "space": {"lr": {"loguniform": [0.001, 0.1], "points": 5}, "momentum": {"uniform": [0.5, 0.99]}},
          "algorithm": {"name": "tpe_search", "params": {"n_initial_points": 2}}, "trials": 6, "parallel": 2}

pytestmark = [pytest.mark.timeout(420)]


def emulator(tmp_path: Path, run_seconds: float) -> Any:
    from modelarts_emulator.testing import running_emulator

    return running_emulator(tmp_path / "emulator", phase_seconds=0.2, run_seconds=run_seconds)


def tune(**over: Any) -> dict[str, Any]:
    base = job(waitFor="completed", search=SEARCH, waitTimeoutSeconds=300, name=None)  # a derived name
    base.pop("parameters")  # lr is searched
    return {**base, **over}


def cli(st: Stack, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**st.env, "PYTHONPATH": str(REPO_ROOT)}
    return subprocess.run([sys.executable, "-m", "modelarts_provider", *args, "--stack", st.name,
                           "--cwd", str(st.workdir)], env=env, text=True, capture_output=True, timeout=120)


def test_a_search_completes_with_its_best_trial_exported(tmp_path: Path, pulumi_engine: Path) -> None:
    with emulator(tmp_path, run_seconds=3) as emu:
        st = job_stack(tmp_path, emu, jobs={"tune": tune()})
        up = output_of(st.up())
        assert len([j for j in emu.jobs()]) == 1  # one job runs every trial
        out = st.outputs()
        search = out["searches"]["tune"]
        trials = search["trials"]
        assert len(trials) == 6 and all(t["phase"] == "Completed" and t["reward"] for t in trials), trials
        best = max(trials, key=lambda t: t["reward"])
        assert search["best"] == best and trials[0] == best  # best first
        assert search["jobId"] == out["jobs"]["tune"]["id"] and search["algorithm"] == "tpe_search"
        assert set(best["parameters"]) == {"lr", "momentum"}
        head = f"tune (search): 6 trials; best {best['trialId']} (accuracy {best['reward']:g}, max)"
        assert head in up, up
        assert re.search(r"tune-\w+: \d trials? \(\d done, \d running\)", up), up  # progress while it ran

        # An unchanged stack: nothing read again (no trials, no job, no log).
        before = emu.counters()
        again = st.up()
        assert emu.counters() == before, output_of(again)

        # `results tune --chart`: the trials like a sweep's points, from the outputs alone.
        chart = tmp_path / "tune.png"
        shown = cli(st, "results", "tune", "--chart", str(chart))
        assert shown.returncode == 0, shown.stderr
        assert shown.stdout.splitlines()[0] == head.replace("tune (search): 6 trials", "tune: 6 points")
        assert chart.read_bytes()[:4] == b"\x89PNG"
        assert emu.counters() == before

        # A changed space replaces the search job: the finished one stays in the service as a record (issue 41).
        from testkit.faults import configure_jobs

        configure_jobs(st, jobs={"tune": tune(search={**SEARCH, "space": {"momentum": {"uniform": [0.6, 0.9]}}})})
        st.up()
        out = st.outputs()
        new_id = out["searches"]["tune"]["jobId"]
        assert new_id != search["jobId"] and len(out["searches"]["tune"]["trials"]) == 6
        assert set(out["searches"]["tune"]["best"]["parameters"]) == {"momentum"}
        deletes = [e for e in emu.pools()["events"] if e["kind"] == "job" and e["action"] == "delete"]
        assert deletes == [] and {j["metadata"]["id"] for j in emu.jobs()} == {new_id, search["jobId"]}


def test_a_bad_space_and_an_unknown_algorithm_are_refused_at_preview(tmp_path: Path, pulumi_engine: Path) -> None:
    with emulator(tmp_path, run_seconds=3) as emu:
        bad = {**SEARCH, "space": {"momentum": {"uniform": [0.99, 0.5]}}}
        st = job_stack(tmp_path, emu, jobs={"tune": tune(search=bad)})
        refused = st.preview(check=False)
        assert refused.returncode != 0
        assert ("invalid stack config: modelarts-jobs:jobs.tune.search.space.momentum.uniform: bounds are out of "
                "order: low 0.99 must be less than high 0.5") in output_of(refused)
        assert emu.counters()["total"] == 0  # a rule: no call at all

        from testkit.faults import configure_jobs

        configure_jobs(st, jobs={"tune": tune(search={**SEARCH, "algorithm": {"name": "tpe_serch"}})})
        refused = st.preview(check=False)
        assert refused.returncode != 0
        assert ("modelarts-jobs:jobs.tune.search.algorithm.name: unknown search algorithm 'tpe_serch' in "
                "cn-north-4; did you mean tpe_search?") in output_of(refused), output_of(refused)
        c = emu.counters()
        assert c.get("search_algorithms") == 1 and c["create"] == 0 and emu.jobs() == []


def test_destroy_stops_a_running_search(tmp_path: Path, pulumi_engine: Path) -> None:
    with emulator(tmp_path, run_seconds=600) as emu:
        st = job_stack(tmp_path, emu, jobs={"tune": tune(waitFor="running")})
        st.up()
        (live,) = emu.jobs()
        assert live["status"]["phase"] == "Running"
        st.destroy()
        gone = [j for j in emu.jobs() if j["metadata"]["id"] == live["metadata"]["id"]]
        assert gone == [] or gone[0]["status"]["phase"] in ("Terminated", "Terminating"), gone
        assert emu.counters()["terminate"] >= 1

"""Issue 44, deliverable 6: outputs printed once, and only what changed; `refresh` shows no diff where nothing
changed.

`./dev up` runs `pulumi up --suppress-outputs` through modelarts_provider/cli/changed_outputs.py and prints the
outputs that changed since before the update (the CLI itself prints every output after every `up`): the unit
tests pin the lines; the engine test runs the module on a real stack of the Python door against the local
ModelArts: the first `up` prints every output once, an `up` that changes nothing prints none (and no table),
one that changes one job prints only that job's lines. The same stack is refreshed with nothing changed as
`./dev refresh` does (the plain refresh shown, the program re-run quietly for the outputs; `pulumi refresh
--run-program` shows every job as `[diff: +config_keys,owner_seed-name~owner]`, the program's inputs before the
provider's check): no job is shown as changed and the state's inputs of every job are byte-equal to the `up`'s.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from modelarts_provider.cli.changed_outputs import SUMMARY_HEADER, changed_lines, changes, summary_changes, summary_lines
from testkit.faults import provider_config
from testkit.harness import REPO_ROOT, Stack, new_stack

ALGORITHM_ID = "8d1b2f4c-5a6e-4f70-9b81-c2d3e4f5a6b7"  # in the emulator catalog


# --- the lines (no engine) ---------------------------------------------------------------------------------

def test_nothing_changed_prints_nothing() -> None:
    outputs = {"jobs": {"a": {"id": "1", "phase": "Completed"}}, "runs": {"a": [{"jobId": "1"}]}}
    assert changed_lines(outputs, json.loads(json.dumps(outputs))) == []


def test_one_job_changed_prints_its_lines_alone() -> None:
    before = {"jobs": {"a": {"id": "1", "phase": "Running"}, "b": {"id": "2", "phase": "Running"}},
              "runs": {"a": [{"jobId": "1"}], "b": [{"jobId": "2"}]}}
    after = {"jobs": {"a": {"id": "1", "phase": "Running"}, "b": {"id": "3", "phase": "Pending"}},
             "runs": {"a": [{"jobId": "1"}], "b": [{"jobId": "2"}, {"jobId": "3"}]}}
    assert changed_lines(before, after) == [
        "Outputs changed:",
        '  ~ jobs.b.id: "2" => "3"',
        '  ~ jobs.b.phase: "Running" => "Pending"',
        '  + runs.b[1].jobId: "3"',
    ]


def test_first_up_prints_everything_once_one_value_per_line_and_removals_by_name() -> None:
    assert changed_lines({}, {"jobs": {"a": {"id": "1"}}}) == ["Outputs changed:", '  + jobs.a.id: "1"']
    assert changed_lines({"jobs": {}}, {"jobs": {"a": {"id": "1", "tags": [], "runs": [{"n": 1}]}}}) == [
        "Outputs changed:", '  + jobs.a.id: "1"', "  + jobs.a.tags: []", "  + jobs.a.runs[0].n: 1"]
    assert changed_lines({"jobs": {"a": {"id": "1"}}, "sweeps": {"s": {}}}, {"jobs": {}}) == [
        "Outputs changed:", "  - jobs.a", "  - sweeps"]


def test_the_first_up_prints_a_summary_a_person_reads() -> None:
    """Issue 56: the first `up` printed every value of every output (about 700 lines on the local stack)."""
    after = {"jobs": {"a": {"id": "1", "phase": "Completed"}, "b": {"id": "2", "phase": "Running"}},
             "runs": {"a": [{"jobId": "1"}], "b": [{"jobId": "0"}, {"jobId": "2"}]},
             "sweeps": {"grid": {"points": [{"key": "g-1"}, {"key": "g-2"}],
                                 "best": {"key": "g-2", "objective": 0.9}}},
             "searches": {"tune": {"trials": [{"trialId": "t1"}], "best": {"trialId": "t1", "reward": 0.7}}},
             "cost": {"currency": "CNY", "total": 0.5, "jobs": {"a": {"cost": 0.5}}}, "note": "x", "tags": [1, 2]}
    assert summary_lines(after) == [
        SUMMARY_HEADER,
        "  + jobs: 2", "      a: Completed", "      b: Running",
        "  + runs: 2 keys, 3 records",
        "  + sweeps: 1", "      grid: 2 points, best g-2 (0.9)",
        "  + searches: 1", "      tune: 1 trials, best t1 (0.7)",
        '  + cost: currency="CNY", total=0.5, jobs',
        '  + note: "x"', "  + tags: 2 items"]
    many = {"jobs": {f"j{i:02d}": {"phase": "Pending"} for i in range(25)}}
    lines = summary_lines(many)
    assert lines[-1] == "      ... and 15 more" and len(lines) == 1 + 1 + 10 + 1, lines
    assert summary_lines({}) == []


def test_a_value_is_masked_as_its_own_key_masks_it() -> None:
    """`sweeps.lr-sweep.best.key` read as a secret-looking name as a whole: a sweep's best key was printed
    "******". Each value is judged under its own key: a job's key shows, a token does not (before and after)."""
    best = changes({"sweeps": {"s": {"best": {"key": "s-1"}}}}, {"sweeps": {"s": {"best": {"key": "s-2"}}}})
    assert [c.masked() for c in best] == ['  ~ sweeps.s.best.key: "s-1" => "s-2"']
    token = changes({"env": {"hf_token": "hf_abcdefgh1"}}, {"env": {"hf_token": "hf_abcdefgh2"}})
    assert [c.masked() for c in token] == ['  ~ env.hf_token: "******" => "******"']
    new = changes({}, {"runs": {"k": [{"api_key": "abcdefgh"}]}})
    assert [c.masked() for c in new] == ['  + runs.k[0].api_key: "******"']
    listed = summary_changes({"jobs": {"hf_token": {"phase": "Running"}}})
    assert [c.masked() for c in listed] == ["  + jobs: 1", "      hf_token: ******"]


# --- through the engine ------------------------------------------------------------------------------------

def _up(st: Stack) -> subprocess.CompletedProcess[str]:
    return _dev_like(st, "up", "--skip-preview")


def _dev_like(st: Stack, command: str, *args: str) -> subprocess.CompletedProcess[str]:
    """What `./dev up|refresh` runs (./dev itself starts the local clouds on their fixed ports)."""
    proc = subprocess.run([sys.executable, "-m", "modelarts_provider.cli.changed_outputs", command, "--stack",
                           st.name, *args], cwd=st.workdir, env=st.env, text=True, capture_output=True,
                          timeout=600, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Outputs:" not in proc.stdout, proc.stdout  # the CLI's full listing is suppressed
    return proc


def _changed(out: str) -> list[str]:
    return out.split("Outputs changed:\n", 1)[1].splitlines() if "Outputs changed:" in out else []


def _jobs(epochs_a: int) -> dict[str, Any]:
    # Waited for to the end: a job's phase is final when its `up` ends, so what changes is the declaration's doing.
    job = {"pool": "cpu", "algorithmId": ALGORITHM_ID, "pollIntervalSeconds": 0.2, "waitFor": "completed"}
    return {"modelarts-jobs:obs": {"main": {"bucket": "emulator-bucket"}},
            "modelarts-jobs:pools": {"cpu": {"flavor": "modelarts.vm.cpu.2u", "maxNodes": 4}},
            "modelarts-jobs:jobs": {"a": {**job, "parameters": {"epochs": epochs_a}},
                                    "b": {**job, "parameters": {"epochs": 1}}}}


def _job_inputs(st: Stack) -> dict[str, str]:
    """Every job's inputs, secrets in plaintext (the owner mark's key is a secret, whose ciphertext the engine renews
    at each write of the state: the values are what must stay)."""
    state = json.loads(st.run("stack", "export", "--show-secrets").stdout)
    return {r["urn"]: json.dumps(r["inputs"], sort_keys=True) for r in state["deployment"]["resources"]
            if r["type"].endswith(":TrainingJob")}


@pytest.mark.engine
def test_up_prints_changed_outputs_once_and_refresh_no_diff(tmp_path: Path, emulator: Any) -> None:
    st = new_stack(tmp_path, REPO_ROOT, config=provider_config(emulator)[0], secrets=provider_config(emulator)[1])
    st.write_config(_jobs(epochs_a=1))
    first = _up(st).stdout
    # the first up: a summary a person reads (issue 56), not every value; `pulumi stack output` has them all
    summary = first.split(SUMMARY_HEADER + "\n", 1)[1].splitlines() if SUMMARY_HEADER in first else []
    jobs = summary.index("  + jobs: 2") if "  + jobs: 2" in summary else -1
    assert jobs >= 0 and summary[jobs + 1:jobs + 3] == ["      a: Completed", "      b: Completed"], first
    assert "  + runs: 2 keys, 2 records" in summary, first
    assert "Outputs changed" not in first and len(summary) < 15 and max(len(line) for line in summary) < 200, first

    again = _up(st)
    assert _changed(again.stdout) == [] and "Outputs changed" not in again.stdout, again.stdout
    assert "epochs" not in again.stdout  # no table at all

    # Nothing changed: `./dev refresh` shows no job as changed, prints no output, and keeps every job's inputs
    # byte for byte; the program re-ran (the exported outputs' refresh, quiet) after the refresh shown.
    inputs = _job_inputs(st)
    refreshed = _dev_like(st, "refresh", "--skip-preview")
    assert "[diff:" not in refreshed.stdout and "5 unchanged" in refreshed.stdout, refreshed.stdout
    assert "TrainingJob a" in refreshed.stdout and "Outputs changed" not in refreshed.stdout, refreshed.stdout
    assert _job_inputs(st) == inputs
    history = json.loads(st.run("stack", "history", "--json").stdout)
    assert [h["kind"] for h in history[:2]] == ["refresh", "refresh"], history[:2]

    st.write_config(_jobs(epochs_a=2))  # job a's declaration changes (a new run); b stays
    changed = _up(st).stdout
    one = _changed(changed)
    assert one and all(re.match(r"  [~+-] \w+\.a[.\[:]", line) for line in one), one
    assert "Outputs:" not in changed and max(len(line) for line in one) < 300, changed  # a new run: its values
    st.destroy()
    assert emulator.jobs() == []

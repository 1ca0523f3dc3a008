"""The service's own search through the provider plugin: a Pulumi YAML program under the real engine.

A TrainingJob with `algorithm.policies.auto_search` and a JobsAwait entry with `search`: the trials and the
best trial come back in the JobsAwait's statuses; an unknown algorithm is refused at preview with the close
match, as through the Python door (tests/e2e/test_search.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from testkit.faults import output_of
from testkit.plugin_program import write_program, yaml_stack

ALGORITHM_ID = "8d1b2f4c-5a6e-4f70-9b81-c2d3e4f5a6b7"  # in the emulator catalog
pytestmark = [pytest.mark.engine, pytest.mark.timeout(300)]
# The schema's camelCase names (the plugin sends the API's names).
AUTO_SEARCH = {
    "rewardAttrs": [{"name": "accuracy", "mode": "max", "regex": "accuracy=([0-9.]+)"}],
    "searchParams": [{"name": "momentum", "paramType": "continuous", "lowerBound": "0.5", "upperBound": "0.9"}],
    "algoConfigs": [{"name": "tpe_search", "params": [{"key": "num_samples", "value": "4", "type": "Integer"},
                                                      {"key": "max_concurrent", "value": "2", "type": "Integer"}]}],
}


def program(algorithm: str = "tpe_search") -> dict[str, Any]:
    auto = {**AUTO_SEARCH, "algoConfigs": [{**AUTO_SEARCH["algoConfigs"][0], "name": algorithm}]}
    return {
        "tune": {"type": "modelarts:index:TrainingJob", "properties": {
            "algorithm": {"id": ALGORITHM_ID, "policies": {"autoSearch": auto},
                          "outputs": [{"name": "train_url", "obsUrl": "obs://bkt/outputs/tune/"}]},
            "flavorId": "modelarts.vm.cpu.2u", "pollIntervalSeconds": 0.2}},
        "waited": {"type": "modelarts:index:JobsAwait", "properties": {"jobs": {
            "tune": {"jobId": "${tune.jobId}", "jobName": "${tune.jobName}", "waitFor": "completed",
                     "pollSeconds": 0.2, "search": {"name": "accuracy", "regex": "accuracy=([0-9.]+)"}}}}},
    }


def test_a_yaml_program_declares_a_search_and_reads_its_trials(tmp_path: Path) -> None:
    from modelarts_emulator.testing import running_emulator

    with running_emulator(tmp_path / "emulator", run_seconds=3, phase_seconds=0.2) as emu:
        st = yaml_stack(tmp_path, emu, program(), {"statuses": "${waited.statuses}", "run": "${tune.jobName}"})
        st.up()
        trials = st.outputs()["statuses"]["tune"]["search"]["trials"]
        assert len(trials) == 4 and all(t["phase"] == "Completed" and t["reward"] for t in trials), trials
        assert all(set(t) >= {"trialId", "parameters", "reward", "earlyStopped"} for t in trials), trials
        # Issue 41: each trial's outputs in a folder of its own, under the run's own folder
        run = st.outputs()["run"]
        assert [t["outputPath"] for t in trials] == [f"obs://bkt/outputs/tune/{run}/{t['trialId']}/" for t in trials]
        assert {j["algorithm"]["policies"]["auto_search"]["algo_configs"][0]["name"] for j in emu.jobs()} == \
            {"tpe_search"}

        write_program(st.workdir, program("tpe_serch"), {"statuses": "${waited.statuses}"})
        refused = st.preview(check=False)
        assert refused.returncode != 0
        assert "unknown search algorithm 'tpe_serch' in cn-north-4; did you mean tpe_search?" in output_of(refused)
        st.destroy()
        assert emu.jobs() == []

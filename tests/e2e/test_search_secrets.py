"""A secret in a search space (issue 43, finding 2), under the real engine, through the repository's stack
program (`pulumi config set --secret --path '...search.space.variant.choice[0]'`) and a YAML program
(`fn::secret`), against the local ModelArts.

The secret is secret in every output derived from it: the trials' parameters in the state (the TrainingJob's
request and the JobsAwait's statuses), `pulumi stack output` without `--show-secrets`, the YAML `up`'s Outputs,
`results`; masked where printed, with the mask's width. Nothing else is masked or made secret because of it: the
other values, the names, the algorithm and the objective stay visible, in the state, the outputs and the lines.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from testkit.faults import output_of
from tests.e2e.test_search import SEARCH, cli, tune

pytestmark = [pytest.mark.engine, pytest.mark.timeout(300)]
SECRET = "s3cr3t-choice-value"
PLAIN = "plain-b"
ALGORITHM_ID = "8d1b2f4c-5a6e-4f70-9b81-c2d3e4f5a6b7"  # in the emulator catalog


def emulator(tmp_path: Path) -> Any:
    from modelarts_emulator.testing import running_emulator

    return running_emulator(tmp_path / "emulator", phase_seconds=0.2, run_seconds=3)


def _assert_trials(trials: list[dict[str, Any]], hidden: Any) -> None:
    """Every trial: `variant` is the hidden form when it drew the secret, the plain choice otherwise; the
    other parameters, the phase and the reward plain."""
    drawn = {json.dumps(t["parameters"]["variant"]) for t in trials}
    hidden, PLAIN_ = json.dumps(hidden), json.dumps(PLAIN)
    assert drawn <= {hidden, PLAIN_} and hidden in drawn, trials
    assert all(t["phase"] == "Completed" and isinstance(t["reward"], float) for t in trials), trials
    assert all(float(t["parameters"]["momentum"]) > 0 for t in trials), trials


def test_a_secret_choice_is_secret_in_every_output_and_nothing_else_is(tmp_path: Path, pulumi_engine: Path) -> None:
    with emulator(tmp_path) as emu:
        from testkit.faults import job_stack

        search = {**SEARCH, "space": {**SEARCH["space"], "variant": {"choice": ["set-below", PLAIN]}}}
        st = job_stack(tmp_path, emu, jobs={"tune": tune(search=search)})
        st.run("config", "set", "--secret", "--path", "modelarts-jobs:jobs.tune.search.space.variant.choice[0]", SECRET)
        up = output_of(st.up())
        assert SECRET not in up, up
        # The table: the mask, not the secret's length; the names, the algorithm and plain values as they are.
        rows = [line for line in up.splitlines() if line.strip()[:1].isdigit() and "Completed" in line]
        assert rows and all("******" in r or PLAIN in r for r in rows), up
        header = next(line for line in up.splitlines() if "variant" in line and "momentum" in line)
        assert "******" not in header and "tune (search): 6 trials" in up, up

        state = json.dumps(st.export())
        assert SECRET not in state
        # The job's recorded inputs: only the list holding the secret is secret (the engine marks a whole list
        # secret when it holds one, for a provider that does not take secrets: the dynamic provider's); the
        # algorithm and the objective stay plain, and the job records the secret's one path.
        (job_state,) = [r["inputs"] for r in st.resources() if r["type"].endswith(":TrainingJob")]
        auto = job_state["algorithm"]["policies"]["auto_search"]
        assert auto["algo_configs"][0]["name"] == "tpe_search" and auto["reward_attrs"][0]["name"] == "accuracy"
        assert job_state["secret_paths"] == ["algorithm.policies.auto_search.search_params.2.discrete_values.0"]

        out = st.outputs()
        search_out = out["searches"]["tune"]
        assert search_out["algorithm"] == "tpe_search" and search_out["objective"]["name"] == "accuracy"
        _assert_trials(search_out["trials"], "[secret]")
        revealed = st.outputs(show_secrets=True)["searches"]["tune"]
        _assert_trials(revealed["trials"], SECRET)

        shown = cli(st, "results", "tune")
        assert shown.returncode == 0, shown.stderr
        assert SECRET not in shown.stdout and "[secret]" in shown.stdout and PLAIN in shown.stdout, shown.stdout

        # The trial's own log: the boot file and its plain values visible.
        trial = next(t for t in search_out["trials"] if t["parameters"]["variant"] == PLAIN)
        log = cli(st, "logs", "tune", "--task", f"trial-{trial['trialId']}")
        assert log.returncode == 0, log.stderr
        assert "******" not in log.stdout and PLAIN in log.stdout, log.stdout
        st.destroy()


def _yaml_program() -> dict[str, Any]:
    auto = {
        "rewardAttrs": [{"name": "accuracy", "mode": "max", "regex": "accuracy=([0-9.]+)"}],
        "searchParams": [{"name": "momentum", "paramType": "continuous", "lowerBound": "0.5", "upperBound": "0.9"},
                         {"name": "variant", "paramType": "discrete",
                          "discreteValues": [{"fn::secret": SECRET}, PLAIN]}],
        "algoConfigs": [{"name": "tpe_search", "params": [{"key": "num_samples", "value": "6", "type": "Integer"},
                                                          {"key": "max_concurrent", "value": "2", "type": "Integer"}]}],
    }
    return {
        "tune": {"type": "modelarts:index:TrainingJob", "properties": {
            "algorithm": {"id": ALGORITHM_ID, "policies": {"autoSearch": auto}},
            "flavorId": "modelarts.vm.cpu.2u", "pollIntervalSeconds": 0.2}},
        "waited": {"type": "modelarts:index:JobsAwait", "properties": {"jobs": {
            "tune": {"jobId": "${tune.jobId}", "jobName": "${tune.jobName}", "waitFor": "completed",
                     "pollSeconds": 0.2, "search": {"name": "accuracy", "regex": "accuracy=([0-9.]+)"}}}}},
    }


def _awaited_trials(deployment: dict[str, Any]) -> list[dict[str, Any]]:
    (waited,) = [r for r in deployment["resources"] if r["type"] == "modelarts:index:JobsAwait"]
    return waited["outputs"]["statuses"]["tune"]["search"]["trials"]


def test_plugin_a_secret_search_value_is_secret_in_every_output_and_nothing_else_is(tmp_path: Path) -> None:
    from testkit.plugin_program import yaml_stack

    with emulator(tmp_path) as emu:
        st = yaml_stack(tmp_path, emu, _yaml_program(), {"statuses": "${waited.statuses}"})
        up = output_of(st.up())
        assert SECRET not in up, up
        assert "tpe_search" in emu.jobs()[0]["algorithm"]["policies"]["auto_search"]["algo_configs"][0]["name"]
        assert "statuses" in up and "momentum" in up and PLAIN in up, up  # the YAML up's Outputs, but the secret
        exported = st.export()
        assert SECRET not in json.dumps(exported)
        # The JobsAwait's statuses: the drawn secret is a secret of its own (encrypted), the rest plain.
        trials = _awaited_trials(exported["deployment"])
        assert len(trials) == 6
        _assert_trials([{**t, "parameters": {**t["parameters"], "variant": "secret" if "ciphertext" in
                                             str(t["parameters"]["variant"]) else t["parameters"]["variant"]}}
                        for t in trials], "secret")
        revealed = _awaited_trials(json.loads(st.run("stack", "export", "--show-secrets").stdout)["deployment"])
        _assert_trials([{**t, "parameters": {k: json.loads(v["plaintext"]) if isinstance(v, dict) else v
                                             for k, v in t["parameters"].items()}} for t in revealed], SECRET)
        # The stack output: Pulumi YAML writes a secret inside a map as {} (as it does for the secret input
        # itself, under ${tune.algorithm}): never the value.
        _assert_trials(st.outputs()["statuses"]["tune"]["search"]["trials"], {})
        # `results tune`: a plugin stack exports no `searches`: the trials are read from the JobsAwait's state.
        shown = cli(st, "results", "tune")
        assert shown.returncode == 0, shown.stderr
        assert shown.stdout.startswith("tune: 6 points; best "), shown.stdout
        assert SECRET not in shown.stdout and "[secret]" in shown.stdout and PLAIN in shown.stdout, shown.stdout
        st.destroy()

"""The local ModelArts runs the user's code (issue 22), under the real engine: `pulumi up` uploads two local
code directories, the execution-mode emulator runs them as processes, and the up reports the failing one
with its real traceback and exit code; the other's model is in the local OBS and its own output is what
`logs` prints."""

from __future__ import annotations

from pathlib import Path

import pytest

from testkit.harness import REPO_ROOT
from testkit.faults import ENGINE, job_stack, provider_config
from tests.logs.test_logs_cli import logs

pytestmark = [pytest.mark.engine, pytest.mark.timeout(300)]

FAILING = '''\
import sys
print("MYJOB-MARKER bad job starts with", sys.argv[1:], flush=True)
def read_rows(path):
    raise FileNotFoundError(f"no rows in {path}")
try:
    read_rows("data.csv")
except FileNotFoundError:
    import traceback; traceback.print_exc(); sys.exit(3)
'''


def test_up_runs_the_code_reports_its_real_failure_and_keeps_its_outputs(tmp_path: Path) -> None:
    from modelarts_emulator.testing import running_emulator
    from obs_emulator.testing import running_obs

    bad = tmp_path / "bad-code"
    bad.mkdir()
    (bad / "train.py").write_text(FAILING)
    entry = {"pool": "cpu", "engine": dict(ENGINE), "pollIntervalSeconds": 0.2, "waitFor": "completed"}
    jobs = {
        "good": {**entry, "code": {"localDir": str(REPO_ROOT / "training" / "mnist"), "bootFile": "train.py"},
                 "parameters": {"epochs": 3, "lr": 0.2}, "outputs": {"train_url": ""}},
        "bad": {**entry, "code": {"localDir": str(bad), "bootFile": "train.py"}},
    }
    with running_obs(tmp_path / "obs") as obs, \
            running_emulator(tmp_path / "emulator", phase_seconds=0.2, obs_endpoint=obs.url, execute=True) as emu:
        plain, secrets = provider_config(emu)
        plain["modelarts:obsEndpoint"] = obs.url
        st = job_stack(tmp_path, emu, jobs=jobs, obs={"main": {"bucket": "exec", "create": True,
                                                               "forceDestroy": True}},
                       plain=plain, secrets=secrets,
                       pools={"cpu": {"flavor": "modelarts.vm.cpu.8u", "maxNodes": 2}})
        up = st.up(check=False)
        text = up.stdout + up.stderr
        assert up.returncode != 0, text
        assert "exit code 3" in text
        assert "MYJOB-MARKER bad job starts with" in text  # the script's own output, not a generated log
        assert 'line 6, in <module>' in text and "in read_rows" in text
        assert "FileNotFoundError: no rows in data.csv" in text

        phases = {j["metadata"]["name"].split("-")[0]: j["status"]["phase"] for j in emu.jobs()}
        assert phases == {"good": "Completed", "bad": "Failed"}
        keys = [o["Key"] for o in obs.client().list_objects_v2(Bucket="exec", Prefix="outputs/good/")["Contents"]]
        # each run writes into a folder of its own, named after it (issue 41); the failed up exported nothing
        (run,) = [j["metadata"]["name"] for j in emu.jobs() if j["metadata"]["name"].startswith("good-")]
        assert sorted(keys) == [f"outputs/good/{run}/metrics.json", f"outputs/good/{run}/model.npz"]

        shown = logs(st, "good")
        assert shown.returncode == 0, shown.stderr
        assert "task worker-0: lr=0.2 batch_size=32 epochs=3" in shown.stdout
        assert "epoch 3/3 loss=" in shown.stdout and "accuracy=" in shown.stdout
        assert "model written to" in shown.stdout
        st.destroy()
        assert emu.jobs() == []

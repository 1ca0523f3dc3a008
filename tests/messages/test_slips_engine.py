"""Issues 41 and 44 through the engine: what only a real `pulumi preview`/`up` shows.

- A one-letter slip in a namespace (`modelarts-job:sweeps`) made the program see no sweeps, and `up` deleted every
  job they had made. Now the preview and the `up` are refused with the key it meant, and nothing is deleted.
- A plaintext credential in `environments` is a warning (once, naming `pulumi config set --secret`), and a
  failure of a nested property prints without `value {<nil>}`: through both doors.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_training_jobs import FINISH, emu, job, make_stack  # noqa: F401 - emu: a fixture
from testkit.faults import assert_refused_by_preview_and_up
from testkit.plugin_program import yaml_stack

pytestmark = pytest.mark.engine
TOKEN = "hf_" + "Qx7" * 10


def test_a_namespace_slip_is_refused_at_preview_and_up_and_nothing_is_deleted(tmp_path: Path, emu: Any) -> None:
    sweep = {**job(pool="cpu", environments={"HF_TOKEN": TOKEN}), "grid": {"lr": [0.1, 0.01]}}
    st = make_stack(tmp_path, emu, {}, {"lrs": sweep})
    up = st.up()
    warning = ("warning: modelarts-jobs:sweeps.lrs.environments.HF_TOKEN looks like a credential but is not a "
               "secret: it is stored in plain text in the state; make it one: pulumi config set --secret --path "
               "'modelarts-jobs:sweeps.lrs.environments.HF_TOKEN' <value>")
    diagnostics = up.stdout.split("Diagnostics:", 1)[-1].split("Outputs:", 1)[0]
    assert diagnostics.count(warning) == 1, up.stdout + up.stderr  # one line for the sweep's points
    assert TOKEN not in up.stdout + up.stderr
    emu.advance(FINISH)
    jobs = {j["metadata"]["id"] for j in emu.jobs()}
    assert len(jobs) == 2
    urns = sorted(r["urn"] for r in st.resources())

    path = st.workdir / "Pulumi.test.yaml"
    path.write_text(path.read_text().replace("modelarts-jobs:sweeps:", "modelarts-job:sweeps:"))  # the slip
    assert_refused_by_preview_and_up(st, emu, "invalid stack config: modelarts-job:sweeps: unknown namespace "
                                              "modelarts-job (did you mean modelarts-jobs:sweeps?)",
                                     never=(" delete ", "deleted"))
    assert {j["metadata"]["id"] for j in emu.jobs()} == jobs
    assert sorted(r["urn"] for r in st.resources()) == urns


def test_through_the_plugin_a_credential_warns_and_a_nested_failure_names_its_path(tmp_path: Path, emu: Any) -> None:
    train = {"type": "modelarts:index:TrainingJob", "properties": {
        "flavorId": "modelarts.vm.cpu.2u", "algorithm": {"id": "8d1b2f4c-5a6e-4f70-9b81-c2d3e4f5a6b7",
                                                         "environments": {"HF_TOKEN": TOKEN}}}}
    st = yaml_stack(tmp_path, emu, {"train": train})
    preview = st.preview()
    out = preview.stdout + preview.stderr
    assert "warning: algorithm.environments.HF_TOKEN looks like a credential but is not a secret" in out, out
    assert "pulumi config set --secret" in out and TOKEN not in out and "warning: warning:" not in out, out

    train["properties"]["algorithm"] = {"id": "8d1b2f4c-0000-4f70-9b81-c2d3e4f5a6b7"}  # not in the catalog
    st.workdir.joinpath("Pulumi.yaml").write_text(
        st.workdir.joinpath("Pulumi.yaml").read_text().replace("environments:\n        HF_TOKEN: " + TOKEN + "\n", "")
        .replace("8d1b2f4c-5a6e-4f70-9b81-c2d3e4f5a6b7", "8d1b2f4c-0000-4f70-9b81-c2d3e4f5a6b7"))
    refused = st.preview(check=False)
    out = refused.stdout + refused.stderr
    assert refused.returncode != 0, out
    assert ("resource 'train' has a problem: algorithm.id: unknown algorithm id '8d1b2f4c-0000-4f70-9b81-c2d3e4f5a6b7'"
            in out), out
    assert "<nil>" not in out, out

"""The provider plugin from a Python SDK generated from its schema (modelarts-sdkgen --language python: the CLI's
own Python code generator), so a Python team can choose the plugin over the dynamic resources: the SDK installs
into a fresh virtualenv, and a program using it `up`s a job against the local ModelArts and `destroy`s it. The
SDK's names are Python's (`flavor_id`), the schema's camelCase (`flavorId`) on the wire and in the state."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from testkit.faults import provider_config
from testkit.harness import REPO_ROOT, Stack, engine_bin_dir, pulumi_env
from modelarts_provider.plugin.provider import VERSION
from testkit.plugin_program import PLUGIN_DIR

pytestmark = pytest.mark.engine
ALGORITHM_ID = "8d1b2f4c-5a6e-4f70-9b81-c2d3e4f5a6b7"  # in the emulator catalog
UV = REPO_ROOT / ".venv" / "bin" / "uv"

PROGRAM = f"""\
import pulumi
import pulumi_modelarts as modelarts

job = modelarts.TrainingJob("train", flavor_id="modelarts.vm.cpu.2u", poll_interval_seconds=0.2,
                            algorithm=modelarts.AlgorithmArgArgs(id="{ALGORITHM_ID}",
                                                                 parameters=[{{"name": "epochs", "value": "1"}}]))
waited = modelarts.JobsAwait("waited", jobs={{"train": modelarts.AwaitedJobArgs(
    job_id=job.job_id, job_name=job.job_name, wait_for="running", poll_seconds=0.2)}})
pulumi.export("jobId", job.job_id)
pulumi.export("phases", waited.phases)
"""


@pytest.fixture
def emu(tmp_path: Path) -> Iterator[Any]:
    from modelarts_emulator.testing import running_emulator

    with running_emulator(tmp_path / "emulator", run_seconds=600, phase_seconds=0.2) as e:
        yield e


def _run(cmd: list[str], cwd: Path) -> str:
    proc = subprocess.run(cmd, cwd=cwd, text=True, capture_output=True, timeout=600, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, f"`{' '.join(cmd)}` exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


def test_python_sdk_generates_installs_and_runs(tmp_path: Path, emu: Any) -> None:
    sdkgen = engine_bin_dir() / "modelarts-sdkgen"
    assert sdkgen.exists(), "modelarts-sdkgen is missing: run ./dev setup (scripts/install_engine.sh builds it)"
    st = Stack(workdir=tmp_path, name="none", env=pulumi_env(tmp_path))
    schema = st.run("package", "get-schema", str(PLUGIN_DIR / "pulumi-resource-modelarts"), stack_flag=False).stdout
    (tmp_path / "schema.json").write_text(schema)
    sdk = tmp_path / "sdk"
    _run([str(sdkgen), "--language", "python", str(tmp_path / "schema.json"), str(sdk)], tmp_path)
    # The SDK carries the plugin's version (the schema's, respectSchemaVersion): it asks the engine for v0.1.0.
    assert json.loads((sdk / "pulumi_modelarts" / "pulumi-plugin.json").read_text())["version"] == VERSION
    assert f'VERSION = "{VERSION}"' in (sdk / "setup.py").read_text()
    venv = tmp_path / "venv"  # seeded with pip, as a user's venv is
    _run([str(UV), "venv", "--quiet", "--seed", "--python", sys._base_executable, str(venv)], tmp_path)
    _run([str(UV), "pip", "install", "--quiet", "--python", str(venv / "bin" / "python"), str(sdk)], tmp_path)

    project = tmp_path / "project"
    project.mkdir()
    (project / "__main__.py").write_text(PROGRAM)
    (project / "Pulumi.yaml").write_text(
        f"name: sdk-jobs\nruntime:\n  name: python\n  options:\n    virtualenv: {venv}\n"
        f"plugins:\n  providers:\n    - name: modelarts\n      path: {PLUGIN_DIR}\n")
    env = pulumi_env(tmp_path)
    env.update(PULUMI_RUNTIME_VIRTUALENV=str(venv), PATH=f"{venv / 'bin'}{os.pathsep}{env['PATH']}")
    prog = Stack(workdir=project, name="test", env=env)
    prog.run("stack", "init", "test", stack_flag=False)
    prog.set_all_config(*provider_config(emu))
    prog.up()
    out = prog.outputs()
    assert out["phases"] == {"train": "Running"} and out["jobId"] in {j["metadata"]["id"] for j in emu.jobs()}
    (job,) = [r for r in prog.resources() if r["type"] == "modelarts:index:TrainingJob"]
    assert job["inputs"]["flavorId"] == "modelarts.vm.cpu.2u" and "flavor_id" not in json.dumps(job["inputs"])
    prog.destroy()
    assert emu.jobs() == []

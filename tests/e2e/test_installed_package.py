"""The product as a team meets it, outside the repository: `./dev package` builds the wheel and the plugin archive;
a fresh virtualenv gets the wheel (`pip install modelarts-pulumi`, here with uv from its cache), a fresh Pulumi home
gets the plugin (`pulumi plugin install resource modelarts VERSION --file ARCHIVE`); then (a) a Python project
made with `pulumi new` from the template shipped in the wheel and (b) a YAML program that names no plugin path each
`up` a job against the local ModelArts (harness-started, free port) and `destroy` it.

The template project is made exactly as docs/install.md says: `pulumi new ... --generate-only`, `pulumi install`
(which makes the project's own `venv/`, where `Pulumi.yaml` says, and pip-installs `requirements.txt` with the
wheel from `PIP_FIND_LINKS`, its dependencies from the package index), `pulumi stack init`. Before issue 44 the
engine's Python language host put that virtualenv in the project root and `pulumi up` failed on `import pulumi`.

Nothing of the repository is on the projects' paths: the project runs the installed package, the plugin its own
virtualenv made on first start. Only the random plugin (the stack program's job-name suffixes) comes from the
engine cache, installed with `pulumi plugin install --file` where a download would bring it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from testkit.faults import provider_config
from testkit.harness import REPO_ROOT, Stack, engine_dir, pulumi_env

pytestmark = pytest.mark.engine
ALGORITHM_ID = "8d1b2f4c-5a6e-4f70-9b81-c2d3e4f5a6b7"  # in the emulator catalog
CPU = "modelarts.vm.cpu.2u"
VERSION = "0.1.0"
UV = REPO_ROOT / ".venv" / "bin" / "uv"
RANDOM_VERSION = next(line.split("=", 1)[1].strip() for line in (REPO_ROOT / "scripts" / "versions.env").read_text()
                      .splitlines() if line.startswith("PULUMI_RANDOM_VERSION="))


@pytest.fixture
def emu(tmp_path: Path) -> Iterator[Any]:
    from modelarts_emulator.testing import running_emulator

    with running_emulator(tmp_path / "emulator", run_seconds=600, phase_seconds=0.2) as e:
        yield e


def _run(cmd: list[str], cwd: Path, env: dict[str, str] | None = None, ok: bool = True,
         timeout: float = 600) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(cmd, cwd=cwd, env=env, text=True, capture_output=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)
    if ok:
        assert proc.returncode == 0, f"`{' '.join(cmd)}` exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return proc


def _user_env(base: Path, venv: Path) -> dict[str, str]:
    """A user's shell: the pinned engine and uv on PATH, a fresh Pulumi home, no repository anywhere, the
    package's virtualenv first on PATH (where `python -m modelarts_provider` runs) and not activated for Pulumi."""
    tools = base / "tools"
    tools.mkdir()
    (tools / "uv").symlink_to(UV)  # the plugin's first start installs with it (from uv's cache)
    env = pulumi_env(base)
    env.pop("PYTHONPATH", None)
    engine_bin = str(engine_dir() / "bin")
    env["PATH"] = os.pathsep.join([str(venv / "bin"), engine_bin, str(tools), "/usr/bin", "/bin"])
    env["PULUMI_HOME"] = str(base / "user-pulumi-home")
    env.pop("PULUMI_RUNTIME_VIRTUALENV")  # the project's own venv/ is the engine's to find
    env["MODELARTS_PLUGIN_PYTHON"] = sys._base_executable  # a python >= 3.11 (the system one may be older)
    (base / "user-pulumi-home").mkdir()
    return env


def _assert_recorded_without_runtime_frames(st: Stack) -> None:
    """The stack program's job in the state: its declaration's position alone (core/short_stack_trace.py:
    position_only), none of the package's frames beneath it nor the interpreter's."""
    state = json.loads(st.run("stack", "export").stdout)
    (job,) = [r for r in state["deployment"]["resources"] if r["type"].endswith(":TrainingJob")]
    frames = [f.get("sourcePosition", "") for f in job["stackTrace"]]
    assert frames == [job["sourcePosition"]], job
    assert "/modelarts_provider/training_job/resource.py#" in frames[0], frames
    # Everything else keeps what the SDK records: the stack's own resource, beneath its program.
    (seed,) = [r for r in state["deployment"]["resources"] if r["type"] == "random:index/randomPassword:RandomPassword"]
    assert any("pulumi-language-python-exec" in f.get("sourcePosition", "") for f in seed["stackTrace"]), seed


def test_wheel_and_plugin_installed_outside_the_repository(tmp_path: Path, emu: Any) -> None:
    base = tmp_path / "user"  # pytest's tmp_path: outside the repository
    base.mkdir()
    assert REPO_ROOT not in base.parents
    built = _run([str(REPO_ROOT / "dev"), "package", "--out", str(base / "dist")], REPO_ROOT).stdout.split()
    wheel, archive = Path(built[0]), Path(built[1])
    assert wheel.name == f"modelarts_pulumi-{VERSION}-py3-none-any.whl" and archive.name.endswith(".tar.gz")

    # The package: its own venv (with pip, which the language host runs), the wheel alone (no extras).
    venv = base / "venv"
    _run([str(UV), "venv", "--quiet", "--seed", "--python", sys._base_executable, str(venv)], base)
    _run([str(UV), "pip", "install", "--quiet", "--python", str(venv / "bin" / "python"), str(wheel)], base)
    python = str(venv / "bin" / "python")
    env = _user_env(base, venv)
    absent = _run([python, "-c", "import importlib.util as u; print([m for m in ('numpy', 'matplotlib', 'moto', "
                   "'flask') if u.find_spec(m)])"], base, env).stdout.strip()
    assert absent == "[]", f"the provider's install pulls optional packages: {absent}"
    local = _run([python, "-m", "obs_emulator"], base, env, ok=False)
    assert local.returncode == 1 and "install modelarts-pulumi[local]" in local.stderr, local.stderr

    # The plugin: installed like any provider into the fresh home; the random plugin the set-up built likewise
    # (docs/install.md: where no download brings it).
    _run(["pulumi", "plugin", "install", "resource", "modelarts", VERSION, "--file", str(archive)], base, env)
    random = engine_dir() / "home" / "plugins" / f"resource-random-v{RANDOM_VERSION}" / "pulumi-resource-random"
    _run(["pulumi", "plugin", "install", "resource", "random", RANDOM_VERSION, "--file", str(random)], base, env)
    installed = base / "user-pulumi-home" / "plugins" / f"resource-modelarts-v{VERSION}"
    assert (installed / "pulumi-resource-modelarts").is_file()

    # (a) A Python project from the template shipped in the wheel.
    template = _run([python, "-m", "modelarts_provider", "template"], base, env).stdout.strip()
    # a clean copy of the one in the wheel (whose install compiled its __main__.py): nothing generated shipped
    assert any((venv / "lib").rglob("templates/modelarts-python/__main__.py"))
    # The documented steps, word for word (`--yes`: no terminal to confirm on).
    project = base / "my-jobs"
    _run(["pulumi", "new", template, "--dir", "my-jobs", "--name", "my-jobs", "--generate-only", "--yes"], base, env)
    assert sorted(p.name for p in project.iterdir()) == [
        ".gitignore", "Pulumi.yaml", "README.md", "__main__.py", "requirements.txt", "stacks"]
    assert list((project / "stacks").iterdir()) == []
    manifest = yaml.safe_load((project / "Pulumi.yaml").read_text())
    assert manifest["name"] == "my-jobs" and manifest["runtime"]["options"] == {"virtualenv": "venv"}, manifest
    assert len((project / "__main__.py").read_text().strip().splitlines()) == 3  # import, blank, main()
    _run(["pulumi", "install"], project, {**env, "PIP_FIND_LINKS": str(wheel.parent)})
    # The virtualenv where Pulumi.yaml says, holding the package; none in the project root.
    assert (project / "venv" / "pyvenv.cfg").is_file() and not (project / "pyvenv.cfg").exists()
    assert list((project / "venv" / "lib").glob("python3*/site-packages/modelarts_provider/stack/run.py"))
    st = Stack(workdir=project, name="test", env=env)
    st.run("stack", "init", "test", stack_flag=False)
    st.set_all_config(*provider_config(emu))
    assert (project / "stacks" / "Pulumi.test.yaml").is_file() and not (project / "Pulumi.test.yaml").exists()
    st.write_config({
        "modelarts-jobs:obs": {"main": {"bucket": "emulator-bucket"}},
        "modelarts-jobs:pools": {"cpu": {"flavor": CPU, "maxNodes": 2}},
        "modelarts-jobs:jobs": {"train": {"pool": "cpu", "algorithmId": ALGORITHM_ID, "parameters": {"epochs": 1},
                                          "pollIntervalSeconds": 0.2}}})
    up = st.up()
    assert "ModuleNotFoundError" not in up.stdout + up.stderr
    _assert_recorded_without_runtime_frames(st)
    # The program ran on the project's venv/bin/python, not on the python first on PATH (which has the package
    # too): the stack program's own frames, recorded with the seed it declares, are under the project's venv/.
    (seed,) = [r for r in st.resources() if r["type"] == "random:index/randomPassword:RandomPassword"]
    assert seed["stackTrace"][0]["sourcePosition"].startswith("project:///venv/lib/"), seed["stackTrace"]
    jobs = st.outputs()["jobs"]
    assert list(jobs) == ["train"] and jobs["train"]["id"] in {j["metadata"]["id"] for j in emu.jobs()}
    status = _run([python, "-m", "modelarts_provider", "status", "--stack", "test"], project, env)
    assert "1 job:" in status.stdout, status.stdout
    chart = _run([python, "-m", "modelarts_provider", "results", "any", "--stack", "test", "--chart", "c.png"],
                 project, env, ok=False)
    assert chart.returncode == 1 and "install modelarts-pulumi[charts]" in chart.stderr, chart.stderr
    st.destroy()
    assert emu.jobs() == []

    # (b) A YAML program: no plugin path, the installed plugin serves modelarts:index:*.
    yaml_project = base / "yaml-jobs"
    yaml_project.mkdir()
    (yaml_project / "Pulumi.yaml").write_text(yaml.safe_dump({
        "name": "yaml-jobs", "runtime": "yaml",
        "resources": {"train": {"type": "modelarts:index:TrainingJob", "properties": {
            "algorithm": {"id": ALGORITHM_ID, "parameters": [{"name": "epochs", "value": "1"}]},
            "flavorId": CPU, "waitFor": "created", "pollIntervalSeconds": 0.2}}},
        "outputs": {"jobId": "${train.jobId}", "phase": "${train.phase}"}}, sort_keys=False))
    ys = Stack(workdir=yaml_project, name="test", env=env)
    ys.run("stack", "init", "test", stack_flag=False)
    ys.set_all_config(*provider_config(emu))
    ys.up()
    out = ys.outputs()
    assert out["jobId"] in {j["metadata"]["id"] for j in emu.jobs()} and out["phase"] == "Creating", out  # no wait
    assert (installed / "venv" / "bin" / "python").exists()  # the plugin's own environment, made on first start
    status = _run([python, "-m", "modelarts_provider", "status", "--stack", "test"], yaml_project, env)
    assert "train" in status.stdout and "1 job:" in status.stdout, status.stdout  # the plugin's job, camelCase
    ys.destroy()
    assert emu.jobs() == []

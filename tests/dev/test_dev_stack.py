"""Any stack, locally: `./dev ... --stack NAME` runs that stack and never creates another on the side, `./dev env`
prints the local clouds' variables, and the command-line tools find the pulumi CLI the set-up built."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from modelarts_emulator.config import DEFAULT_ACCESS_KEY, DEFAULT_PROJECT_ID, DEFAULT_SECRET_KEY
from modelarts_provider.core import engine_cli as pulumi_cli
from tests.dev.test_dev import _dev, _fake_pulumi, _isolated_state_env, _require_warm_setup
from testkit.harness import PULUMI_VERSION, REPO_ROOT, engine_dir


def _recording_pulumi(tmp_path: Path, missing_stacks: tuple[str, ...] = ()) -> tuple[dict[str, str], Path]:
    """A `pulumi` of the pinned version first on PATH that records every call (one JSON line each) and fails
    `stack select NAME` for the stacks named missing, as the real CLI does for a stack that does not exist."""
    calls = tmp_path / "calls.jsonl"
    env = _fake_pulumi(
        tmp_path,
        f"open({str(calls)!r}, 'a').write(json.dumps(sys.argv[1:]) + '\\n')\n"
        f"if sys.argv[1:3] == ['stack', 'select'] and sys.argv[3] in {list(missing_stacks)!r}:\n"
        "    print('error: no stack named ' + sys.argv[3] + ' found', file=sys.stderr); sys.exit(255)\n")
    return env, calls


def _calls(path: Path) -> list[list[str]]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_pulumi_with_another_stack_never_creates_local(tmp_path: Path) -> None:
    _require_warm_setup()
    env, calls = _recording_pulumi(tmp_path)
    out = _dev("pulumi", "stack", "output", "--json", "--stack", "mine", env=env)
    assert out.returncode == 0, out.stderr
    assert [json.loads(line) for line in out.stdout.splitlines()] == [["stack", "output", "--json", "--stack", "mine"]]
    assert _calls(calls) == [["stack", "select", "mine", "--non-interactive"],
                             ["stack", "output", "--json", "--stack", "mine"]]


def test_a_missing_stack_is_named_not_created(tmp_path: Path) -> None:
    """(Through `./dev pulumi`: `./dev up|status|logs` also start the local clouds on their fixed ports.)"""
    _require_warm_setup()
    env, calls = _recording_pulumi(tmp_path, missing_stacks=("mine",))
    out = _dev("pulumi", "preview", "--stack=mine", env=env)
    assert out.returncode == 1
    assert "no stack mine" in out.stderr and "pulumi stack init mine" in out.stderr, out.stderr
    assert _calls(calls) == [["stack", "select", "mine", "--non-interactive"]]  # nothing created, no preview


def test_env_points_a_shell_at_the_local_clouds(tmp_path: Path) -> None:
    _require_warm_setup()
    env = {k: v for k, v in _isolated_state_env(tmp_path / "state").items() if k != "PULUMI_HOME"}
    out = _dev("env", env={**env, "HOME": str(tmp_path / "home"), "MODELARTS_ENGINE_CACHE": str(engine_dir().parent)})
    assert out.returncode == 0, out.stderr
    shown = subprocess.run(["bash", "-c", out.stdout + "\nenv -0"], capture_output=True, timeout=30).stdout
    values = dict(item.split("=", 1) for item in shown.decode().split("\0") if "=" in item)
    assert values["MODELARTS_ENDPOINT"] == "http://127.0.0.1:8780" and values["OBS_ENDPOINT"] == "http://127.0.0.1:8781"
    assert values["BSS_ENDPOINT"] == "http://127.0.0.1:8782"  # the local billing service: prices at preview
    assert (values["HW_ACCESS_KEY"], values["HW_SECRET_KEY"]) == (DEFAULT_ACCESS_KEY, DEFAULT_SECRET_KEY)
    assert values["HW_PROJECT_ID"] == DEFAULT_PROJECT_ID and values["HW_REGION_NAME"] == "cn-north-4"
    assert values["PULUMI_BACKEND_URL"] == f"file://{tmp_path / 'state' / 'backend'}?metadata=skip"  # the stacks ./dev sees
    # Issue 44: the shell's own Pulumi home (HOME/.pulumi here), never the engine cache, with the random plugin
    # the set-up built installed in it: `pulumi plugin install` writes there.
    home = tmp_path / "home" / ".pulumi"
    assert values["PULUMI_HOME"] == str(home), values["PULUMI_HOME"]
    random = [p for p in (home / "plugins").iterdir() if p.name.startswith("resource-random-v")]
    assert len(random) == 1 and (random[0] / "pulumi-resource-random").exists(), random
    listed = subprocess.run(["bash", "-c", out.stdout + "\npulumi plugin ls"], capture_output=True, text=True,
                            timeout=60)
    assert "random" in listed.stdout, listed.stdout + listed.stderr
    first = values["PATH"].split(os.pathsep)[0]
    assert subprocess.run([str(Path(first) / "pulumi"), "version"], capture_output=True, text=True,
                          timeout=60).stdout.strip() == f"v{PULUMI_VERSION}"
    assert all(line.startswith("export ") for line in out.stdout.splitlines()), out.stdout
    assert shlex.split(out.stdout)  # one shell-quoted word per value


def test_cli_tools_find_the_setups_pulumi_off_path(tmp_path: Path) -> None:
    """`python -m modelarts_provider status --stack mine` from a shell without pulumi on PATH runs the set-up's."""
    cache, bindir = tmp_path / "cache", tmp_path / "cache" / f"engine-v{PULUMI_VERSION}" / "bin"
    bindir.mkdir(parents=True)
    calls = tmp_path / "calls.jsonl"
    (bindir / "pulumi").write_text(f"#!{sys.executable}\nimport json, sys\n"
                                   f"open({str(calls)!r}, 'a').write(json.dumps(sys.argv[1:]) + '\\n')\n"
                                   "print('{}')\n")
    (bindir / "pulumi").chmod(0o755)
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "MODELARTS_ENGINE_CACHE": str(cache)}
    assert pulumi_cli.find_pulumi(env) == str(bindir / "pulumi")
    out = subprocess.run([sys.executable, "-m", "modelarts_provider", "status", "--stack", "mine"], cwd=tmp_path,
                         env={**env, "PYTHONPATH": str(REPO_ROOT)}, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert _calls(calls)[0][:2] == ["stack", "export"] and "mine" in _calls(calls)[0]
    # No pulumi anywhere: one line naming both places.
    (bindir / "pulumi").unlink()
    out = subprocess.run([sys.executable, "-m", "modelarts_provider", "status", "--stack", "mine"], cwd=tmp_path,
                         env={**env, "PYTHONPATH": str(REPO_ROOT)}, capture_output=True, text=True, timeout=60)
    assert out.returncode == 1 and out.stderr.count("\n") == 1, out.stderr
    assert "not on PATH nor in" in out.stderr and str(bindir) in out.stderr


def test_the_setups_pulumi_on_path_is_run_without_asking_its_version(tmp_path: Path) -> None:
    """The set-up's own pulumi first on PATH (as ./dev puts it) is the pinned one: the tools run it without a
    `pulumi version` first (a CLI start, about 0.3 CPU-s per tool run); another one on PATH is asked."""
    cache, bindir = tmp_path / "cache", tmp_path / "cache" / f"engine-v{PULUMI_VERSION}" / "bin"
    bindir.mkdir(parents=True)
    calls = tmp_path / "calls.jsonl"
    script = (f"#!{sys.executable}\nimport json, sys\n"
              f"open({str(calls)!r}, 'a').write(json.dumps(sys.argv[1:]) + '\\n')\nprint('v0.0.1')\n")
    (bindir / "pulumi").write_text(script)
    (bindir / "pulumi").chmod(0o755)
    env = {"PATH": f"{bindir}:/usr/bin:/bin", "HOME": str(tmp_path), "MODELARTS_ENGINE_CACHE": str(cache)}
    assert pulumi_cli.find_pulumi(env) == str(bindir / "pulumi")
    assert not calls.exists()
    other = tmp_path / "other"
    other.mkdir()
    (other / "pulumi").write_text(script)
    (other / "pulumi").chmod(0o755)
    pulumi_cli._version_of.cache_clear()
    env["PATH"] = f"{other}:/usr/bin:/bin"
    assert pulumi_cli.find_pulumi(env) == str(bindir / "pulumi")  # another version on PATH: the set-up's
    assert _calls(calls) == [["version"]]


def test_a_missing_extra_is_named(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from modelarts_provider import __main__ as cli
    from modelarts_provider.core import extras

    real = extras.importlib.util.find_spec
    monkeypatch.setattr(extras.importlib.util, "find_spec",
                        lambda name, *a: None if name == "matplotlib" else real(name, *a))
    assert cli.main(["results", "sweep", "--stack", "mine", "--chart", "out.png"]) == 1
    err = capsys.readouterr().err
    assert err == ("results: results --chart needs matplotlib: install modelarts-pulumi[charts] "
                   "(pip install 'modelarts-pulumi[charts]')\n")


def test_status_and_logs_find_jobs_of_either_front_door() -> None:
    """The plugin's TrainingJob (YAML, TypeScript, SDKs: camelCase outputs) is a job for `status` and `logs` too."""
    from modelarts_provider.cli.stack_reader import PulumiCli, state_job
    from modelarts_provider.cli.status import stack_jobs

    class Exported(PulumiCli):
        def json(self, *args: str) -> object:
            assert args == ("stack", "export")
            return {"deployment": {"resources": [
                {"urn": "urn:pulumi:mine::p::modelarts:index:TrainingJob::yaml-job", "type": "modelarts:index:TrainingJob",
                 "outputs": {"jobId": "j1", "jobName": "yaml-job-abc", "workspaceId": "w1"}},
                {"urn": "urn:pulumi:mine::p::pulumi-python:dynamic/modelarts:TrainingJob::py-job",
                 "type": "pulumi-python:dynamic/modelarts:TrainingJob", "outputs": {"job_id": "j2", "job_name": "py"}},
                {"urn": "urn:pulumi:mine::p::modelarts:index:JobsAwait::waited", "type": "modelarts:index:JobsAwait",
                 "outputs": {"jobs": {}}}]}}

    cli = Exported(Path("."), "mine")
    assert stack_jobs(cli) == [("yaml-job", "j1", "yaml-job-abc", "w1"), ("py-job", "j2", "py", None)]
    found = state_job(cli, "yaml-job-abc")
    assert found is not None and (found.id, found.key) == ("j1", "yaml-job")

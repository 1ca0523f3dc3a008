"""Issue 55, item 6: `./dev` never acts on a stack it just created. With the user's own `PULUMI_BACKEND_URL`
exported, `./dev destroy` used to create an empty `local` there and say its resources were deleted (exit 0),
the real stack untouched. Now every command that acts on a stack (up, destroy, refresh, logs, results,
outputs, status, pulumi) refuses in one line when the stack is not in the backend in use, naming that backend
(without its query or credentials), and starts nothing; only `./dev up` creates `local`, and only in ./dev's
own backend.

Most tests use a recording fake `pulumi` (tests/dev/test_dev_stack.py) that says "no stack named" for the stacks
it is told are missing; the last one runs the real CLI against a file backend of the user's.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.dev.test_dev import _dev, _fake_pulumi, _isolated_state_env, _require_warm_setup
from tests.dev.test_dev_stack import _calls, _recording_pulumi
from testkit.harness import REPO_ROOT, engine_bin_dir

# Each command with the arguments it needs; all refuse before anything is started or run.
COMMANDS = [["destroy"], ["up"], ["refresh"], ["logs", "a"], ["results", "s"], ["status"], ["outputs", "a"],
            ["pulumi", "stack", "output"]]
SELECT_LOCAL = ["stack", "select", "local", "--non-interactive"]


def _one_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    return lines[0]


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: a[0])
def test_a_users_backend_without_local_is_refused_naming_it(tmp_path: Path, args: list[str]) -> None:
    _require_warm_setup()
    env, calls = _recording_pulumi(tmp_path, missing_stacks=("local",))
    env["PULUMI_BACKEND_URL"] = "s3://team-state?endpoint=obs.example.com&region=cn-north-4"
    out = _dev(*args, env=env, timeout=120)
    assert out.returncode == 1, out.stdout + out.stderr
    line = _one_line(out.stderr)
    assert line == ("dev: no stack local in the backend in use (s3://team-state, your PULUMI_BACKEND_URL); nothing "
                    "was done: ./dev creates local only in its own backend (unset PULUMI_BACKEND_URL), or use "
                    "--stack NAME for a stack of yours there"), line
    assert _calls(calls) == [SELECT_LOCAL]  # no --create, no destroy, no up
    assert out.stdout == ""


@pytest.mark.parametrize("args", [["destroy"], ["refresh"], ["status"], ["pulumi", "stack", "output"]],
                         ids=lambda a: a[0])
def test_only_up_creates_local_in_devs_own_backend(tmp_path: Path, args: list[str]) -> None:
    _require_warm_setup()
    env, calls = _recording_pulumi(tmp_path, missing_stacks=("local",))
    out = _dev(*args, env=env, timeout=120)
    assert out.returncode == 1, out.stdout + out.stderr
    backend = f"file://{tmp_path / 'state' / 'backend'}"
    assert _one_line(out.stderr) == (f"dev: no stack local in the backend in use ({backend}); nothing was done: "
                                     "./dev up creates it")
    assert _calls(calls) == [SELECT_LOCAL]


def test_up_creates_local_in_devs_own_backend(tmp_path: Path) -> None:
    """The creation itself, stopped right after (the fake fails `--create`): nothing else ran before it (the
    local clouds start after the stack is had)."""
    _require_warm_setup()
    calls = tmp_path / "calls.jsonl"
    env = _fake_pulumi(tmp_path,
                       f"open({str(calls)!r}, 'a').write(json.dumps(sys.argv[1:]) + '\\n')\n"
                       "if sys.argv[1:3] == ['stack', 'select']:\n"
                       "    print('error: no stack named local found', file=sys.stderr); sys.exit(255)\n")
    out = _dev("up", env=env, timeout=120)
    assert out.returncode != 0 and "emulator" not in out.stderr, out.stderr
    assert _calls(calls) == [SELECT_LOCAL, ["stack", "select", "--create", "local", "--non-interactive"]]
    assert not (tmp_path / "state" / "emulator.pid").exists()


def test_a_missing_stack_of_the_users_is_named_not_created(tmp_path: Path) -> None:
    _require_warm_setup()
    env, calls = _recording_pulumi(tmp_path, missing_stacks=("mine",))
    out = _dev("destroy", "--stack", "mine", env=env, timeout=120)
    assert out.returncode == 1
    assert _one_line(out.stderr).startswith(f"dev: no stack mine in the backend in use (file://{tmp_path / 'state'}"
                                            "/backend); nothing was done: create it with pulumi stack init mine")
    assert _calls(calls) == [["stack", "select", "mine", "--non-interactive"]]


def test_the_backend_is_named_without_credentials(tmp_path: Path) -> None:
    _require_warm_setup()
    env, _ = _recording_pulumi(tmp_path, missing_stacks=("local",))
    env["PULUMI_BACKEND_URL"] = "postgres://admin:s3cr3t@db.example.com:5432/pulumi?sslmode=require"
    out = _dev("destroy", env=env, timeout=120)
    line = _one_line(out.stderr)
    assert "(postgres://db.example.com:5432/pulumi, your PULUMI_BACKEND_URL)" in line and "s3cr3t" not in line


def test_a_backend_that_cannot_be_read_says_why_in_one_line(tmp_path: Path) -> None:
    _require_warm_setup()
    env = _fake_pulumi(tmp_path, "if sys.argv[1:3] == ['stack', 'select']:\n"
                                 "    print('error: could not reach the backend: timeout', file=sys.stderr); "
                                 "sys.exit(255)\n")
    env["PULUMI_BACKEND_URL"] = "s3://team-state"
    out = _dev("destroy", env=env, timeout=120)
    assert out.returncode == 1
    assert _one_line(out.stderr) == ("dev: cannot read the stacks of the backend in use (s3://team-state): error: "
                                     "could not reach the backend: timeout")


def test_an_existing_stack_is_selected_and_nothing_said(tmp_path: Path) -> None:
    _require_warm_setup()
    env, calls = _recording_pulumi(tmp_path)
    out = _dev("pulumi", "stack", "output", "--json", env=env, timeout=120)
    assert out.returncode == 0 and out.stderr == "", out.stderr
    assert _calls(calls) == [SELECT_LOCAL, ["stack", "output", "--json"]]


@pytest.mark.engine  # the real pulumi CLI
def test_destroy_with_the_users_backend_creates_nothing_and_says_so(tmp_path: Path) -> None:
    """The issue's case, with the real CLI: a file backend of the user's without `local`."""
    _require_warm_setup()
    backend = tmp_path / "users-backend"
    backend.mkdir()
    env = {**_isolated_state_env(tmp_path / "state"), "PULUMI_BACKEND_URL": f"file://{backend}",
           "PULUMI_CONFIG_PASSPHRASE": "theirs"}
    out = _dev("destroy", env=env, timeout=180)
    assert out.returncode == 1, out.stdout + out.stderr
    assert _one_line(out.stderr).startswith(f"dev: no stack local in the backend in use (file://{backend}, your "
                                            "PULUMI_BACKEND_URL); nothing was done")
    assert "Created stack" not in out.stderr and "deleted" not in out.stdout + out.stderr
    listed = subprocess.run([str(engine_bin_dir() / "pulumi"), "stack", "ls", "--json"], cwd=REPO_ROOT,
                            env={**env, "PULUMI_HOME": str(tmp_path / "home"),
                                 "PATH": f"{REPO_ROOT / '.venv' / 'bin'}{os.pathsep}{env['PATH']}"},
                            capture_output=True, text=True, timeout=60)
    assert listed.returncode == 0 and json.loads(listed.stdout) == [], listed.stdout + listed.stderr

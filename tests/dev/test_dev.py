"""The front door itself: `./dev` keeps stdout for Pulumi, is silent when everything is set up, and the
set-up step helper (scripts/steps.sh) prints one timed line per step and the log tail only on failure."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from testkit.harness import PULUMI_VERSION, REPO_ROOT, engine_bin_dir

DEV = REPO_ROOT / "dev"
STEPS = REPO_ROOT / "scripts" / "steps.sh"


def _require_warm_setup() -> None:
    """These tests run ./dev against the real engine cache; building it here would take 15-20 minutes."""
    cli = engine_bin_dir() / "pulumi"
    if not cli.exists():
        pytest.fail(f"pulumi v{PULUMI_VERSION} not built in {cli.parent}: run ./dev setup first (./dev test does)")


def _dev(*args: str, env: dict[str, str] | None = None, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(DEV), *args], cwd=REPO_ROOT, env=env if env is not None else dict(os.environ),
                          text=True, capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL)


def _isolated_state_env(state: Path) -> dict[str, str]:
    """The environment CI has, with the local stack's state in `state` instead of the repo's .state/."""
    env = {k: v for k, v in os.environ.items() if k not in ("PULUMI_BACKEND_URL", "PULUMI_CONFIG_PASSPHRASE")}
    env["MODELARTS_STATE"] = str(state)
    return env


def _bash(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-c", f"set -euo pipefail; . {STEPS}; {script}", "bash", *args],
                          text=True, capture_output=True, timeout=60, stdin=subprocess.DEVNULL)


# --- ./dev ---------------------------------------------------------------------------------------

def test_setup_is_silent_when_everything_is_cached() -> None:
    _require_warm_setup()
    out = _dev("setup")
    assert out.returncode == 0, out.stderr
    assert out.stdout == ""
    assert out.stderr == ""


@pytest.mark.engine  # ./dev pulumi runs the CLI
def test_stack_output_json_is_pulumis_alone(tmp_path: Path) -> None:
    _require_warm_setup()
    local_config = REPO_ROOT / "stacks" / "Pulumi.local.yaml"
    before = local_config.read_bytes()
    env = _isolated_state_env(tmp_path / "state")

    # Only `./dev up` creates `local` (issue 55): before it, a command on the stack refuses in one line.
    first = _dev("pulumi", "stack", "output", "--json", env=env)
    assert first.returncode == 1 and first.stdout == "", first.stderr
    assert first.stderr.strip().endswith("nothing was done: ./dev up creates it"), first.stderr
    # The stack made as `./dev up` makes it (the same pulumi, backend and passphrase), without the up's clouds.
    made = subprocess.run(["bash", "-c", ". scripts/env.sh; PULUMI_CONFIG_PASSPHRASE=local "
                                         "pulumi stack select --create local --non-interactive"],
                          cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert made.returncode == 0 and "Created stack 'local'" in made.stderr + made.stdout, made.stderr
    assert (tmp_path / "state" / "backend" / ".pulumi" / "stacks").is_dir()  # MODELARTS_STATE honoured
    # ./dev's file backend writes no `.attrs` sidecars: a killed up could leave one empty, the stack unreadable.
    assert not list((tmp_path / "state" / "backend").rglob("*.attrs"))

    again = _dev("pulumi", "stack", "output", "--json", env=env)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout) == {}
    assert again.stderr == ""  # the stack exists, everything cached: nothing to say
    assert local_config.read_bytes() == before  # the stack's config file is not rewritten


def _fake_pulumi(tmp_path: Path, then: str = "") -> dict[str, str]:
    """A `pulumi` of the pinned version first on PATH (used as the user's own) that runs the Python lines `then`
    (json and sys imported) and prints its arguments."""
    bindir = tmp_path / "fakebin"
    bindir.mkdir()
    fake = bindir / "pulumi"
    fake.write_text(
        "#!/usr/bin/env python3\n"
        "import json, sys\n"
        f"if sys.argv[1:] == ['version']: print('v{PULUMI_VERSION}'); sys.exit(0)\n"
        + then
        + "print(json.dumps(sys.argv[1:]))\n"
    )
    fake.chmod(0o755)
    env = _isolated_state_env(tmp_path / "state")
    env["PATH"] = f"{bindir}{os.pathsep}{env.get('PATH', '')}"
    return env


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["refresh"], ["refresh", "--run-program"]),
        (["refresh", "--yes", "--stack", "local"], ["refresh", "--run-program", "--yes", "--stack", "local"]),
        (["refresh", "--run-program=false"], ["refresh", "--run-program=false"]),
        (["refresh", "--yes", "--run-program"], ["refresh", "--yes", "--run-program"]),
        (["preview", "--diff"], ["preview", "--diff"]),
        (["stack", "output", "refresh"], ["stack", "output", "refresh"]),
    ],
)
def test_pulumi_refresh_reruns_the_program_unless_told_otherwise(
    tmp_path: Path, args: list[str], expected: list[str]
) -> None:
    _require_warm_setup()
    out = _dev("pulumi", *args, env=_fake_pulumi(tmp_path))
    assert out.returncode == 0, out.stderr
    # Only the user's command reaches stdout; `stack select local` (it exists) says nothing.
    assert [json.loads(line) for line in out.stdout.splitlines()] == [expected]
    assert out.stderr == ""


def test_help_documents_refresh() -> None:
    out = _dev("help")
    assert out.returncode == 0
    assert "./dev refresh" in out.stdout and "--run-program" in out.stdout


# --- scripts/steps.sh ----------------------------------------------------------------------------

STEP_LINE = re.compile(r"^(?P<label>.+)\.\.\. done in (?P<secs>\d+) s$")


def test_step_prints_one_timed_line_and_logs_the_commands_output(tmp_path: Path) -> None:
    log = tmp_path / "state" / "setup.log"
    out = _bash('STEP_LOG="$1" step "demo: building thing (step 1 of 2)" '
                'bash -c "echo chatter-out; echo chatter-err >&2"', str(log))
    assert out.returncode == 0, out.stderr
    assert out.stdout == ""
    lines = out.stderr.splitlines()
    assert len(lines) == 1, out.stderr
    m = STEP_LINE.match(lines[0])
    assert m and m["label"] == "demo: building thing (step 1 of 2)" and int(m["secs"]) < 10
    text = log.read_text()
    assert "chatter-out" in text and "chatter-err" in text


def test_step_log_defaults_to_state_dir(tmp_path: Path) -> None:
    out = _bash('MODELARTS_STATE="$1"; unset STEP_LOG; step "demo: x" echo hello', str(tmp_path))
    assert out.returncode == 0, out.stderr
    assert out.stdout == "" and STEP_LINE.match(out.stderr.strip())
    assert "hello" in (tmp_path / "setup.log").read_text()


def test_failing_step_prints_its_log_tail_on_stderr_and_fails(tmp_path: Path) -> None:
    log = tmp_path / "setup.log"
    out = _bash(
        'export STEP_LOG="$1"\n'
        'step "demo: ok" bash -c "echo earlier-step-output"\n'
        'step "demo: bad (step 2 of 2)" bash -c \'for i in $(seq 1 100); do echo "line $i"; done; exit 3\'\n'
        'echo not-reached',
        str(log),
    )
    assert out.returncode == 3
    assert out.stdout == ""
    lines = out.stderr.splitlines()
    assert STEP_LINE.match(lines[0])
    assert re.fullmatch(r"demo: bad \(step 2 of 2\)\.\.\. failed after \d+ s \(exit code 3\)", lines[1])
    assert str(log) in lines[2] and str(log) in lines[-1]
    tail = lines[3:-1]
    assert tail == [f"line {i}" for i in range(41, 101)]  # the last 60 lines, of this step only
    assert "earlier-step-output" not in out.stderr
    assert "line 1\n" in log.read_text()  # the whole output stays in the log


def test_step_runs_functions_with_errexit_and_restores_the_callers(tmp_path: Path) -> None:
    log = tmp_path / "setup.log"
    out = _bash(
        'STEP_LOG="$1"\n'
        'half_done() { echo first; false; echo should-not-run; }\n'
        'step "demo: ok" true\n'
        'echo "errexit=${-//[^e]/}" >&2\n'
        'step "demo: fn" half_done\n'
        'echo not-reached >&2',
        str(log),
    )
    assert out.returncode == 1
    assert "errexit=e" in out.stderr  # the caller's set -e is back after a step
    assert "demo: fn... failed after" in out.stderr and "not-reached" not in out.stderr
    assert "first" in log.read_text() and "should-not-run" not in log.read_text()


def test_step_refuses_a_function_under_if_where_set_e_cannot_work(tmp_path: Path) -> None:
    log = tmp_path / "setup.log"
    out = _bash(
        'STEP_LOG="$1"\n'
        'half_done() { echo ran >&2; false; echo should-not-run; }\n'
        'if step "demo: fn" half_done; then echo WRONG >&2; else echo "refused rc=$?" >&2; fi\n'
        'step "demo: exe" bash -c "exit 4" || echo "exe rc=$?" >&2',
        str(log),
    )
    assert out.returncode == 0, out.stderr
    assert "WRONG" not in out.stderr and "ran" not in out.stderr.splitlines()
    assert "refused rc=2" in out.stderr and "plain statement" in out.stderr
    assert "exe rc=4" in out.stderr  # an executable is its own process: fine under || or if

"""Issue 44: after a killed `up`, `./dev`'s next command repairs what it left (scripts/dev_recover.py): an empty
checkpoint attributes file of our file backend, and the engine's processes left running for this state, only
ours."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from testkit.harness import REPO_ROOT

RECOVER = REPO_ROOT / "scripts" / "dev_recover.py"


def _recover(state: Path, cache: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(RECOVER), str(state), str(cache), str(cache / "repo")],
                          capture_output=True, text=True, timeout=60)


def test_an_empty_attrs_file_of_our_backend_is_removed_and_nothing_else(tmp_path: Path) -> None:
    stacks = tmp_path / "state" / "backend" / ".pulumi" / "stacks" / "modelarts-jobs"
    stacks.mkdir(parents=True)
    (stacks / "local.json").write_text('{"checkpoint": {}}')
    (stacks / "local.json.attrs").write_text("")  # what a SIGKILL left
    (stacks / "other.json.attrs").write_text('{"user.content_type": "application/json"}')
    (stacks / "broken.json.attrs").write_text('{"user.cont')
    out = _recover(tmp_path / "state", tmp_path / "cache")
    assert out.returncode == 0, out.stderr
    assert sorted(p.name for p in stacks.iterdir()) == ["local.json", "other.json.attrs"]
    assert (stacks / "local.json").read_text() == '{"checkpoint": {}}'
    assert [line.split(" (")[0] for line in out.stderr.splitlines()] == [
        f"dev: removed {stacks / 'broken.json.attrs'}", f"dev: removed {stacks / 'local.json.attrs'}"]
    assert _recover(tmp_path / "state", tmp_path / "cache").stderr == ""  # nothing left to do: silent


def _orphan(program: Path, state: Path) -> int:
    """A process running `program`, for `state`, whose parent is gone (started by a shell that exits at once)."""
    pidfile = program.parent / f"{program.name}-{state.name}.pid"
    subprocess.run(["sh", "-c", f'"{program}" 600 >/dev/null 2>&1 & echo $! > "{pidfile}"'],
                   env={**os.environ, "MODELARTS_STATE": str(state)}, check=True, timeout=30)
    return int(pidfile.read_text())


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def test_the_engines_orphans_of_this_state_are_ended_and_no_other(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    (cache / "plugins").mkdir(parents=True)
    random = cache / "plugins" / "pulumi-resource-random"  # a stand-in: sleep under the engine's name
    shutil.copy(shutil.which("sleep") or "/bin/sleep", random)
    elsewhere = tmp_path / "elsewhere" / "pulumi-resource-random"  # the same name, not from our engine
    elsewhere.parent.mkdir()
    shutil.copy(random, elsewhere)
    ours = _orphan(random, tmp_path / "state")
    other_state = _orphan(random, tmp_path / "other-state")
    not_from_our_engine = _orphan(elsewhere, tmp_path / "state")
    try:
        out = _recover(tmp_path / "state", cache)
        assert out.returncode == 0, out.stderr
        assert out.stderr.splitlines() == [
            f"dev: ended pulumi-resource-random (pid {ours}), left running by a killed pulumi command"]
        deadline = time.monotonic() + 30
        while _alive(ours) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(ours)
        assert _alive(other_state) and _alive(not_from_our_engine)
    finally:
        for pid in (ours, other_state, not_from_our_engine):
            try:
                os.kill(pid, 9)
            except OSError:
                pass

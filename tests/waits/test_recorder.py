"""The recorder is a tool that works: recording again on a fresh local ModelArts gives what the fixtures hold (the
same polls at the same emulated times, lines and outcome; only the ids the emulator hands out differ)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from testkit.wait_recorder import Recording, load_all

REPO = Path(__file__).resolve().parents[2]
AGAIN = ["network_create", "job_stop", "pool_create_fails"]  # a success, a stop that terminates, a failure


def test_recording_again_gives_the_committed_recordings(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(REPO / "scripts" / "record_waits.py"), "--out", str(tmp_path), *AGAIN],
                          cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    committed = load_all()
    for name in AGAIN:
        fresh = Recording.model_validate_json((tmp_path / f"{name}.json").read_text())
        old = committed[name]
        assert [a.t for a in fresh.answers] == [a.t for a in old.answers], name
        assert (fresh.kind, fresh.polls, fresh.outcome, fresh.error, fresh.message, fresh.result, fresh.lines) == \
               (old.kind, old.polls, old.outcome, old.error, old.message, old.result, old.lines), name
        assert len(fresh.terminated) == len(old.terminated), name

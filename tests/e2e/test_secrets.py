"""Issue 20 under the real engine: a secret from config never appears in plaintext, wherever the product
writes or prints, while the job does receive it.

One stack, few engine commands:
1. the whole `modelarts-jobs:jobs` section set as one secret (a map), holding `OPENAI` (not a
   secret-looking name, so only the path can tell) and a URL with a password;
2. a 3-character secret (`--secret --path` on a sweep's environment): marked by path, whatever its length;
3. a secret grid value: refused at preview with the reason and what to do;
4. the logs command masks the config secrets (read through the stack's own secrets provider), and says in
   one line when it cannot read them;
5. the failure report of a failed `up` shows the log tail, masked. (The engine masks config secrets in
   its own output too, with the same `******`, so what the provider masked itself, a job's secret inputs
   and shapes nobody declared (`ERROR: HF_TOKEN=...`, JSON, dicts, flags), is checked where the engine
   cannot help: tests/logs/test_failure_tail.py, and tests/security/test_masking.py's property tests.)
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from testkit.harness import REPO_ROOT, file_backend_dir
from testkit.faults import FAST_EMULATOR, PROJECT, job, job_stack, output_of, owner_key, sweep

pytestmark = pytest.mark.engine

OPENAI = "sk-live-Q9wE4rT7yU1iO3pA"           # under a name nothing would call secret
DB_PASSWORD = "trainer-pw-8Hj2Kd"               # inside a URL
PIN = "#7~"                                      # short, and of characters no ciphertext or id holds
GRID_SECRET = 0.0713


@pytest.fixture
def emu(tmp_path: Path, pulumi_engine: Path) -> Iterator[Any]:
    from modelarts_emulator.testing import running_emulator

    with running_emulator(tmp_path / "emulator", **FAST_EMULATOR) as e:
        yield e


def _env_of(live: dict[str, Any]) -> dict[str, str]:
    env = live["algorithm"].get("environments") or {}
    return {k: v for m in env for k, v in m.items()} if isinstance(env, list) else dict(env)


def _backend_text(st: Any) -> str:
    root = file_backend_dir(st.env["PULUMI_BACKEND_URL"])
    files = [p for p in root.rglob("*") if p.is_file()]
    assert any(p.suffix == ".json" for p in files), "no checkpoint found"
    assert any("history" in str(p) for p in files) and any(".bak" in p.name for p in files), files
    return "".join(p.read_text(errors="replace") for p in files)


def _logs(st: Any, key: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "modelarts_provider", "logs", "--stack", st.name, key,
                           "--cwd", str(st.workdir)], env=env, cwd=REPO_ROOT, text=True, capture_output=True,
                          timeout=120)


def test_config_secrets_never_appear_in_plaintext(tmp_path: Path, emu: Any) -> None:
    jobs = {"a": job(waitFor="completed",  # a derived name: an explicit one in a secret would be refused
                     environments={"OPENAI": OPENAI, "DATABASE_URL": f"postgres://trainer:{DB_PASSWORD}@db:5432/x",
                                   "PLAIN": "visible"},
                     annotations={"emulator/outcome": "fail", "emulator/run-seconds": "1",
                                  "emulator/exit-code": "3"})}
    st = job_stack(tmp_path, emu, jobs={}, sweeps={"s": sweep({"lr": [0.5]}, environments={"MODE": "x"})})
    # 1. a whole section as one secret (a map); 2. a 3-character secret by path
    st.run("config", "rm", f"{PROJECT}:jobs")
    st.run("config", "set", "--secret", f"{PROJECT}:jobs", json.dumps(jobs))
    st.run("config", "set", "--secret", "--path", f"{PROJECT}:sweeps.s.environments.PIN", PIN)

    up = st.up(check=False)
    out = output_of(up)
    assert up.returncode != 0 and "exit code 3" in out, out  # job a failed, as arranged
    # 5. the failure report's log tail is there, masked (the plaintext checks are below)
    assert "env OPENAI=******" in out and "last 20 lines of worker-0" in out, out
    # 6. masking hides secrets and nothing else: the secret section's plain values (a learning rate, counts,
    # exit codes) and the failed job's name stay readable
    assert "training with parameters: lr=0.01" in out and "waiting for 2 training jobs" in out, out
    assert "exited with code 3." in out and "- a: training job a-" in out, out

    live = {owner_key(j): j for j in emu.jobs()}
    got = _env_of(live["a"])
    assert got["OPENAI"] == OPENAI and DB_PASSWORD in got["DATABASE_URL"] and got["PLAIN"] == "visible"
    point = next(j for key, j in live.items() if key != "a")
    assert _env_of(point)["PIN"] == PIN  # the jobs did receive their secrets

    # 4. the logs command: config secrets masked; the stack's secrets read with its own secrets provider
    logs = _logs(st, "a", dict(st.env))
    assert logs.returncode == 0 and "env OPENAI=******" in logs.stdout, logs.stdout + logs.stderr
    no_passphrase = {k: v for k, v in st.env.items() if k != "PULUMI_CONFIG_PASSPHRASE"}
    blind = _logs(st, "a", {**no_passphrase, "HW_ACCESS_KEY": emu.access_key, "HW_SECRET_KEY": emu.secret_key,
                            "HW_PROJECT_ID": emu.project_id})
    notes = [line for line in blind.stderr.splitlines() if "cannot read the stack's secrets" in line]
    assert len(notes) == 1 and "masking secret-looking values by shape only" in notes[0], blind.stderr

    everything = (_backend_text(st) + json.dumps(st.export()) + json.dumps(st.outputs())
                  + "".join(p.stdout + p.stderr for p in st.history) + logs.stdout + logs.stderr)
    for value in (OPENAI, DB_PASSWORD, PIN):
        assert value not in everything, f"{value!r} in plaintext"
    assert live["a"]["metadata"]["name"] in out  # names stay readable

    # 3. a secret grid value would become part of names, URNs, export keys and OBS keys: refused at preview
    st.run("config", "set", "--secret", "--path", f"{PROJECT}:sweeps.s.grid.lr[0]", str(GRID_SECRET))
    # ... and so would a secret provider option, which the state records as it is (a short value too)
    st.run("config", "set", "--secret", "--path", f"{PROJECT}:sweeps.s.waitTimeoutSeconds", "600")
    before = emu.counters()["total"]
    preview = st.preview(check=False)
    text = output_of(preview)
    assert preview.returncode != 0
    assert (f"{PROJECT}:sweeps.s.grid is secret, but a grid value becomes part of job keys, resource names, URNs "
            "and OBS object keys") in text, text
    assert "set it without --secret" in text and str(GRID_SECRET) not in text
    assert (f"{PROJECT}:sweeps.s.waitTimeoutSeconds is secret, but it is a provider option (how to wait, replace and "
            "keep runs), never sent, which the state records in plaintext; set it without --secret") in text, text
    assert emu.counters()["total"] == before  # refused before any API call

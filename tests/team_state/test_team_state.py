"""Team state on OBS, under the real engine: the stack's state in a bucket of the local OBS (standing in for
Huawei Cloud / OTC OBS), the ModelArts emulator beside it (conftest.py has the backend URL and variables).

- up, refresh and destroy keep the state in the bucket (nothing on disk), each update a checkpoint there;
- two `pulumi up` at once on one stack: at most one proceeds, a refused one fails with Pulumi's lock
  message, the state stays intact, no job is duplicated, and a retry succeeds;
- a killed `pulumi up` leaves its lock in the bucket; `pulumi cancel --yes` clears it;
- no object of the bucket holds the secret key, a secret config value or the passphrase in plaintext;
- a teammate's checkout (another project directory, same Pulumi.yaml, program and stack file, same
  backend URL and passphrase) sees the same jobs and changes nothing.

What users see when the stack is locked (Pulumi v3.259.0, diy backend; the URL is the backend URL as
Pulumi normalises it: endpoint escaped, request_checksum_calculation added):

    error: the stack is currently locked by 1 lock(s). Either wait for the other process(es) to end or delete the lock file with `pulumi cancel`.
      s3://team-state/.pulumi/locks/organization/modelarts-jobs/test/<uuid>.json?endpoint=...: created by <user>@<host> (pid <pid>) at <time>
"""

from __future__ import annotations

import base64
import binascii
import getpass
import json
import re
import shutil
import socket
import time
from pathlib import Path
from typing import Any

import pytest

from modelarts_provider.stack.sweep import point_names
from testkit.harness import Stack, new_stack
from testkit.faults import (ENGINE, TRACEBACK_RE, assert_converged, job, job_stack, label_of, name_of, output_of,
                              killed_up, provider_config, sweep, up_advancing, up_in_background, wait_until)
from tests.team_state.conftest import STATE_BUCKET, TEAM_PASSPHRASE, backend_env, point_new_stacks_at

ALGORITHM_ID = "8d1b2f4c-5a6e-4f70-9b81-c2d3e4f5a6b7"  # in the emulator's catalog
PROJECT, STACK = "modelarts-jobs", "test"
STATE_KEY = f".pulumi/stacks/{PROJECT}/{STACK}.json"
LOCK_DIR = f".pulumi/locks/organization/{PROJECT}/{STACK}/"
LOCK_MESSAGE = ("error: the stack is currently locked by 1 lock(s). Either wait for the other process(es) to end "
                "or delete the lock file with `pulumi cancel`.")
LOCK_LINE = re.compile(rf"^  s3://{STATE_BUCKET}/{re.escape(LOCK_DIR)}[0-9a-f-]{{36}}\.json\?\S+: "
                       r"created by (?P<user>\S+)@(?P<host>\S+) \(pid (?P<pid>\d+)\) at \S+$", re.M)
GRID = {"lr": [0.1, 0.2]}
SLOW = [{"operation": "any", "kind": "latency", "latency_ms": 300, "times": 100000}]
HF_TOKEN = "hf_team-state-secret-9f3Kq2"
# A clock step that ends every job of FAST_EMULATOR's (0.2 s phases, 600 s runs) submitted before it.
FINISH = 601


def alg_job(**over: Any) -> dict[str, Any]:
    """A job from algorithm management (no code in OBS to check)."""
    return job(codeDir=None, bootFile=None, engine=None, algorithmId=ALGORITHM_ID, **over)


def alg_sweep(**over: Any) -> dict[str, Any]:
    return sweep(GRID, codeDir=None, bootFile=None, engine=None, algorithmId=ALGORITHM_ID, **over)


def sweep_names(key: str = "s") -> set[str]:
    return {n for n, _ in point_names(key, GRID)}


# --- the bucket ----------------------------------------------------------------------------------


def objects(s3: Any, prefix: str = "") -> dict[str, bytes]:
    """Every object of the state bucket (under `prefix`): key -> bytes."""
    out: dict[str, bytes] = {}
    for page in s3.get_paginator("list_objects").paginate(Bucket=STATE_BUCKET, Prefix=prefix):
        for o in page.get("Contents", []):
            out[o["Key"]] = s3.get_object(Bucket=STATE_BUCKET, Key=o["Key"])["Body"].read()
    return out


def locks(s3: Any) -> list[str]:
    return sorted(objects(s3, LOCK_DIR))


def stored_state(s3: Any) -> dict[str, Any]:
    """The stack's current checkpoint, as stored in OBS."""
    return json.loads(s3.get_object(Bucket=STATE_BUCKET, Key=STATE_KEY)["Body"].read())


def stored_urns(s3: Any) -> set[str]:
    return {r["urn"] for r in (stored_state(s3)["checkpoint"].get("latest") or {}).get("resources") or []}


def checkpoints(s3: Any) -> list[str]:
    return sorted(k for k in objects(s3, f".pulumi/history/{PROJECT}/{STACK}/") if k.endswith(".checkpoint.json"))


def assert_nothing_on_disk(st: Stack) -> None:
    """The harness's file backend directory stays empty: the state lives in OBS only."""
    backend = st.workdir.parent / "backend"
    assert not any(backend.rglob("*")), sorted(str(p) for p in backend.rglob("*"))


def _texts(data: bytes) -> list[str]:
    """An object's text, plus every base64 string inside it decoded (the dynamic providers' serialized
    code and any other encoded blob), so an encoded secret is found too."""
    text = data.decode("utf-8", errors="replace")
    out = [text]
    try:
        doc = json.loads(text)
    except ValueError:
        return out
    stack: list[Any] = [doc]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
        elif isinstance(v, str) and len(v) >= 24 and re.fullmatch(r"[A-Za-z0-9+/=\s]+", v):
            try:
                out.append(base64.b64decode(v, validate=False).decode("latin-1"))
            except (binascii.Error, ValueError):
                pass
    return out


def scan_bucket(s3: Any, values: dict[str, str]) -> dict[str, list[str]]:
    """{label: [keys of objects holding that value]} over every object of the state bucket."""
    found: dict[str, list[str]] = {label: [] for label in values}
    for key, data in objects(s3).items():
        texts = _texts(data)
        for label, value in values.items():
            if any(value in t for t in texts):
                found[label].append(key)
    return found


def assert_lock_refusal(proc_output: str, holder_pid: int | None = None) -> re.Match[str]:
    assert LOCK_MESSAGE in proc_output, proc_output
    m = LOCK_LINE.search(proc_output)
    assert m, f"no lock line naming the lock object in:\n{proc_output}"
    assert m["user"] == getpass.getuser() and m["host"] == socket.gethostname(), m.group(0)
    if holder_pid is not None:
        assert int(m["pid"]) == holder_pid, m.group(0)
    assert not TRACEBACK_RE.search(proc_output), proc_output
    return m


# --- tests ---------------------------------------------------------------------------------------


def test_up_refresh_destroy_keep_the_state_in_obs(tmp_path: Path, emu: Any, s3: Any,
                                                  team_backend: dict[str, str]) -> None:
    st = job_stack(tmp_path, emu, jobs={"a": alg_job(name="team-a"), "b": alg_job()}, sweeps={"s": alg_sweep()})
    assert st.env["PULUMI_BACKEND_URL"] == team_backend["PULUMI_BACKEND_URL"]
    assert objects(s3, ".pulumi/meta.yaml"), "stack init wrote no backend metadata in the bucket"

    st.up()
    jobs = assert_converged(emu, st, 2 + len(GRID["lr"]))
    assert "team-a" in {name_of(j) for j in jobs}
    exported = {r["urn"] for r in st.resources()}
    assert stored_urns(s3) == exported and len(exported) > 4  # the export is what OBS holds
    assert len(checkpoints(s3)) == 1 and locks(s3) == []
    assert_nothing_on_disk(st)

    st.refresh()
    assert stored_urns(s3) == exported and len(checkpoints(s3)) == 2 and locks(s3) == []
    st.preview("--expect-no-changes")
    assert_converged(emu, st, 2 + len(GRID["lr"]))

    st.destroy()
    assert emu.jobs() == []
    assert stored_urns(s3) == set() and len(checkpoints(s3)) == 3 and locks(s3) == []
    assert_nothing_on_disk(st)
    listed = st.run("stack", "ls", "--json", stack_flag=False).stdout
    assert [s["name"] for s in json.loads(listed)] == [STACK]


def test_state_in_obs_holds_no_plaintext_credential(tmp_path: Path, emu: Any, obs: Any, s3: Any,
                                                    team_backend: dict[str, str]) -> None:
    plain, secrets = provider_config(emu)
    plain["modelarts:obsEndpoint"] = obs.url
    src = tmp_path / "project" / "src"
    src.mkdir(parents=True)
    (src / "train.py").write_text("print('training')\n")
    code_job = {"pool": "gpu", "code": {"localDir": "src", "bootFile": "train.py"}, "engine": dict(ENGINE),
                "pollIntervalSeconds": 0.2, "waitFor": "running", "name": "team-code-job"}
    st = job_stack(tmp_path, emu, jobs={"a": alg_job(name="team-secret-a", environments={"PLAIN": "visible-42"}),
                                        "c": code_job},
                   obs={"main": {"bucket": "team-code", "create": True, "forceDestroy": True}},
                   plain=plain, secrets=secrets)
    st.run("config", "set", "--secret", "--path", f"{PROJECT}:jobs.a.environments.HF_TOKEN", HF_TOKEN)
    st.up()
    st.refresh()
    live = {name_of(j): j for j in emu.jobs()}
    env = live["team-secret-a"]["algorithm"]["environments"]
    env = {k: v for m in env for k, v in m.items()} if isinstance(env, list) else env
    assert env["HF_TOKEN"] == HF_TOKEN  # the job got it
    assert set(live) == {"team-secret-a", "team-code-job"}

    stored = json.dumps(stored_state(s3))
    assert '"ciphertext"' in stored  # the secret is in the state, encrypted
    found = scan_bucket(s3, {
        "secret key (ModelArts and OBS SK, also AWS_SECRET_ACCESS_KEY)": emu.secret_key,
        "backend's AWS_SECRET_ACCESS_KEY": team_backend["AWS_SECRET_ACCESS_KEY"],
        "passphrase": TEAM_PASSPHRASE,
        "secret job environment value": HF_TOKEN,
        # controls: the scan does read the state (a plain value and the job name are found)
        "control: plain environment value": "visible-42",
        "control: job name": "team-secret-a",
    })
    leaks = {label: keys for label, keys in found.items() if keys and not label.startswith("control")}
    assert not leaks, leaks
    assert STATE_KEY in found["control: plain environment value"] and STATE_KEY in found["control: job name"]
    n_objects = len(objects(s3))
    assert n_objects >= 6, n_objects  # meta, stack, its .bak, checkpoints and history of two updates

    st.destroy()
    assert emu.jobs() == []
    found = scan_bucket(s3, {"secret key": emu.secret_key, "passphrase": TEAM_PASSPHRASE, "token": HF_TOKEN})
    assert not any(found.values()), found


def test_two_ups_at_once_one_proceeds_at_most_and_a_retry_succeeds(tmp_path: Path, emu: Any, s3: Any,
                                                                     team_backend: dict[str, str]) -> None:
    # Duplicate names accepted, as the real service may: a second run of the same declaration would show as
    # a second job, not as a refusal. "c" has a derived name: a duplicate run would make a new random one.
    emu.settings(allow_duplicate_names=True)
    first = {"a": alg_job(name="race-a"), "c": alg_job()}
    st = job_stack(tmp_path, emu, jobs=first)
    st.up()
    initial = {r["urn"] for r in st.resources()}
    initial_ids = {j["metadata"]["id"] for j in assert_converged(emu, st, 2)}

    from testkit.faults import configure_jobs
    # race-b runs until the clock moves: a run that proceeds holds the lock until the other one has
    # ended, however slowly the second CLI starts.
    configure_jobs(st, jobs={**first, "b": alg_job(name="race-b", waitFor="completed")},
                   sweeps={"s": alg_sweep()})
    ups = [up_in_background(st, log=tmp_path / f"up{i}.log") for i in (1, 2)]  # started at once
    wait_until(lambda: any(bg.proc.poll() is not None for bg in ups), 300, 0.1, what="one of the ups to end")
    _let_jobs_finish_until_ended(emu, ups)
    codes = [bg.wait(300) for bg in ups]
    outputs = [bg.output for bg in ups]
    proceeded = [i for i, rc in enumerate(codes) if rc == 0]
    assert len(proceeded) <= 1, f"both ups proceeded:\n{outputs[0]}\n----\n{outputs[1]}"
    for i, rc in enumerate(codes):
        if rc != 0:
            # Refused before running the program: Pulumi's lock message naming the other run's lock.
            # (Pulumi lists the locks, writes its own, lists again, then reads the others' to name them;
            # a lock deleted between that list and read would fail the read with the lock object's key and
            # code=NotFound instead: a window of milliseconds, never seen in 40 simultaneous pairs.)
            if LOCK_MESSAGE not in outputs[i] and "code=NotFound" in outputs[i] and LOCK_DIR in outputs[i]:
                continue
            assert_lock_refusal(outputs[i], holder_pid=ups[1 - i].proc.pid)
            assert "race-b" not in outputs[i]

    # The state is intact and no job was duplicated: the winner's update in full, or (both backed off,
    # each seeing the other's lock) the previous state untouched.
    urns = {r["urn"] for r in st.resources()}
    expected = {"race-a", "race-b"} | sweep_names()
    jobs = emu.jobs()
    names = [name_of(j) for j in jobs]
    assert len(names) == len(set(names)), names
    derived = [n for n in names if n.startswith("c-")]
    assert len(derived) == 1, names
    if proceeded:
        assert initial < urns
        assert {label_of(j, expected | set(derived)) for j in jobs} == expected | set(derived)
    else:
        assert urns == initial and {j["metadata"]["id"] for j in jobs} == initial_ids
    assert locks(s3) == []

    # (both backed off: the retry submits race-b, let go by the clock once the wait started)
    retry = up_advancing(st, emu, FINISH, log=tmp_path / "retry.log")
    assert_converged(emu, st, expected | set(derived))
    if proceeded:
        assert "created" not in retry.stdout.split("Resources:")[-1], retry.stdout
    st.preview("--expect-no-changes")
    assert locks(s3) == []


def test_up_while_another_holds_the_lock_is_refused_and_changes_nothing(tmp_path: Path, emu: Any, s3: Any,
                                                                      team_backend: dict[str, str]) -> None:
    # held-slow runs until the clock moves: the holder holds the lock for as long as the test needs.
    st = job_stack(tmp_path, emu, jobs={"slow": alg_job(name="held-slow", waitFor="completed"),
                                        "b": alg_job(name="held-b")})
    holder = up_in_background(st, log=tmp_path / "holder.log")
    try:
        wait_until(lambda: locks(s3), 120, 0.1, what="the holder's lock object in OBS")
        wait_until(lambda: emu.counters()["create"] >= 2, 60, what="the holder's creates")
        creates = emu.counters()["create"]
        refused = st.up(check=False)
        assert refused.returncode != 0
        m = assert_lock_refusal(output_of(refused), holder_pid=holder.proc.pid)
        assert f"s3://{STATE_BUCKET}/{locks(s3)[0]}?" in m.group(0)  # the lock object the message names
        assert holder.proc.poll() is None, "the refused run disturbed the holder"
        assert emu.counters()["create"] == creates  # the refused run submitted nothing
    finally:
        _let_jobs_finish_until_ended(emu, [holder])
        assert holder.wait(300) == 0, holder.output
    assert locks(s3) == []
    assert_converged(emu, st, {"held-slow", "held-b"})
    st.preview("--expect-no-changes")
    again = st.up()  # the retry succeeds, changing nothing
    assert re.search(r"^\s+\d+ unchanged$", again.stdout, re.M) and "created" not in again.stdout, again.stdout


def test_killed_up_leaves_its_lock_in_obs_and_cancel_clears_it(tmp_path: Path, emu: Any, s3: Any,
                                                              team_backend: dict[str, str]) -> None:
    st = job_stack(tmp_path, emu, jobs={f"k{i}": alg_job(name=f"killed-{i}") for i in range(3)},
                   sweeps={"s": alg_sweep()})
    expected = {f"killed-{i}" for i in range(3)} | sweep_names()
    with killed_up(st, emu, tmp_path / "killed.log", SLOW, first_create_within=120,
                   provider_exit_within=30) as bg:
        (stale,) = locks(s3)  # the dead run's lock stays in the bucket
        refused = st.up(check=False)
        assert refused.returncode != 0
        assert_lock_refusal(output_of(refused), holder_pid=bg.proc.pid)
        assert locks(s3) == [stale]

        cancel = st.run("cancel", "--yes")
        assert f"The currently running update for '{STACK}' has been canceled!" in cancel.stdout, output_of(cancel)
        assert locks(s3) == []
        st.up()
        assert_converged(emu, st, expected)
        st.preview("--expect-no-changes")


def _let_jobs_finish_until_ended(emu: Any, runs: list[Any], timeout: float = 300) -> None:
    """Move the emulator's clock past every job's end until `runs` have ended (a job submitted after one
    step is ended by the next)."""
    deadline = time.monotonic() + timeout
    while any(bg.proc.poll() is None for bg in runs) and time.monotonic() < deadline:
        emu.advance(FINISH)
        time.sleep(0.5)


def code_objects(s3: Any) -> dict[str, str]:
    """{key: ETag} of the code bucket."""
    return {o["Key"]: o["ETag"] for page in s3.get_paginator("list_objects").paginate(Bucket="team-code")
            for o in page.get("Contents", [])}


def _checkout(src: Stack, dest: Path, env: dict[str, str]) -> Stack:
    """A teammate's clone: the committed files (Pulumi.yaml, program, stack file, code), another directory."""
    dest.mkdir(parents=True)
    for name in ("Pulumi.yaml", "__main__.py", f"Pulumi.{src.name}.yaml"):
        shutil.copy(src.workdir / name, dest / name)
    if (src.workdir / "src").is_dir():
        shutil.copytree(src.workdir / "src", dest / "src")
    return Stack(workdir=dest, name=src.name, env=env)


def test_teammate_checkout_sees_the_same_jobs_and_changes_nothing(tmp_path: Path, emu: Any, obs: Any, s3: Any,
                                                                 team_backend: dict[str, str]) -> None:
    plain, secrets = provider_config(emu)
    plain["modelarts:obsEndpoint"] = obs.url
    src = tmp_path / "alice" / "project" / "src"
    src.mkdir(parents=True)
    (src / "train.py").write_text("print('training')\n")
    code_job = {"pool": "gpu", "code": {"localDir": "src", "bootFile": "train.py"}, "engine": dict(ENGINE),
                "pollIntervalSeconds": 0.2, "waitFor": "running"}
    alice = job_stack(tmp_path / "alice", emu, jobs={"a": alg_job(name="mate-a"), "d": alg_job(), "code": code_job},
                      sweeps={"s": alg_sweep()},
                      obs={"main": {"bucket": "team-code", "create": True, "forceDestroy": True}},
                      plain=plain, secrets=secrets)
    alice.up()
    jobs_before = {j["metadata"]["id"]: name_of(j) for j in assert_converged(emu, alice, 3 + len(GRID["lr"]))}
    urns = {r["urn"] for r in alice.resources()}
    out_alice = alice.outputs()
    emu_before, code_before = emu.counters(), code_objects(s3)
    assert code_before, "the code job uploaded nothing"

    # Bob: his own clone elsewhere, the same backend URL, OBS AK/SK and passphrase (his own process env).
    bob = _checkout(alice, tmp_path / "bob" / "clone", env=dict(alice.env))
    listed = json.loads(bob.run("stack", "ls", "--json", stack_flag=False).stdout)
    assert [s["name"] for s in listed] == [STACK]
    assert bob.outputs() == out_alice  # the same jobs, read from OBS
    bob.preview("--expect-no-changes")
    up = bob.up()
    summary = up.stdout.split("Resources:")[-1]
    assert re.search(r"^\s+\d+ unchanged$", summary, re.M), up.stdout
    assert not re.search(r"created|updated|deleted|replaced", summary), up.stdout
    emu_after = emu.counters()
    assert emu_after["create"] == emu_before["create"] and emu_after.get("delete", 0) == emu_before.get("delete", 0)
    assert code_objects(s3) == code_before  # nothing re-uploaded from Bob's copy of the code
    assert {j["metadata"]["id"]: name_of(j) for j in emu.jobs()} == jobs_before
    assert {r["urn"] for r in bob.resources()} == urns
    alice.preview("--expect-no-changes")  # and Alice sees Bob's update as no change either

    # A teammate with the wrong passphrase is stopped before anything runs.
    wrong = dict(bob.env, PULUMI_CONFIG_PASSPHRASE="not-the-team-passphrase")
    mallory = Stack(workdir=bob.workdir, name=STACK, env=wrong)
    refused = mallory.preview(check=False)
    assert refused.returncode != 0 and "incorrect passphrase" in output_of(refused), output_of(refused)
    assert emu.counters()["create"] == emu_before["create"]


def test_temporary_credentials_reach_the_backend_through_aws_session_token(tmp_path: Path, pulumi_engine: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Temporary AK/SK (e.g. from an agency) come with a security token: Pulumi sends AWS_SESSION_TOKEN."""
    from obs_emulator.testing import running_obs

    token = "temporary-security-token-5tq1"
    with running_obs(tmp_path / "obs", security_token=token) as sts_obs:
        sts_obs.client().create_bucket(Bucket=STATE_BUCKET,
                                       CreateBucketConfiguration={"LocationConstraint": sts_obs.region})
        point_new_stacks_at(monkeypatch, {**backend_env(sts_obs), "AWS_SESSION_TOKEN": token})
        st = new_stack(tmp_path / "a", "import pulumi\npulumi.export('x', 1)\n", stack=STACK)
        st.up()
        assert st.outputs() == {"x": 1}
        keys = {o["Key"] for o in sts_obs.client().list_objects(Bucket=STATE_BUCKET)["Contents"]}
        assert ".pulumi/stacks/test-project/test.json" in keys
        # The token is sent: an expired one (here: a wrong one) is refused by OBS.
        expired = Stack(workdir=st.workdir, name=STACK, env={**st.env, "AWS_SESSION_TOKEN": "expired-token"})
        refused = expired.run("stack", "ls", check=False, stack_flag=False)
        assert refused.returncode != 0 and "InvalidToken" in output_of(refused), output_of(refused)

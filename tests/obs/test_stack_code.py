"""Code from a local directory through OBS, declared in stack config (issue 10), under the real engine,
with the local OBS and the ModelArts emulator told where it is (a missing boot file fails a job)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from modelarts_provider.stack.sweep import point_names
from testkit.harness import REPO_ROOT
from testkit.faults import ENGINE, job_labelled, job_stack, output_of, phase_of, provider_config

TRAIN = "import sys\nprint('training', sys.argv[1:])\n"


@pytest.fixture
def emu(tmp_path: Path, obs: Any, pulumi_engine: Path) -> Any:
    from modelarts_emulator.testing import running_emulator

    # Runs far longer than a test (however loaded the machine): a job is Running unless it failed.
    with running_emulator(tmp_path / "emulator", phase_seconds=0.2, run_seconds=600, obs_endpoint=obs.url) as e:
        yield e


def code(local_dir: Path, **over: Any) -> dict[str, Any]:
    entry = {"pool": "gpu", "code": {"localDir": str(local_dir), "bootFile": "train.py"}, "engine": dict(ENGINE),
             "pollIntervalSeconds": 0.2, "waitFor": "running"}
    entry.update(over)
    return entry


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def stack(tmp_path: Path, emu: Any, obs: Any, jobs: dict[str, Any], sweeps: dict[str, Any] | None = None,
          **loc: Any) -> Any:
    plain, secrets = provider_config(emu)
    plain["modelarts:obsEndpoint"] = obs.url
    location = {"bucket": "stack-code", "create": True, "forceDestroy": True, **loc}
    return job_stack(tmp_path, emu, jobs=jobs, sweeps=sweeps, obs={"main": location}, plain=plain, secrets=secrets)


def code_prefixes(s3: Any, bucket: str = "stack-code") -> set[str]:
    """{<key>/<owner token>/<hash>} of every uploaded code folder."""
    out = set()
    for page in s3.get_paginator("list_objects").paginate(Bucket=bucket, Prefix="code/"):
        for o in page.get("Contents", []):
            parts = o["Key"].split("/")
            if len(parts) > 4:
                out.add(f"{parts[1]}/{parts[2]}/{parts[3]}")
    return out


def live_code_dir(emu: Any, name: str) -> str:
    return job_labelled(emu, name)["algorithm"]["code_dir"]


def test_upload_run_noop_change_and_destroy(tmp_path: Path, emu: Any, obs: Any, s3: Any) -> None:
    a = write(tmp_path / "src-a", {"train.py": TRAIN, "lib/util.py": "X = 1\n", "__pycache__/junk.pyc": "x"})
    b = write(tmp_path / "src-b", {"train.py": TRAIN})
    grid = {"lr": [0.1, 0.2, 0.3]}
    sweep = {**code(b), "grid": grid}
    st = stack(tmp_path, emu, obs, jobs={"a": code(a, name="code-a")}, sweeps={"s": sweep})
    st.up()
    prefixes = code_prefixes(s3)
    assert {p.split("/")[0] for p in prefixes} == {"a", "s"} and len(prefixes) == 2  # a sweep uploads once
    (a_prefix,) = [p for p in prefixes if p.startswith("a/")]
    keys = {o["Key"] for o in s3.list_objects(Bucket="stack-code", Prefix=f"code/{a_prefix}/")["Contents"]}
    assert keys == {f"code/{a_prefix}/train.py", f"code/{a_prefix}/lib/util.py"}  # __pycache__ excluded
    assert live_code_dir(emu, "code-a") == f"/stack-code/code/{a_prefix}/"
    assert {phase_of(j) for j in emu.jobs()} <= {"Running"}, "a job failed: its boot file was not in OBS"
    sweep_dirs = {live_code_dir(emu, n) for n, _ in point_names("s", grid)}
    assert len(sweep_dirs) == 1

    # Unchanged content: no diff, no request to OBS or ModelArts at preview or up.
    obs_before, ma_before = obs.counters()["total"], emu.counters()["total"]
    st.preview("--expect-no-changes")
    st.up()
    assert obs.counters()["total"] == obs_before and emu.counters()["total"] == ma_before

    # Changed content: a new prefix, exactly that job re-runs, the old prefix is removed after it.
    creates = emu.counters()["create"]
    (a / "train.py").write_text(TRAIN + "# v2\n")
    up = st.up()
    assert emu.counters()["create"] == creates + 1, output_of(up)
    new = code_prefixes(s3)
    assert a_prefix not in new and len([p for p in new if p.startswith("a/")]) == 1
    assert live_code_dir(emu, "code-a") != f"/stack-code/code/{a_prefix}/"

    # Destroy: the jobs, the uploads, then the bucket it created.
    st.destroy()
    assert "stack-code" not in [b["Name"] for b in s3.list_buckets()["Buckets"]]
    assert emu.jobs() == []


def test_existing_bucket_is_kept_and_a_missing_one_fails_before_any_job(tmp_path: Path, emu: Any, obs: Any,
                                                                      s3: Any) -> None:
    a = write(tmp_path / "src", {"train.py": TRAIN})
    st = stack(tmp_path, emu, obs, jobs={"a": code(a, name="kept-a")}, create=False, forceDestroy=False)
    up = st.up(check=False)
    assert up.returncode != 0 and "stack-code" in output_of(up), output_of(up)
    assert emu.counters()["create"] == 0, "a job was created although its bucket is missing"
    s3.create_bucket(Bucket="stack-code", CreateBucketConfiguration={"LocationConstraint": s3.meta.region_name})
    s3.put_object(Bucket="stack-code", Key="theirs.txt", Body=b"not ours")
    st.up()
    st.destroy()
    assert [o["Key"] for o in s3.list_objects(Bucket="stack-code")["Contents"]] == ["theirs.txt"]


BAD_CODE = [
    ("missing-directory", "nope", "code.localDir: '{d}' does not exist (expected a directory with the training code, "
                                  "relative to the Pulumi project or absolute)"),
    ("empty-directory", "empty", "code.localDir: '{d}' holds no files to upload (after excludes); expected the "
                                 "training code with its boot file"),
    ("boot-file-not-in-it", "other", "code.bootFile: 'train.py' is not in '{d}' (expected a .py file relative to "
                                     "code.localDir, e.g. train.py; excluded files do not count)"),
]


@pytest.mark.parametrize("case,sub,message", BAD_CODE, ids=[c[0] for c in BAD_CODE])
def test_bad_local_code_is_refused_at_preview(tmp_path: Path, case: str, sub: str, message: str) -> None:
    """The stack program refuses bad local code before any resource (so before any call to OBS or ModelArts),
    checked in-process under Pulumi's mocks with no connection allowed (tests/bad_input/in_process.py; its
    engine-path test shows a real preview prints such a program refusal as is)."""
    from tests.bad_input.conftest import OFFLINE
    from tests.bad_input.in_process import run_program
    from testkit.faults import POOLS, PROJECT

    (tmp_path / "empty").mkdir()
    write(tmp_path / "other", {"main.py": TRAIN})
    (tmp_path / "__main__.py").write_bytes((REPO_ROOT / "__main__.py").read_bytes())
    config = {**OFFLINE, "modelarts:obsEndpoint": "http://127.0.0.1:9",
              f"{PROJECT}:obs": {"main": {"bucket": "stack-code", "create": True, "forceDestroy": True}},
              f"{PROJECT}:pools": POOLS, f"{PROJECT}:jobs": {"a": code(tmp_path / sub, name="bad-code")}}
    refusal, mocks = run_program(tmp_path / "__main__.py", config, {"modelarts:secretKey"}, cwd=tmp_path,
                                 project=PROJECT)
    assert refusal == f"invalid stack config: {PROJECT}:jobs.a.{message.format(d=tmp_path / sub)}"
    assert mocks.types == [], "a resource was declared before the refusal"


def test_upload_faults_converge_with_no_partial_prefix_referenced(tmp_path: Path, emu: Any, obs: Any,
                                                                  s3: Any) -> None:
    files = {f"pkg/m{i}.py": f"V = {i}\n" for i in range(12)}
    a = write(tmp_path / "src", {"train.py": TRAIN, **files})
    st = stack(tmp_path, emu, obs, jobs={"a": code(a, name="fault-a")})
    obs.set_faults([{"operation": "put_object", "kind": "status", "status": 503, "after": 4, "times": 40},
                    {"operation": "put_object", "kind": "reset", "after": 2, "times": 2}])
    first = st.up(check=False)
    obs.clear_faults()
    if first.returncode != 0:
        assert emu.jobs() == [], "a job references a partially uploaded prefix"
    st.up()
    (prefix,) = code_prefixes(s3)
    keys = {o["Key"] for o in s3.list_objects(Bucket="stack-code", Prefix=f"code/{prefix}/")["Contents"]}
    assert keys == {f"code/{prefix}/{k}" for k in ["train.py", *files]}
    assert [phase_of(j) for j in emu.jobs()] == ["Running"]


def test_no_secret_in_state_or_output(tmp_path: Path, emu: Any, obs: Any) -> None:
    a = write(tmp_path / "src", {"train.py": TRAIN})
    st = stack(tmp_path, emu, obs, jobs={"a": code(a, name="secret-free")})
    st.up()
    blob = json.dumps(st.export()) + json.dumps(st.outputs()) + "".join(p.stdout + p.stderr for p in st.history)
    assert emu.secret_key not in blob


def test_two_stacks_uploading_the_same_code_never_share_or_delete_each_others_objects(
        tmp_path: Path, emu: Any, obs: Any, s3: Any) -> None:
    # Two teammates, one bucket, the same job key and code: each upload lives under its own owner token,
    # so Alice's destroy removes exactly her files and Bob's job still finds its boot file.
    s3.create_bucket(Bucket="shared-code", CreateBucketConfiguration={"LocationConstraint": "cn-north-4"})
    src = write(tmp_path / "src", {"train.py": TRAIN})
    alice = stack(tmp_path / "alice", emu, obs, jobs={"a": code(src, name="alice-a")},
                  bucket="shared-code", create=False, forceDestroy=False)
    bob = stack(tmp_path / "bob", emu, obs, jobs={"a": code(src, name="bob-a")},
                bucket="shared-code", create=False, forceDestroy=False)
    alice.up()
    bob.up()
    prefixes = code_prefixes(s3, "shared-code")
    assert len(prefixes) == 2 and {p.split("/")[0] for p in prefixes} == {"a"}, prefixes
    bobs = live_code_dir(emu, "bob-a")
    alice.destroy()
    left = {o["Key"] for o in s3.list_objects(Bucket="shared-code")["Contents"]}
    assert f"{bobs.removeprefix('/shared-code/')}train.py" in left, left
    assert len(code_prefixes(s3, "shared-code")) == 1
    assert [phase_of(j) for j in emu.jobs()] == ["Running"]  # Bob's, with its boot file in place

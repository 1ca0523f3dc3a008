"""CodeUpload and Bucket with the real Pulumi engine against the local OBS over HTTP.

Each test writes a throwaway program that declares the resources directly (the stack config
wiring is the lead's), configured with modelarts:region/accessKey/secretKey/obsEndpoint.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from testkit.harness import Stack, new_stack
from tests.obs.conftest import code_dir, keys

PROGRAM = '''
import pulumi
from modelarts_provider.bucket import Bucket
from modelarts_provider.code_upload import CodeUpload

cfg = pulumi.Config()
bucket = Bucket("bucket", {"bucket": cfg.require("bucket"), "create": cfg.require_bool("create"),
                           "force_destroy": cfg.get_bool("forceDestroy") or False})
upload = CodeUpload("mnist", {"local_dir": cfg.require("localDir"), "boot_file": cfg.get("bootFile") or "train.py",
                              "bucket": bucket.bucket, "prefix": "code",
                              "max_total_bytes": cfg.get_int("maxBytes") or 200 * 1024 * 1024})
pulumi.export("code_dir", upload.code_dir)
pulumi.export("boot_file", upload.boot_file)
pulumi.export("bucket_url", bucket.url)
'''
TRAIN = "print('training')\n"
# code/<job key>/<owner token>/<content hash>/: the path after code/mnist/ is "<token>/<hash>"
CODE_DIR_RE = re.compile(r"^obs://code-bucket/code/mnist/([0-9a-f]{16}/[0-9a-f]{16})/$")


def make_stack(tmp_path: Path, obs: Any, local_dir: Path, *, bucket: str = "code-bucket",
               create: bool = True, program: str = PROGRAM, **extra: str) -> Stack:
    config = {"modelarts:region": "cn-north-4", "modelarts:accessKey": obs.access_key,
              "modelarts:obsEndpoint": obs.url, "test-project:bucket": bucket,
              "test-project:create": str(create).lower(), "test-project:localDir": str(local_dir)}
    config.update({f"test-project:{k}": v for k, v in extra.items()})
    return new_stack(tmp_path / "stack", program, config=config, secrets={"modelarts:secretKey": obs.secret_key})


def assert_no_secret(tmp_path: Path, st: Stack, secret: str) -> None:
    texts = {"stack export": st.run("stack", "export").stdout,
             "outputs": json.dumps(st.outputs(show_secrets=True))}
    texts.update({f"command {i}": p.stdout + p.stderr for i, p in enumerate(st.history)})
    texts.update({str(p): p.read_text(errors="replace")
                  for p in (tmp_path / "stack" / "backend").rglob("*") if p.is_file()})
    assert not [where for where, text in texts.items() if secret in text]


def hash_of(outputs: dict[str, Any]) -> str:
    m = CODE_DIR_RE.match(outputs["code_dir"])
    assert m, outputs
    return m.group(1)


@pytest.fixture
def mnist(tmp_path: Path) -> Path:
    return code_dir(tmp_path / "mnist", {"train.py": TRAIN, "lib/model.py": "W = 1\n", "lib/__init__.py": "",
                                         "__pycache__/train.cpython-311.pyc": b"\0", ".gitignore": "*.log\n",
                                         "run.log": "noise\n"})


def test_upload_noop_change_and_destroy(tmp_path: Path, obs: Any, s3: Any, mnist: Path, pulumi_engine: Path) -> None:
    st = make_stack(tmp_path, obs, mnist)
    st.up()
    out = st.outputs()
    short = hash_of(out)
    prefix = f"code/mnist/{short}/"
    assert sorted(keys(s3, "code-bucket", prefix)) == [prefix + p for p in
                                                      (".gitignore", "lib/__init__.py", "lib/model.py", "train.py")]
    assert out["boot_file"] == f"obs://code-bucket/{prefix}train.py"
    assert s3.get_object(Bucket="code-bucket", Key=prefix + "train.py")["Body"].read() == TRAIN.encode()
    assert keys(s3, "code-bucket", f"code/mnist/{short}.complete.json")

    # unchanged directory: identical inputs, no diff, not one OBS request at preview or up
    obs.reset()
    st.preview("--expect-no-changes")
    st.up("--expect-no-changes")
    assert obs.counters()["total"] == 0

    # no secret in the state (the engine keeps the stack config encrypted), the backend files, the
    # outputs or anything printed
    assert_no_secret(tmp_path, st, obs.secret_key)

    # another boot file of the same content: an in-place update of the outputs, no upload
    obs.reset()
    st.set_config("bootFile", "lib/model.py")
    st.up()
    assert st.outputs()["boot_file"] == f"obs://code-bucket/{prefix}lib/model.py"
    assert st.outputs()["code_dir"] == out["code_dir"]
    assert obs.counters()["total"] == 0

    # a prefix whose marker vanished is dropped at refresh, and the next up restores it (no file re-sent)
    s3.delete_object(Bucket="code-bucket", Key=f"code/mnist/{short}.complete.json")
    st.refresh()
    assert not [r for r in st.resources() if r["type"].endswith("modelarts:CodeUpload")]
    obs.reset()
    st.up()
    assert st.outputs()["code_dir"] == out["code_dir"]
    assert obs.counters()["put_object"] == 1  # the marker alone

    # new content: a new prefix; the old one (files and marker) is gone after the update
    (mnist / "lib" / "model.py").write_text("W = 2\n")
    st.up()
    new_short = hash_of(st.outputs())
    assert new_short != short
    assert keys(s3, "code-bucket", f"code/mnist/{new_short}")
    assert keys(s3, "code-bucket", f"code/mnist/{short}") == []

    st.destroy()
    assert "code-bucket" not in [b["Name"] for b in s3.list_buckets()["Buckets"]]


def test_iam_password_login_is_refused_at_preview(tmp_path: Path, obs: Any, mnist: Path,
                                                  pulumi_engine: Path) -> None:
    st = new_stack(tmp_path / "stack", PROGRAM, config={
        "modelarts:region": "cn-north-4", "modelarts:obsEndpoint": obs.url, "modelarts:iamUser": "emulator-user",
        "modelarts:iamDomain": "emulator-domain", "test-project:bucket": "code-bucket",
        "test-project:create": "true", "test-project:localDir": str(mnist)},
        secrets={"modelarts:iamPassword": "emulator-password"})
    proc = st.preview(check=False)
    assert proc.returncode != 0
    assert ("provider configuration: OBS needs AK/SK: set modelarts:accessKey (or HW_ACCESS_KEY / OS_ACCESS_KEY) "
            "and modelarts:secretKey (or HW_SECRET_KEY / OS_SECRET_KEY); an IAM user/password login is not "
            "accepted by OBS's S3-compatible API") in proc.stdout
    assert obs.counters()["total"] == 0


def test_existing_bucket_is_kept(tmp_path: Path, obs: Any, s3: Any, mnist: Path, pulumi_engine: Path) -> None:
    s3.create_bucket(Bucket="code-bucket", CreateBucketConfiguration={"LocationConstraint": "cn-north-4"})
    s3.put_object(Bucket="code-bucket", Key="datasets/a.csv", Body=b"1,2\n")
    st = make_stack(tmp_path, obs, mnist, create=False)
    st.up()
    assert keys(s3, "code-bucket", "code/")
    st.destroy()
    assert keys(s3, "code-bucket") == ["datasets/a.csv"]  # our prefix removed, the bucket and the rest kept


def test_missing_existing_bucket_is_named(tmp_path: Path, obs: Any, mnist: Path, pulumi_engine: Path) -> None:
    st = make_stack(tmp_path, obs, mnist, bucket="no-such-bucket", create=False)
    proc = st.up(check=False)
    assert proc.returncode != 0
    assert ("bucket no-such-bucket does not exist (create: false uses an existing bucket): create it, "
            "or set create: true") in proc.stdout + proc.stderr


def test_force_destroy(tmp_path: Path, obs: Any, s3: Any, mnist: Path, pulumi_engine: Path) -> None:
    st = make_stack(tmp_path, obs, mnist)
    st.up()
    s3.put_object(Bucket="code-bucket", Key="runs/out.txt", Body=b"x")  # not the stack's
    proc = st.destroy(check=False)
    assert proc.returncode != 0
    assert "bucket code-bucket is not empty: empty it, or set force_destroy: true" in proc.stdout + proc.stderr
    st.set_config("forceDestroy", "true")
    st.up()
    st.destroy()
    assert "code-bucket" not in [b["Name"] for b in s3.list_buckets()["Buckets"]]


BAD_PROGRAM = '''
import pulumi
from modelarts_provider.code_upload import CodeUpload

cfg = pulumi.Config()
CodeUpload("bad", {"local_dir": cfg.require("localDir"), "boot_file": cfg.get("bootFile") or "train.py",
                   "bucket": cfg.require("bucket"), "max_total_bytes": cfg.get_int("maxBytes") or 1024})
'''


BAD_CASES = [
    ("missing", "local_dir", "{dir} does not exist (expected a directory with the training code, relative "
                "to the Pulumi project or absolute)"),
    ("empty", "local_dir", "{dir} holds no files to upload (after excludes); expected the training code "
              "with its boot file"),
    ("no-boot", "boot_file", "'train.py' is not in {dir} (expected a .py file relative to local_dir, e.g. "
                "train.py; excluded files do not count)"),
    ("too-big", "local_dir", "{dir} holds more than 1024 bytes (max_total_bytes): keep data out of the code "
                "directory or exclude it in .modelartsignore"),
    ("bad-bucket", "bucket", "'Code_Bucket' is not a valid bucket name: 3-63 characters: lowercase letters, "
                   "digits, dots, hyphens; starts and ends with a letter or digit; no '..', '.-' or '-.'; "
                   "not an IP address"),
]


def _bad_case(tmp_path: Path, case: str) -> tuple[Path, str]:
    """The case's local directory and bucket."""
    local = tmp_path / "code"
    if case != "missing":
        local.mkdir()
    if case in ("no-boot", "too-big", "bad-bucket"):
        (local / ("main.py" if case == "no-boot" else "train.py")).write_text("x" * (2000 if case == "too-big" else 1))
    return local, "Code_Bucket" if case == "bad-bucket" else "code-bucket"


@pytest.mark.parametrize("case, field, message", BAD_CASES, ids=[c[0] for c in BAD_CASES])
def test_bad_input_refused_by_check(tmp_path: Path, case: str, field: str, message: str) -> None:
    """Every case, where the message is made: the program in-process under Pulumi's mocks, CodeUpload's
    inputs through its provider's real check, no connection allowed (tests/bad_input/in_process.py)."""
    from tests.bad_input.in_process import run_program

    local, bucket = _bad_case(tmp_path, case)
    (tmp_path / "bad.py").write_text(BAD_PROGRAM)
    config = {"modelarts:region": "cn-north-4", "modelarts:accessKey": "AK", "modelarts:secretKey": "SK-offline",
              "modelarts:obsEndpoint": "http://127.0.0.1:9", "test-project:bucket": bucket,
              "test-project:create": "true", "test-project:localDir": str(local)}
    refusal, _ = run_program(tmp_path / "bad.py", config, {"modelarts:secretKey"}, cwd=tmp_path,
                             project="test-project")
    assert refusal == f"{field}: {message.format(dir=local)}"


def test_bad_input_refused_at_preview(tmp_path: Path, obs: Any, pulumi_engine: Path) -> None:
    """What only the engine shows: the same check failure printed as one line naming the resource and the
    argument, no traceback, no call to OBS."""
    case, field, message = BAD_CASES[0]
    local, bucket = _bad_case(tmp_path, case)
    st = make_stack(tmp_path, obs, local, bucket=bucket, program=BAD_PROGRAM)
    proc = st.preview(check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    # one line: the engine names the resource and the argument, our reason says what is allowed
    line = f"error: pulumi-python:dynamic/modelarts:CodeUpload resource 'bad': property {field} value "
    reason = f" has a problem: {message.format(dir=local)}"
    assert any(l.strip().startswith(line) and l.endswith(reason) for l in out.splitlines()), out
    assert "Traceback" not in out
    assert obs.counters()["total"] == 0


@pytest.mark.parametrize("kind", ["status", "reset"])
def test_faults_during_upload_converge(tmp_path: Path, obs: Any, s3: Any, kind: str, pulumi_engine: Path) -> None:
    files = {f"pkg/m{i:02d}.py": f"X = {i}\n" for i in range(20)}
    local = code_dir(tmp_path / "code", {"train.py": TRAIN, **files})
    st = make_stack(tmp_path, obs, local)
    # 5 uploads get through, then every PUT fails (503 or a connection reset), beyond the retries
    obs.set_faults([{"operation": "put_object", "kind": kind, "status": 503, "after": 5, "times": 10_000}])
    proc = st.up(check=False)
    assert proc.returncode != 0
    assert "files not uploaded" in proc.stdout + proc.stderr
    assert st.outputs() == {}  # no marker, no outputs: nothing can refer to the partial prefix
    assert not [k for k in keys(s3, "code-bucket") if k.endswith(".complete.json")]
    partial = keys(s3, "code-bucket", "code/mnist/")
    assert 0 < len(partial) < 21

    obs.clear_faults()
    obs.reset()
    st.up()
    short = hash_of(st.outputs())
    assert len(keys(s3, "code-bucket", f"code/mnist/{short}/")) == 21
    assert keys(s3, "code-bucket", f"code/mnist/{short}.complete.json")
    assert obs.counters()["put_object"] == 21 - len(partial) + 1  # the rest, then the marker

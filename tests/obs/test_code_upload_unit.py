"""Code upload pieces without Pulumi: scan/excludes/limits/hash, check(), and the parallel upload
with its marker against the local OBS."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from modelarts_provider.code_upload import layout, transfer
from modelarts_provider.code_upload.args import CodeUploadArgs
from modelarts_provider.code_upload.check import check_inputs
from modelarts_provider.code_upload.manifest import Limits, MiB, ScanError, digest, scan
from modelarts_provider.obs import ObsClient, resolve_obs_settings
from tests.obs.conftest import code_dir, keys


def paths(root: Path, excludes: list[str] | None = None) -> list[str]:
    return [f.path for f in scan(root, "./code", excludes or []).files]


def content_hash(root: Path, excludes: list[str] | None = None) -> str:
    return digest(root, scan(root, "./code", excludes or [])).content_hash


# --- scan and excludes ----------------------------------------------------------------------------


def test_default_excludes_and_ignore_files(tmp_path: Path) -> None:
    root = code_dir(tmp_path / "c", {
        "train.py": "", ".git/HEAD": "", "pkg/__pycache__/m.cpython-311.pyc": b"", "pkg/m.py": "", "x.pyc": b"",
        ".venv/bin/python": "", ".gitignore": "*.log\ndata/\n!keep.log\n", "run.log": "", "keep.log": "",
        "data/train.csv": "", "sub/data/x": "", ".modelartsignore": "notes/\n", "notes/todo.md": "",
    })
    assert paths(root) == [".gitignore", ".modelartsignore", "keep.log", "pkg/m.py", "train.py"]
    assert paths(root, ["*.md", "keep.log", "!pkg/"]) == [".gitignore", ".modelartsignore", "pkg/m.py", "train.py"]


def test_links_inside_are_read_folders_are_not_entered(tmp_path: Path) -> None:
    outside = code_dir(tmp_path / "outside", {"shared.py": "S = 1\n"})
    root = code_dir(tmp_path / "c", {"train.py": "", "lib/m.py": ""})
    os.symlink(root / "lib" / "m.py", root / "alias.py")  # stays inside: read through
    os.symlink(outside, root / "linked_dir")
    os.symlink(tmp_path / "missing", root / "dangling.py")
    assert paths(root) == ["alias.py", "lib/m.py", "train.py"]


def test_a_link_out_of_the_code_directory_is_refused_at_preview(tmp_path: Path) -> None:
    # Issue 43: a link to a file outside (here a credentials file) reached OBS. Now: one line at check, naming
    # the link, nothing uploaded; the link excluded (.modelartsignore or excludes) is fine.
    secret = code_dir(tmp_path / "home", {".aws/credentials": "aws_secret_access_key = x\n"})
    root = code_dir(tmp_path / "code", {"train.py": ""})
    os.symlink(secret / ".aws" / "credentials", root / "creds")
    with pytest.raises(ScanError) as refused:
        paths(root)
    assert str(refused.value) == ("local_dir: ./code/creds is a link to a file outside ./code: links out of the code "
                                  "directory are not uploaded (its target could be anything, a key file too); copy "
                                  "the file into the directory, or exclude the link in .modelartsignore")
    args, failures = check_inputs(inputs(root, content_hash=None))  # both doors' check (preview)
    assert args is None and [f.property for f in failures] == ["local_dir"]
    assert "./code/creds is a link to a file outside ./code" in failures[0].reason
    assert paths(root, ["creds"]) == ["train.py"]


def test_hash_is_content_only(tmp_path: Path) -> None:
    files = {"train.py": "print(1)\n", "lib/a.py": "A = 1\n"}
    a = code_dir(tmp_path / "a", files)
    b = code_dir(tmp_path / "elsewhere" / "b", files)
    os.utime(b / "train.py", (1, 1))
    assert content_hash(a) == content_hash(b)  # place and mtimes do not matter
    (b / "__pycache__").mkdir()
    (b / "__pycache__" / "x.pyc").write_bytes(b"junk")
    assert content_hash(a) == content_hash(b)  # excluded files do not matter
    (b / "lib" / "a.py").write_text("A = 2\n")
    assert content_hash(a) != content_hash(b)
    c = code_dir(tmp_path / "c", {"train.py": "print(1)\n", "lib/b.py": "A = 1\n"})  # renamed file
    assert content_hash(a) != content_hash(c)
    d = code_dir(tmp_path / "d", {"train.py": "print(1)\nA = 1\n", "lib/a.py": ""})  # bytes moved across files
    assert content_hash(a) != content_hash(d)


@pytest.mark.parametrize("case, limits, message", [
    ("missing", Limits(), "./code does not exist (expected a directory with the training code, relative "
                          "to the Pulumi project or absolute)"),
    ("file", Limits(), "./code is not a directory (expected a directory with the training code)"),
    ("empty", Limits(), "./code holds no files to upload (after excludes); expected the training code with "
                        "its boot file"),
    ("big", Limits(max_total_bytes=MiB), "./code holds more than 1.0 MiB (max_total_bytes): keep data out of "
                                         "the code directory or exclude it in .modelartsignore"),
    ("many", Limits(max_files=10), "./code holds more than 10 files and folders (max_files; ModelArts allows "
                                   "1,000 in a code directory): exclude what training does not need in "
                                   ".modelartsignore"),
    ("folders", Limits(max_files=10), "./code holds more than 10 files and folders (max_files; ModelArts "
                                      "allows 1,000 in a code directory): exclude what training does not "
                                      "need in .modelartsignore"),
])
def test_scan_refusals(tmp_path: Path, case: str, limits: Limits, message: str) -> None:
    root = tmp_path / "code"
    if case == "file":
        root.write_text("")
    elif case == "empty":
        code_dir(root, {"__pycache__/a.pyc": b""})
    elif case == "big":
        code_dir(root, {"train.py": "", "weights.bin": b"\0" * (MiB + 1)})
    elif case == "many":
        code_dir(root, {f"m{i}.py": "" for i in range(11)})
    elif case == "folders":  # 6 files + 5 folders (a, a/b, ..., a/b/c/d/e) = 11
        code_dir(root, {"a/b/c/d/e/x.py": "", **{f"m{i}.py": "" for i in range(5)}})
    with pytest.raises(ScanError) as err:
        scan(root, "./code", [], limits)
    assert err.value.field == "local_dir" and err.value.message == message


# --- check ------------------------------------------------------------------------------------------


def inputs(root: Path, **over: Any) -> dict[str, Any]:
    base = {"local_dir": "./code", "source_path": str(root), "bucket": "code-bucket", "prefix": "code",
            "job_key": "mnist", "boot_file_path": "train.py", "excludes": [], "parallelism": 8,
            "code_dir": None, "boot_file": None}
    base.update(over)
    if "content_hash" not in base and root.is_dir():
        base["content_hash"] = content_hash(root)
    return base


@pytest.mark.parametrize("over, field, reason", [
    ({"boot_file_path": "run.sh"}, "boot_file",
     "'run.sh' must be a Python file (.py): ModelArts starts a code-directory job with a Python boot file"),
    ({"boot_file_path": "/abs/train.py"}, "boot_file",
     "'/abs/train.py' must be a path relative to local_dir with '/' separators, e.g. train.py"),
    ({"boot_file_path": "main.py"}, "boot_file",
     "'main.py' is not in ./code (expected a .py file relative to local_dir, e.g. train.py; excluded files "
     "do not count)"),
    ({"bucket": "Bad_Bucket"}, "bucket",
     "'Bad_Bucket' is not a valid bucket name: 3-63 characters: lowercase letters, digits, dots, hyphens; "
     "starts and ends with a letter or digit; no '..', '.-' or '-.'; not an IP address"),
    ({"prefix": "code//x"}, "prefix",
     "'code//x' is not a valid OBS key prefix: segments of letters, digits, '.', '_' and '-' separated by "
     "'/', no empty, '.' or '..' segment, at most 512 characters"),
    ({"job_key": "a b"}, "job_key",
     "'a b' is not a valid job key: 1-64 characters: letters, digits, '.', '_' and '-', starting with a "
     "letter or digit"),
    ({"bucket": None}, "bucket", "is required"),
    ({"parallelism": 0}, "parallelism", "must be at least 1, not 0"),
])
def test_check_refusals(tmp_path: Path, over: dict[str, Any], field: str, reason: str) -> None:
    root = code_dir(tmp_path / "code", {"train.py": "", "lib/m.py": ""})
    args, failures = check_inputs(inputs(root, **over))
    assert args is None
    assert [(f.property, f.reason) for f in failures] == [(field, reason)]


def test_check_accepts_and_skips_unknown_bucket(tmp_path: Path) -> None:
    root = code_dir(tmp_path / "code", {"train.py": "", "lib/m.py": ""})
    args, failures = check_inputs(inputs(root, boot_file_path="train.py", prefix="/code/"))
    assert failures == [] and args is not None and args.prefix == "code"
    unknown = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"  # a Bucket's name output at preview
    assert check_inputs(inputs(root, bucket=unknown))[1] == []


# --- transfer against the local OBS ---------------------------------------------------------------


def obs_client(obs: Any, **over: Any) -> ObsClient:
    s = resolve_obs_settings(lambda k: {"region": "cn-north-4", "accessKey": obs.access_key,
                                        "secretKey": obs.secret_key, "obsEndpoint": obs.url}.get(k), {})
    return ObsClient(type(s).model_validate({**s.model_dump(), **over}))


def test_upload_skips_what_is_there_and_marker_gates_removal(tmp_path: Path, obs: Any, s3: Any) -> None:
    root = code_dir(tmp_path / "code", {"train.py": "print(1)\n", **{f"lib/m{i}.py": f"X={i}\n" for i in range(9)}})
    manifest = scan(root, "./code")
    files = digest(root, manifest)
    c = obs_client(obs)
    c.create_bucket("up-1")
    dest = layout.code_prefix("code", "mnist", files.content_hash)
    marker = layout.marker_key("code", "mnist", files.content_hash)
    assert dest == f"code/mnist/{files.content_hash[:16]}/" and marker == f"code/mnist/{files.content_hash[:16]}.complete.json"

    report = transfer.upload(c, root, manifest, files, "up-1", dest, parallelism=4)
    assert (report.uploaded, report.skipped) == (10, 0)
    obs.reset()
    again = transfer.upload(c, root, manifest, files, "up-1", dest, parallelism=4)
    assert (again.uploaded, again.skipped) == (10 - 10, 10)
    assert obs.counters() == {"total": 1, "list_objects": 1}  # one listing, no PUT

    s3.put_object(Bucket="up-1", Key=dest + "lib/m3.py", Body=b"tampered")  # same key, other bytes
    assert transfer.upload(c, root, manifest, files, "up-1", dest, parallelism=4).uploaded == 1

    transfer.write_marker(c, "up-1", marker, transfer.Marker(content_hash=files.content_hash, files=10,
                                                              total_bytes=manifest.total_bytes,
                                                              keys=[f.path for f in manifest.files]))
    assert transfer.read_marker(c, "up-1", marker).files == 10
    # Someone else's object under the same prefix: not in the marker's list, never deleted.
    s3.put_object(Bucket="up-1", Key=dest + "theirs.txt", Body=b"not ours")
    assert transfer.remove(c, "up-1", marker, dest, parallelism=4) == 10
    assert keys(s3, "up-1") == [dest + "theirs.txt"]
    assert transfer.remove(c, "no-such-bucket", marker, dest, parallelism=4) == 0  # gone is gone


def test_an_upload_without_a_file_list_is_left_in_place(tmp_path: Path, obs: Any, s3: Any) -> None:
    # A marker written before markers listed their files: its objects are not guessed from the prefix.
    c = obs_client(obs)
    c.create_bucket("up-2")
    s3.put_object(Bucket="up-2", Key="code/old/abc/train.py", Body=b"print(1)")
    transfer.write_marker(c, "up-2", "code/old/abc.complete.json",
                          transfer.Marker(content_hash="0" * 64, files=1, total_bytes=8))
    said: list[str] = []
    assert transfer.remove(c, "up-2", "code/old/abc.complete.json", "code/old/abc/", 4, said.append) == 0
    assert keys(s3, "up-2") == ["code/old/abc/train.py"]
    assert said == ["obs://up-2/code/old/abc/: the upload's file list is unknown (an upload older than file "
                    "lists); its objects are left in place"]
    # ... unless the caller knows them (the local directory still has exactly that content)
    transfer.write_marker(c, "up-2", "code/old/abc.complete.json",
                          transfer.Marker(content_hash="0" * 64, files=1, total_bytes=8))
    assert transfer.remove(c, "up-2", "code/old/abc.complete.json", "code/old/abc/", 4,
                           known_keys=["train.py"]) == 1
    assert keys(s3, "up-2") == []


def test_upload_failure_is_one_line_and_resumes(tmp_path: Path, obs: Any, s3: Any) -> None:
    root = code_dir(tmp_path / "code", {f"m{i:02d}.py": f"X={i}\n" for i in range(30)})
    manifest = scan(root, "./code")
    files = digest(root, manifest)
    c = obs_client(obs, max_attempts=2)
    c.create_bucket("up-2")
    obs.set_faults([{"operation": "put_object", "status": 503, "after": 4, "times": 10_000}])
    with pytest.raises(transfer.UploadFailed) as err:
        transfer.upload(c, root, manifest, files, "up-2", "p/", parallelism=1)
    assert str(err.value) == ("26 of 30 files not uploaded; first failure: OBS put_object up-2/p/m04.py: "
                              "ServiceUnavailable (HTTP 503): injected fault (HTTP 503) [request "
                              + err.value.args[0].rsplit("[request ", 1)[1])
    assert len(keys(s3, "up-2")) == 4
    obs.clear_faults()
    report = transfer.upload(c, root, manifest, files, "up-2", "p/", parallelism=8)
    assert (report.uploaded, report.skipped) == (26, 4)


def test_a_file_changed_after_hashing_is_refused_by_its_md5(tmp_path: Path, obs: Any) -> None:
    root = code_dir(tmp_path / "code", {"train.py": "print(1)\n"})
    manifest = scan(root, "./code")
    files = digest(root, manifest)
    (root / "train.py").write_text("print(2)\n")  # same size, other bytes
    c = obs_client(obs, max_attempts=1)
    c.create_bucket("up-3")
    with pytest.raises(transfer.UploadFailed, match="BadDigest|InvalidDigest"):
        transfer.upload(c, root, manifest, files, "up-3", "p/", parallelism=1)


def test_args_defaults() -> None:
    a = CodeUploadArgs(local_dir="x", source_path="/x", bucket="b-1", job_key="k", boot_file_path="t.py")
    assert (a.prefix, a.max_total_bytes, a.max_files, a.parallelism) == ("code", 200 * MiB, 1000, 8)


def _upload_props(**over: Any) -> dict[str, Any]:
    props = {"local_dir": "./code", "source_path": "/abs/code", "bucket": "b", "prefix": "code", "job_key": "mnist",
             "boot_file_path": "train.py", "content_hash": "a" * 64, "owner_token": "00112233445566ff"}
    props.update(over)
    return props


@pytest.mark.parametrize("old, new", [("code/", "code"), ("/code", "code/"), ("team/code", "team/code/")])
def test_spellings_of_one_prefix_are_no_replacement(old: str, new: str) -> None:
    from modelarts_provider.code_upload.provider import CodeUploadProvider

    d = CodeUploadProvider().diff("id", _upload_props(prefix=old), _upload_props(prefix=new))
    assert not d.replaces


def test_an_upload_from_before_owner_tokens_keeps_its_place() -> None:
    from modelarts_provider.code_upload.provider import CodeUploadProvider

    p = CodeUploadProvider()
    legacy = {**_upload_props(owner_token=None), "code_dir": "obs://b/code/mnist/aaaaaaaaaaaaaaaa/",
              "boot_file": "obs://b/code/mnist/aaaaaaaaaaaaaaaa/train.py",
              "marker_key": "code/mnist/aaaaaaaaaaaaaaaa.complete.json", "uploaded_files": 1, "skipped_files": 0}
    d = p.diff("id", legacy, _upload_props())
    assert not d.replaces and d.changes  # the token is recorded, nothing moves
    outs = p.update("id", legacy, _upload_props()).outs
    assert outs["code_dir"] == "obs://b/code/mnist/aaaaaaaaaaaaaaaa/"
    assert outs["marker_key"] == "code/mnist/aaaaaaaaaaaaaaaa.complete.json"
    # A new content hash is a new upload, now under the token.
    assert p.diff("id", legacy, _upload_props(content_hash="b" * 64)).replaces == ["content_hash"]

"""Issue 56, item 5: the command-line tools read a stack's outputs, state and plain config straight from its backend
and its stack file, and start the pulumi CLI only for what needs it (a secret to decrypt, a backend not read here).

Each test gives the tools a `pulumi` of its own that records every call (and answers `config` only): a read that
went through the CLI shows in the calls, and one the CLI would have answered otherwise shows in the values.
"""

from __future__ import annotations

import base64
import gzip
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from modelarts_provider.cli.errors import LogsError
from modelarts_provider.cli.pulumi_cli import pinned_version
from modelarts_provider.cli.stack_reader import CONFIG_WITH_SECRETS, PulumiCli, prefetch_config, stack_config
from modelarts_provider.cli.stack_state import SECRET_SIG, SIG_KEY, StackState, shown_url

SECRET = {SIG_KEY: SECRET_SIG, "ciphertext": "v1:abc:def"}
DEPLOYMENT = {
    "manifest": {"time": "2026-11-29T05:00:00Z"},
    "resources": [
        {"urn": "urn:pulumi:dev::proj::pulumi:pulumi:Stack::proj-dev", "type": "pulumi:pulumi:Stack",
         "outputs": {"jobs": {"train": {"id": "j-1", "phase": "Running", "owner": SECRET}},
                     "sweeps": {"grid": {"best": {"key": "grid-1"}}}, "token": SECRET}},
        {"urn": "urn:pulumi:dev::proj::pulumi-python:dynamic/modelarts:TrainingJob::train",
         "type": "pulumi-python:dynamic/modelarts:TrainingJob", "outputs": {"job_id": "j-1", "job_name": "train-x"}},
    ]}
CHECKPOINT = {"version": 3, "checkpoint": {"stack": "organization/proj/dev", "latest": DEPLOYMENT}}
CONFIG_ANSWER = {"proj:plain": {"value": "p", "secret": False}, "modelarts:secretKey": {"value": "sk-123456", "secret": True}}


def _project(root: Path, stack_file: str) -> Path:
    (root / "stacks").mkdir(parents=True)
    (root / "Pulumi.yaml").write_text("name: proj\nruntime: python\nstackConfigDir: stacks\n")
    (root / "stacks" / "Pulumi.dev.yaml").write_text(stack_file)
    return root


def _recording_pulumi(tmp_path: Path) -> tuple[dict[str, str], Path]:
    """The set-up's pulumi (as ./dev puts it first on PATH: run without a version check) recording its calls."""
    calls, bindir = tmp_path / "calls.jsonl", tmp_path / "cache" / f"engine-v{pinned_version()}" / "bin"
    bindir.mkdir(parents=True)
    (bindir / "pulumi").write_text(
        f"#!{sys.executable}\nimport json, sys\nopen({str(calls)!r}, 'a').write(json.dumps(sys.argv[1:]) + '\\n')\n"
        f"print(json.dumps({CONFIG_ANSWER!r}) if sys.argv[1] == 'config' else '{{}}')\n")
    (bindir / "pulumi").chmod(0o755)
    env = {"PATH": f"{bindir}{os.pathsep}/usr/bin:/bin", "HOME": str(tmp_path),
           "MODELARTS_ENGINE_CACHE": str(tmp_path / "cache")}
    return env, calls


def _calls(path: Path) -> list[list[str]]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def _file_backend(tmp_path: Path, *, layout: int | None = 1) -> Path:
    backend = tmp_path / "backend"
    (backend / ".pulumi" / "stacks" / "proj").mkdir(parents=True)
    if layout is not None:
        (backend / ".pulumi" / "meta.yaml").write_text(f"version: {layout}\n")
    return backend


def _reader(tmp_path: Path, url: str, stack_file: str = "config:\n  proj:plain: p\n") -> tuple[PulumiCli, Path]:
    env, calls = _recording_pulumi(tmp_path)
    cwd = _project(tmp_path / "project", stack_file)
    return PulumiCli(cwd, "dev", {**env, "PULUMI_BACKEND_URL": url}), calls


@pytest.mark.parametrize("form", ["plain", "gzipped"])
def test_outputs_and_state_are_read_from_a_file_backends_checkpoint(tmp_path: Path, form: str) -> None:
    backend = _file_backend(tmp_path)
    doc = json.dumps(CHECKPOINT).encode()
    if form == "plain":
        (backend / ".pulumi" / "stacks" / "proj" / "dev.json").write_bytes(doc)
    else:
        (backend / ".pulumi" / "stacks" / "proj" / "dev.json.gz").write_bytes(gzip.compress(doc))
    pulumi, calls = _reader(tmp_path, f"file://{backend}?metadata=skip")
    # as `pulumi stack output --json` prints them: each secret "[secret]", at any depth
    assert pulumi.json("stack", "output", "--json") == {
        "jobs": {"train": {"id": "j-1", "phase": "Running", "owner": "[secret]"}},
        "sweeps": {"grid": {"best": {"key": "grid-1"}}}, "token": "[secret]"}
    # as `pulumi stack export` prints it: the deployment, secrets still encrypted
    assert pulumi.json("stack", "export") == {"deployment": DEPLOYMENT}
    assert _calls(calls) == []  # no CLI started


def test_the_newer_of_a_plain_and_a_gzipped_checkpoint_is_read_and_the_older_layout_too(tmp_path: Path) -> None:
    backend = _file_backend(tmp_path)
    stacks = backend / ".pulumi" / "stacks" / "proj"
    older = {"version": 3, "checkpoint": {"latest": {"resources": []}}}
    (stacks / "dev.json").write_text(json.dumps(older))
    (stacks / "dev.json.gz").write_bytes(gzip.compress(json.dumps(CHECKPOINT).encode()))
    os.utime(stacks / "dev.json", (1_000_000, 1_000_000))  # the gzipped one was written last
    pulumi, calls = _reader(tmp_path, f"file://{backend}")
    assert pulumi.json("stack", "export") == {"deployment": DEPLOYMENT}
    # a backend made before project folders (no meta.yaml, version 0): <stacks>/<stack>.json
    legacy = tmp_path / "legacy"
    (legacy / ".pulumi" / "stacks").mkdir(parents=True)
    (legacy / ".pulumi" / "stacks" / "dev.json").write_text(json.dumps(CHECKPOINT))
    pulumi.env["PULUMI_BACKEND_URL"] = f"file://{legacy}"
    assert pulumi.json("stack", "output", "--json")["jobs"]["train"]["id"] == "j-1"
    assert _calls(calls) == []


def test_a_missing_stack_is_one_line_naming_the_backend(tmp_path: Path) -> None:
    backend = _file_backend(tmp_path)
    pulumi, calls = _reader(tmp_path, f"file://{backend}?metadata=skip")
    with pytest.raises(LogsError) as err:
        pulumi.json("stack", "output", "--json")
    assert str(err.value) == (f"no stack dev in the backend in use (file://{backend}): `pulumi stack ls` lists its "
                              "stacks; PULUMI_BACKEND_URL chooses the backend")
    assert _calls(calls) == []
    assert shown_url("s3://alice:pw@state/team?endpoint=obs.example.com&region=x") == "s3://state/team"


def test_a_config_without_secrets_is_read_from_the_stack_file_as_the_cli_prints_it(tmp_path: Path) -> None:
    stack_file = ("config:\n  proj:plain: p\n  modelarts:region: cn-north-4\n  modelarts:verifyTls: false\n"
                  "  proj:jobs:\n    a: {pool: cpu, nodes: 2}\n  count: 3\n")
    pulumi, calls = _reader(tmp_path, f"file://{_file_backend(tmp_path)}", stack_file)
    assert pulumi.json(*CONFIG_WITH_SECRETS) == {
        "proj:plain": {"value": "p", "secret": False},
        "modelarts:region": {"value": "cn-north-4", "secret": False},
        "modelarts:verifyTls": {"value": "false", "secret": False},
        "proj:jobs": {"value": '{"a":{"nodes":2,"pool":"cpu"}}', "objectValue": {"a": {"pool": "cpu", "nodes": 2}},
                      "secret": False},
        "proj:count": {"value": "3", "secret": False}}
    prefetch_config(pulumi)  # nothing to decrypt: nothing started
    assert stack_config(pulumi, lambda _: None)[1] == []
    assert _calls(calls) == []


def test_a_secret_is_decrypted_by_the_cli_once_started_ahead(tmp_path: Path) -> None:
    stack_file = "config:\n  proj:plain: p\n  modelarts:secretKey:\n    secure: v1:abc:def\n"
    pulumi, calls = _reader(tmp_path, f"file://{_file_backend(tmp_path)}", stack_file)
    prefetch_config(pulumi)  # started now: it runs while the command does the rest
    assert _calls(calls) == [] or _calls(calls)[0][:3] == list(CONFIG_WITH_SECRETS)
    raw, secrets = stack_config(pulumi, lambda _: None)
    assert raw == CONFIG_ANSWER and secrets == ["sk-123456"]
    assert _calls(calls) == [[*CONFIG_WITH_SECRETS, "--stack", "dev", "--non-interactive"]]  # one start, the prefetch


def test_a_backend_not_read_here_goes_through_the_cli(tmp_path: Path) -> None:
    pulumi, calls = _reader(tmp_path, "https://api.pulumi.com")
    assert pulumi.json("stack", "output", "--json") == {}
    assert pulumi.json("stack", "export") == {}
    assert [c[:2] for c in _calls(calls)] == [["stack", "output"], ["stack", "export"]]


def test_outputs_holding_an_asset_go_through_the_cli(tmp_path: Path) -> None:
    """Only secrets are rendered here; another special value (an asset, a resource reference) is the CLI's."""
    backend = _file_backend(tmp_path)
    asset = {SIG_KEY: "c44067f5952c0a294b673a41bacd8c17", "path": "x.txt"}
    doc: dict[str, Any] = json.loads(json.dumps(CHECKPOINT))
    doc["checkpoint"]["latest"]["resources"][0]["outputs"]["file"] = asset
    (backend / ".pulumi" / "stacks" / "proj" / "dev.json").write_text(json.dumps(doc))
    pulumi, calls = _reader(tmp_path, f"file://{backend}")
    assert pulumi.json("stack", "output", "--json") == {}
    assert [c[:2] for c in _calls(calls)] == [["stack", "output"]]


def test_a_checkpoint_in_an_obs_bucket_is_read_with_the_aws_variables(tmp_path: Path) -> None:
    from obs_emulator.testing import running_obs

    with running_obs(tmp_path / "obs") as obs:
        s3 = obs.client()
        s3.create_bucket(Bucket="team-state", CreateBucketConfiguration={"LocationConstraint": obs.region})
        s3.put_object(Bucket="team-state", Key="team/.pulumi/meta.yaml", Body=b"version: 1\n")
        s3.put_object(Bucket="team-state", Key="team/.pulumi/stacks/proj/dev.json.gz",
                      Body=gzip.compress(json.dumps(CHECKPOINT).encode()))
        url = f"s3://team-state/team?endpoint={obs.url}&region={obs.region}&s3ForcePathStyle=true"
        pulumi, calls = _reader(tmp_path, url)
        pulumi.env.update(AWS_ACCESS_KEY_ID=obs.access_key, AWS_SECRET_ACCESS_KEY=obs.secret_key)
        assert pulumi.json("stack", "output", "--json")["sweeps"] == {"grid": {"best": {"key": "grid-1"}}}
        missing = PulumiCli(pulumi.cwd, "prod", pulumi.env)
        with pytest.raises(LogsError, match=r"^no stack prod in the backend in use \(s3://team-state/team\)"):
            missing.json("stack", "export")
        assert _calls(calls) == []
        # without the AWS variables (a profile, an instance role): the CLI reads it
        del pulumi.env["AWS_SECRET_ACCESS_KEY"]
        assert StackState(pulumi.cwd, "dev", pulumi.env).deployment() is None


def test_a_passphrase_secret_is_decrypted_here_as_pulumi_encrypted_it(tmp_path: Path) -> None:
    """The local stack's file, as Pulumi wrote it (`encryptionsalt`, the secret key `secure:` for the passphrase
    `local`): its config as `pulumi config --json --show-secrets` prints it, without the CLI; a wrong passphrase, or
    none, leaves it to the CLI (whose error names it)."""
    from modelarts_emulator.config import DEFAULT_SECRET_KEY
    from testkit.harness import REPO_ROOT

    pulumi, calls = _reader(tmp_path, f"file://{_file_backend(tmp_path)}",
                            (REPO_ROOT / "stacks" / "Pulumi.local.yaml").read_text())
    pulumi.env["PULUMI_CONFIG_PASSPHRASE"] = "local"
    config = pulumi.json(*CONFIG_WITH_SECRETS)
    assert config["modelarts:secretKey"] == {"value": DEFAULT_SECRET_KEY, "secret": True}
    assert config["modelarts:accessKey"]["secret"] is False and config["modelarts-jobs:jobs"]["objectValue"]["resnet"]
    raw, secrets = stack_config(pulumi, lambda _: None)
    assert secrets == [DEFAULT_SECRET_KEY] and raw == config
    prefetch_config(pulumi)  # read on a thread: no CLI either
    assert pulumi.json(*CONFIG_WITH_SECRETS) == config
    assert _calls(calls) == []
    for wrong in ("not-local", ""):
        pulumi.env["PULUMI_CONFIG_PASSPHRASE"] = wrong
        assert pulumi.json(*CONFIG_WITH_SECRETS) == CONFIG_ANSWER  # the recording CLI's answer
    assert _calls(calls) == [[*CONFIG_WITH_SECRETS, "--stack", "dev", "--non-interactive"]] * 2


def test_the_key_derivation_begins_before_the_imports_in_a_thread_and_its_key_is_pulumis(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`python -m modelarts_provider status|logs|outputs --stack S` starts the passphrase's key derivation in a thread
    before it imports the command (cryptography's PBKDF2 releases the GIL: it runs beside the imports); the
    decryption then takes that key, the same as Pulumi's (hashlib's PBKDF2 gives the reference)."""
    import hashlib

    from modelarts_provider.cli import passphrase

    (tmp_path / "Pulumi.yaml").write_text("name: p\nruntime: python\nstackConfigDir: stacks\n")
    (tmp_path / "stacks").mkdir()
    salt = b"\x8bp\x04\xa7\xdf>Q\t"
    (tmp_path / "stacks" / "Pulumi.dev.yaml").write_text(f"encryptionsalt: v1:{base64.b64encode(salt).decode()}:v1:x\n")
    passphrase.start_early(["status", "--stack", "dev", "--cwd", str(tmp_path)], {"PULUMI_CONFIG_PASSPHRASE": "pp"})
    started = passphrase._STARTED[("pp", salt)]
    assert started.is_alive() or started.key is not None  # begun at once, before any import of the command
    expected = hashlib.pbkdf2_hmac("sha256", b"pp", salt, passphrase.ROUNDS, 32)
    started.join()
    monkeypatch.setattr(passphrase, "_pbkdf2", lambda *_a: b"\0" * 32)  # not derived again here
    assert passphrase.derived_key("pp", salt) == expected and not passphrase._STARTED

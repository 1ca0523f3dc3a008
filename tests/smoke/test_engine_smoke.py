"""Guards the toolchain itself: the real Pulumi engine, a pulumi_random resource and a dynamic
resource from an importable module, all offline (automatic plugin downloads disabled)."""

from __future__ import annotations

import json
from pathlib import Path

from testkit.harness import PULUMI_VERSION, new_stack

PROGRAM = '''
import pulumi
import pulumi_random
from tests.smoke.echo_provider import Echo

suffix = pulumi_random.RandomString("suffix", length=8, special=False, upper=False)
echo = Echo("echo", message=suffix.result.apply(lambda r: f"hello-{r}"))
pulumi.export("suffix", suffix.result)
pulumi.export("echoed", echo.echoed)
pulumi.export("hidden", {"plain": 1, "secret": pulumi.Output.secret(suffix.result)})
'''


def test_pulumi_version_is_pinned(pulumi_env: dict[str, str]) -> None:
    import subprocess

    out = subprocess.run(["pulumi", "version"], env=pulumi_env, text=True, capture_output=True, check=True)
    assert out.stdout.strip() == f"v{PULUMI_VERSION}"


def test_up_preview_outputs_destroy(tmp_path: Path, pulumi_engine: Path) -> None:
    stack = new_stack(tmp_path, PROGRAM)
    stack.env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
    assert stack.env["PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION"] == "true"

    stack.up()
    outputs = stack.outputs()
    assert len(outputs["suffix"]) == 8 and outputs["suffix"].isalnum() and outputs["suffix"].islower()
    assert outputs["echoed"] == f"HELLO-{outputs['suffix'].upper()}"

    stack.preview("--expect-no-changes")
    # The harness reads a file backend's checkpoint instead of starting the CLI: the same resources.
    assert stack._checkpoint_path() is not None and stack._checkpoint_path().exists()
    # No `.attrs` sidecar (metadata=skip): one written in place is what a SIGKILL could leave empty, and an empty
    # one made every later command fail with `failed to load checkpoint: EOF`.
    backend = stack._checkpoint_path().parents[3]
    assert list(backend.rglob("*.json")) and not list(backend.rglob("*.attrs")), sorted(backend.rglob("*"))
    # The harness reads outputs and the deployment from that checkpoint too: what the CLI prints
    assert stack.outputs() == stack.cli_outputs() and stack.outputs()["hidden"] == {"plain": 1, "secret": "[secret]"}
    assert stack.export() == stack.cli_export()
    types = sorted(r["type"] for r in stack.resources())
    assert "random:index/randomString:RandomString" in types
    assert "pulumi-python:dynamic:Resource" in types

    stack.destroy()
    remaining = [r for r in stack.resources() if r["type"] != "pulumi:pulumi:Stack"]
    assert remaining == []
    assert json.loads(stack.run("stack", "output", "--json").stdout or "{}") == {}


def test_a_stack_made_by_copy_is_the_one_the_cli_makes(tmp_path: Path, pulumi_engine: Path) -> None:
    # Stack.init copies the first stack the CLI made in this process, and set_all_config writes a secret as the
    # ciphertext the CLI gave the same value before: the engine reads both as if `stack init` and `config set`
    # had made them
    config, secrets = {"plain": "1", "modelarts:region": "r"}, {"token": "s3cr3t-value", "modelarts:secretKey": "k2"}
    first = new_stack(tmp_path / "a", "import pulumi", config=config, secrets=secrets)
    second = new_stack(tmp_path / "b", "import pulumi", config=config, secrets=secrets)
    for st in (first, second):
        shown = json.loads(st.run("config", "--json", "--show-secrets").stdout)
        assert {k: (v["value"], v["secret"]) for k, v in shown.items()} == {
            "test-project:plain": ("1", False), "modelarts:region": ("r", False),
            "test-project:token": ("s3cr3t-value", True), "modelarts:secretKey": ("k2", True)}
        assert json.loads(st.run("stack", "ls", "--json", stack_flag=False).stdout)[0]["name"] == "test"
    second.up()
    assert [r["type"] for r in second.resources()] == ["pulumi:pulumi:Stack"]
    # one CLI `stack init` at most (none when another test of this process made the template), no set-all for the
    # second stack: its secrets were encrypted for the first
    commands = [" ".join(p.args[1:3]) for p in first.history + second.history]
    assert commands.count("stack init") <= 1 and commands.count("config set-all") <= 1, commands

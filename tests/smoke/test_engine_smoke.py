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
    assert stack.resources() == stack.export()["deployment"]["resources"]
    types = sorted(r["type"] for r in stack.resources())
    assert "random:index/randomString:RandomString" in types
    assert "pulumi-python:dynamic:Resource" in types

    stack.destroy()
    remaining = [r for r in stack.resources() if r["type"] != "pulumi:pulumi:Stack"]
    assert remaining == []
    assert json.loads(stack.run("stack", "output", "--json").stdout or "{}") == {}

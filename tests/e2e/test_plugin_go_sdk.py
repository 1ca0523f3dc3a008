"""The provider plugin from Go: a Go SDK generated from the plugin's schema (modelarts-sdkgen --language go: the
CLI's own Go code generator) compiles, with a program using it, against the pinned Pulumi Go SDK. The schema's
types reach Go: a program naming a property the schema does not have does not compile. (This test compiles;
tests/e2e/test_plugin_languages.py runs a Go program under the engine's Go language host.)

The first run fetches and compiles the Pulumi Go SDK's modules (about a minute); later runs take seconds (Go's
module and build caches)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from modelarts_provider.plugin.provider import VERSION
from modelarts_provider.plugin.schema import schema
from testkit.harness import PULUMI_VERSION, engine_bin_dir

pytestmark = pytest.mark.engine  # not the edit loop: a Go build

PROGRAM = """\
package main

import (
	"example.com/pulumi-modelarts/sdk/go/modelarts"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		job, err := modelarts.NewTrainingJob(ctx, "train", &modelarts.TrainingJobArgs{
			FlavorId:  pulumi.String("modelarts.vm.cpu.2u"),
			Algorithm: &modelarts.AlgorithmArgArgs{Id: pulumi.String("8d1b2f4c-5a6e-4f70-9b81-c2d3e4f5a6b7")},
		})
		if err != nil {
			return err
		}
		waited, err := modelarts.NewJobsAwait(ctx, "waited", &modelarts.JobsAwaitArgs{
			Jobs: modelarts.AwaitedJobMap{"train": modelarts.AwaitedJobArgs{
				JobId: job.JobId, JobName: job.JobName, WaitFor: pulumi.String("completed")}},
		})
		if err != nil {
			return err
		}
		ctx.Export("phases", waited.Phases)
		return nil
	})
}
"""


def _go(args: list[str], cwd: Path, ok: bool = True) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "GOFLAGS": "-mod=mod"}
    proc = subprocess.run(["go", *args], cwd=cwd, env=env, text=True, capture_output=True, timeout=900)
    if ok:
        assert proc.returncode == 0, f"`go {' '.join(args)}` exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return proc


def test_go_sdk_generates_and_compiles(tmp_path: Path) -> None:
    assert shutil.which("go"), "go is not on PATH (./dev setup needs it too)"
    sdkgen = engine_bin_dir() / "modelarts-sdkgen"
    assert sdkgen.exists(), "modelarts-sdkgen is missing: run ./dev setup (scripts/install_engine.sh builds it)"
    (tmp_path / "schema.json").write_text(json.dumps(schema(VERSION)))
    generated = tmp_path / "generated"
    subprocess.run([str(sdkgen), "--language", "go", str(tmp_path / "schema.json"), str(generated)], check=True,
                   timeout=120)
    module = tmp_path / "module"  # the generator's import path: example.com/pulumi-modelarts/sdk/go/modelarts
    (module / "sdk" / "go").mkdir(parents=True)
    shutil.copytree(generated / "modelarts", module / "sdk" / "go" / "modelarts")
    (module / "go.mod").write_text(f"module example.com/pulumi-modelarts\n\ngo 1.25\n\n"
                                   f"require github.com/pulumi/pulumi/sdk/v3 v{PULUMI_VERSION}\n")
    (module / "program").mkdir()
    (module / "program" / "main.go").write_text(PROGRAM)
    _go(["mod", "tidy"], module)
    _go(["build", "-p", "1", "-trimpath", "-o", str(tmp_path / "program"), "./program"], module)
    assert (tmp_path / "program").exists()

    # The schema's names and types reach Go: the snake_case name is not a field.
    (module / "program" / "main.go").write_text(PROGRAM.replace("FlavorId:", "Flavor_id:"))
    bad = _go(["build", "-p", "1", "-trimpath", "-o", str(tmp_path / "bad"), "./program"], module, ok=False)
    assert bad.returncode != 0 and "Flavor_id" in bad.stderr, bad.stderr

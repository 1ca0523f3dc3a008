"""The provider plugin from TypeScript: its schema, read from the running plugin by the engine, generates a Node.js
SDK (modelarts-sdkgen: the CLI's own code generator) that compiles with tsc, and a program using it type-checks.

Needs node and npm on the machine and the npm registry (@pulumi/pulumi, typescript); tests/e2e/test_plugin_languages.py
runs a TypeScript program under the engine's Node.js language host, with the installed plugin.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from testkit.harness import Stack, engine_bin_dir, pulumi_env
from testkit.plugin_program import PLUGIN_DIR

pytestmark = pytest.mark.engine

PROGRAM = """\
import * as modelarts from "./index";

const job = new modelarts.TrainingJob("train", {
    algorithm: { id: "8d1b2f4c-5a6e-4f70-9b81-c2d3e4f5a6b7", parameters: [{ name: "epochs", value: "3" }] },
    flavorId: "modelarts.vm.cpu.2u",
    waitFor: "completed",
});
const waited = new modelarts.JobsAwait("waited", {
    jobs: { train: { jobId: job.jobId.apply(id => id ?? ""), jobName: job.jobName, waitFor: "completed" } },
}, { customTimeouts: { create: "2h" } });
export const phases = waited.phases;
export const url: modelarts.Bucket["url"] = new modelarts.Bucket("code", { bucket: "my-code", create: false }).url;

// The schema's types reach TypeScript: each line below must be refused.
// @ts-expect-error nodeCount is a number
new modelarts.TrainingJob("bad-count", { nodeCount: "two" });
// @ts-expect-error not a property of the resource (the schema's names are camelCase)
new modelarts.TrainingJob("bad-name", { flavor_id: "x" });
// @ts-expect-error set by the stack program only: not in the public schema
new modelarts.TrainingJob("internal", { configKeys: {} });
// @ts-expect-error jobs is required
new modelarts.JobsAwait("bad-await", {});
"""


def _run(cmd: list[str], cwd: Path, timeout: float = 600) -> str:
    proc = subprocess.run(cmd, cwd=cwd, text=True, capture_output=True, timeout=timeout)
    assert proc.returncode == 0, f"`{' '.join(cmd)}` exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


def test_typescript_sdk_generates_and_compiles(tmp_path: Path) -> None:
    for tool in ("node", "npm"):
        assert shutil.which(tool), f"{tool} is not on PATH: this test compiles the TypeScript SDK"
    sdkgen = engine_bin_dir() / "modelarts-sdkgen"
    assert sdkgen.exists(), "modelarts-sdkgen is missing: run ./dev setup (scripts/install_engine.sh builds it)"

    st = Stack(workdir=tmp_path, name="none", env=pulumi_env(tmp_path))
    launcher = PLUGIN_DIR / "pulumi-resource-modelarts"
    schema = st.run("package", "get-schema", str(launcher), stack_flag=False).stdout
    assert set(json.loads(schema)["resources"]) == {f"modelarts:index:{t}" for t in
                                                    ("TrainingJob", "JobsAwait", "CodeUpload", "Bucket",
                                                     "Network", "ResourcePool")}
    (tmp_path / "schema.json").write_text(schema)
    sdk = tmp_path / "sdk"
    _run([str(sdkgen), str(tmp_path / "schema.json"), str(sdk)], tmp_path)
    package = json.loads((sdk / "package.json").read_text())
    package["version"] = "0.1.0"  # gen-sdk leaves a placeholder for the release to fill in
    (sdk / "package.json").write_text(json.dumps(package, indent=2))

    _run(["npm", "install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"], sdk)
    _run(["npx", "--no-install", "tsc"], sdk)  # the SDK itself, with its generated tsconfig (strict)
    assert (sdk / "bin" / "trainingJob.js").exists() and (sdk / "bin" / "jobsAwait.d.ts").exists()

    (sdk / "program.ts").write_text(PROGRAM)
    _run(["npx", "--no-install", "tsc", "--noEmit", "--strict", "--skipLibCheck", "--target", "ES2022",
          "--module", "nodenext", "--moduleResolution", "nodenext", "--types", "node", "program.ts"], sdk)

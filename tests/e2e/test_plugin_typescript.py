"""The provider plugin from TypeScript: its schema, read from the running plugin by the engine, generates a Node.js
SDK (modelarts-sdkgen: the CLI's own code generator) that compiles with tsc, and a program using it type-checks.

The outputs the schema names always set (a resource's `required` outputs) are plain `Output<string>` (`Output<number>`, ...): a
program compiled with `"strict": true` uses a job's id, name and phase without `?? ""`, and it `up`s and
`destroy`s a job from a folder outside the repository, under the real engine and its Node.js language host,
against the local ModelArts. The same program does not compile against an SDK from the schema without them.

Needs node and npm on the machine and the npm registry (@pulumi/pulumi, typescript); tests/e2e/test_plugin_languages.py
runs a TypeScript program under the engine's Node.js language host, with the installed plugin.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from testkit.faults import provider_config
from testkit.harness import REPO_ROOT, Stack, engine_bin_dir, pulumi_env
from testkit.plugin_program import PLUGIN_DIR

pytestmark = pytest.mark.engine
ALGORITHM_ID = "8d1b2f4c-5a6e-4f70-9b81-c2d3e4f5a6b7"  # in the emulator catalog
NPM = ["npm", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"]

PROGRAM = """\
import * as modelarts from "./index";

const job = new modelarts.TrainingJob("train", {
    algorithm: { id: "8d1b2f4c-5a6e-4f70-9b81-c2d3e4f5a6b7", parameters: [{ name: "epochs", value: "3" }] },
    flavorId: "modelarts.vm.cpu.2u",
    waitFor: "completed",
});
const waited = new modelarts.JobsAwait("waited", {
    jobs: { train: { jobId: job.jobId, jobName: job.jobName, waitFor: "completed" } },
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


# A team's program under `"strict": true`: the job's always-set outputs (the schema's required outputs) used as they
# are; each line marked below fails to compile where they are typed `Output<string | undefined>`.
STRICT_PROGRAM = """\
import * as pulumi from "@pulumi/pulumi";
import * as modelarts from "{sdk}";

const job = new modelarts.TrainingJob("train", {{
    algorithm: {{ id: "{algorithm}", parameters: [{{ name: "epochs", value: "1" }}] }},
    flavorId: "modelarts.vm.cpu.2u",
    pollIntervalSeconds: 0.2,
}});
const jobId: pulumi.Output<string> = job.jobId;                        // strict: fails unless always set
const jobName: pulumi.Output<string> = job.jobName;                    // strict: fails unless always set
const waited = new modelarts.JobsAwait("waited", {{
    jobs: {{ train: {{ jobId, jobName, waitFor: "running", pollSeconds: 0.2 }} }},
}});
// @ts-expect-error startTime is unset until the job starts: it stays optional
const started: pulumi.Output<string> = job.startTime;

export const id = jobId;
export const nameLength = job.jobName.apply(name => name.length);      // strict: fails unless always set
export const phase = job.phase.apply(p => p.toLowerCase());            // strict: fails unless always set
export const region = job.location.apply(where => where["region"]);    // strict: fails unless always set
export const nodes: pulumi.Output<number> = job.nodeCount; // a default, recorded: strict: fails unless always set
export const phases = waited.phases;
"""


def _strict_tsconfig(program: str) -> str:
    return json.dumps({"compilerOptions": {"strict": True, "target": "ES2020", "module": "commonjs",
                                           "moduleResolution": "node", "skipLibCheck": True, "types": ["node"]},
                       "files": [program]})


def _run(cmd: list[str], cwd: Path, timeout: float = 600) -> str:
    proc = subprocess.run(cmd, cwd=cwd, text=True, capture_output=True, timeout=timeout)
    assert proc.returncode == 0, f"`{' '.join(cmd)}` exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


def _generated(base: Path, schema: str) -> Path:
    """The Node.js SDK of `schema` (JSON text) in base/sdk, its version the plugin's."""
    (base / "schema.json").write_text(schema)
    sdk = base / "sdk"
    _run([str(engine_bin_dir() / "modelarts-sdkgen"), str(base / "schema.json"), str(sdk)], base)
    package = json.loads((sdk / "package.json").read_text())
    package["version"] = "0.1.0"  # gen-sdk leaves a placeholder for the release to fill in
    (sdk / "package.json").write_text(json.dumps(package, indent=2))
    return sdk


@pytest.fixture(scope="module")
def sdk(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The SDK generated from the schema the running plugin serves (read by the engine), installed and compiled;
    and that schema."""
    for tool in ("node", "npm"):
        assert shutil.which(tool), f"{tool} is not on PATH: this test compiles the TypeScript SDK"
    assert (engine_bin_dir() / "modelarts-sdkgen").exists(), \
        "modelarts-sdkgen is missing: run ./dev setup (scripts/install_engine.sh builds it)"
    base = tmp_path_factory.mktemp("typescript")
    st = Stack(workdir=base, name="none", env=pulumi_env(base))
    schema = st.run("package", "get-schema", str(PLUGIN_DIR / "pulumi-resource-modelarts"), stack_flag=False).stdout
    sdk = _generated(base, schema)
    _run([*NPM, "install"], sdk)
    _run(["npx", "--no-install", "tsc"], sdk)  # the SDK itself, with its generated tsconfig (strict)
    return sdk, schema


def test_typescript_sdk_generates_and_compiles(sdk: tuple[Path, str]) -> None:
    path, schema = sdk
    assert set(json.loads(schema)["resources"]) == {f"modelarts:index:{t}" for t in
                                                    ("TrainingJob", "JobsAwait", "CodeUpload", "Bucket",
                                                     "Network", "ResourcePool")}
    assert (path / "bin" / "trainingJob.js").exists() and (path / "bin" / "jobsAwait.d.ts").exists()
    (path / "program.ts").write_text(PROGRAM)
    _run(["npx", "--no-install", "tsc", "--noEmit", "--strict", "--skipLibCheck", "--target", "ES2022",
          "--module", "nodenext", "--moduleResolution", "nodenext", "--types", "node", "program.ts"], path)


def _compile_strict(project: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["npx", "--no-install", "tsc", "--noEmit", "-p", "."], cwd=project, text=True,
                          capture_output=True, timeout=600)


def test_strict_program_needs_the_required_outputs(sdk: tuple[Path, str], tmp_path: Path) -> None:
    """Against an SDK from the same schema without its required outputs (every output `Output<T | undefined>`, as
    before they were in it), the strict program is refused at each line that uses an always-set output as it is."""
    path, schema = sdk
    loose = json.loads(schema)
    for spec in loose["resources"].values():
        spec.pop("required", None)
    generated = _generated(tmp_path, json.dumps(loose))
    (generated / "node_modules").symlink_to(path / "node_modules")  # the same @pulumi/pulumi and typescript
    program = STRICT_PROGRAM.format(sdk="./index", algorithm=ALGORITHM_ID)
    (generated / "program.ts").write_text(program)
    (generated / "tsconfig.json").write_text(_strict_tsconfig("program.ts"))
    refused = _compile_strict(generated)
    assert refused.returncode != 0
    lines = sorted({int(line.split("(", 1)[1].split(",", 1)[0]) for line in refused.stdout.splitlines()
                    if line.startswith("program.ts(")})
    marked = [n for n, line in enumerate(program.splitlines(), 1) if "strict: fails unless always set" in line]
    assert lines == marked and len(marked) == 6, refused.stdout


@pytest.fixture
def emu(tmp_path: Path) -> Iterator[Any]:
    from modelarts_emulator.testing import running_emulator

    with running_emulator(tmp_path / "emulator", run_seconds=600, phase_seconds=0.2) as e:
        yield e


def test_strict_program_ups_and_destroys_a_job_from_outside_the_repository(
        sdk: tuple[Path, str], tmp_path: Path, emu: Any) -> None:
    path, _schema = sdk
    for name in ("package.json", "README.md"):  # what a release publishes: the compiled bin/ with its manifest
        shutil.copy(path / name, path / "bin" / name)
    tarball = path / _run([*NPM, "pack", "--pack-destination", str(path)], path / "bin").split()[-1]
    project = tmp_path / "ts-strict"
    project.mkdir()
    assert REPO_ROOT not in project.parents
    installed = json.loads((path / "package.json").read_text())
    pulumi_sdk = json.loads((path / "node_modules" / "@pulumi" / "pulumi" / "package.json").read_text())["version"]
    (project / "package.json").write_text(json.dumps({
        "name": "ts-strict", "private": True, "main": "index.ts",
        "dependencies": {"@modelarts/pulumi": f"file:{tarball}", "@pulumi/pulumi": pulumi_sdk},
        "devDependencies": {"typescript": installed["devDependencies"]["typescript"], "@types/node": "^20"}}))
    (project / "tsconfig.json").write_text(_strict_tsconfig("index.ts"))
    (project / "index.ts").write_text(STRICT_PROGRAM.format(sdk="@modelarts/pulumi", algorithm=ALGORITHM_ID))
    (project / "Pulumi.yaml").write_text(f"name: ts-strict\nruntime: nodejs\nplugins:\n  providers:\n"
                                         f"    - name: modelarts\n      path: {PLUGIN_DIR}\n")
    _run([*NPM, "install"], project)
    compiled = _compile_strict(project)
    assert compiled.returncode == 0, compiled.stdout + compiled.stderr

    assert (engine_bin_dir() / "pulumi-language-nodejs").exists(), "run ./dev setup: it builds the Node.js host"
    st = Stack(workdir=project, name="test", env=pulumi_env(tmp_path))
    st.init()
    st.set_all_config(*provider_config(emu))
    st.up()
    out = st.outputs()
    (job,) = emu.jobs()
    assert out["id"] == job["metadata"]["id"] and out["nameLength"] == len(job["metadata"]["name"])
    assert out["phase"] == "creating"  # the phase the create saw, recorded with the job
    assert (out["region"], out["nodes"], out["phases"]) == ("cn-north-4", 1, {"train": "Running"})
    st.destroy()
    assert emu.jobs() == []

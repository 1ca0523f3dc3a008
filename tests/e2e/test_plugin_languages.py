"""TypeScript and Go programs run with the installed plugin, from a folder outside the repository, as
docs/install.md says: `./dev package`, `pulumi plugin install resource modelarts VERSION --file ARCHIVE` into a
fresh Pulumi home, an SDK generated from the plugin's schema (modelarts-sdkgen), then `pulumi up` and
`pulumi destroy` of a job against the local ModelArts, under the engine's own Node.js and Go language hosts
(built by `./dev setup` from Go modules, scripts/install_engine.sh).

The TypeScript program installs its SDK as a team would (`npm pack` of the compiled SDK, then `npm install`), with
@pulumi/pulumi and typescript from the npm registry. The Go program is compiled once with `go build` (the first run
compiles the Pulumi Go SDK: minutes; then Go's build cache) and the engine runs that binary (`runtime.options.binary`).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from testkit.faults import provider_config
from testkit.harness import PULUMI_VERSION, REPO_ROOT, Stack, engine_bin_dir
from tests.e2e.test_installed_package import UV, VERSION, _run, _user_env

pytestmark = [pytest.mark.engine, pytest.mark.xdist_group("installed-plugin-languages")]
ALGORITHM_ID = "8d1b2f4c-5a6e-4f70-9b81-c2d3e4f5a6b7"  # in the emulator catalog
CPU = "modelarts.vm.cpu.2u"

TS_PROGRAM = f"""\
import * as modelarts from "@modelarts/pulumi";

const job = new modelarts.TrainingJob("train", {{
    algorithm: {{ id: "{ALGORITHM_ID}", parameters: [{{ name: "epochs", value: "1" }}] }},
    flavorId: "{CPU}",
    pollIntervalSeconds: 0.2,
}});
const waited = new modelarts.JobsAwait("waited", {{
    jobs: {{ train: {{ jobId: job.jobId, jobName: job.jobName, waitFor: "running",
                     pollSeconds: 0.2 }} }},
}});
export const jobId = job.jobId;
export const phases = waited.phases;
"""

GO_PROGRAM = f"""\
package main

import (
	"example.com/pulumi-modelarts/sdk/go/modelarts"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func main() {{
	pulumi.Run(func(ctx *pulumi.Context) error {{
		job, err := modelarts.NewTrainingJob(ctx, "train", &modelarts.TrainingJobArgs{{
			FlavorId:            pulumi.String("{CPU}"),
			Algorithm:           &modelarts.AlgorithmArgArgs{{Id: pulumi.String("{ALGORITHM_ID}")}},
			PollIntervalSeconds: pulumi.Float64(0.2),
		}})
		if err != nil {{
			return err
		}}
		waited, err := modelarts.NewJobsAwait(ctx, "waited", &modelarts.JobsAwaitArgs{{
			Jobs: modelarts.AwaitedJobMap{{"train": modelarts.AwaitedJobArgs{{
				JobId: job.JobId, JobName: job.JobName, WaitFor: pulumi.String("running"),
				PollSeconds: pulumi.Float64(0.2)}}}},
		}})
		if err != nil {{
			return err
		}}
		ctx.Export("jobId", job.JobId)
		ctx.Export("phases", waited.Phases)
		return nil
	}})
}}
"""


@pytest.fixture
def emu(tmp_path: Path) -> Iterator[Any]:
    from modelarts_emulator.testing import running_emulator

    with running_emulator(tmp_path / "emulator", run_seconds=600, phase_seconds=0.2) as e:
        yield e


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """A user's folder outside the repository with the packaged plugin installed in a fresh Pulumi home."""
    base = tmp_path_factory.mktemp("user")
    assert REPO_ROOT not in base.parents
    built = _run([str(REPO_ROOT / "dev"), "package", "--out", str(base / "dist")], REPO_ROOT).stdout.split()
    archive = Path(built[1])
    venv = base / "venv"  # the user's Python, for `pulumi plugin install` only (nothing of ours installed in it)
    _run([str(UV), "venv", "--quiet", "--seed", "--python", sys._base_executable, str(venv)], base)
    env = _user_env(base, venv)
    env["PATH"] = env["PATH"] + ":" + ":".join(str(Path(shutil.which(t) or t).parent) for t in ("node", "go"))
    _run(["pulumi", "plugin", "install", "resource", "modelarts", VERSION, "--file", str(archive)], base, env)
    schema = _run(["pulumi", "package", "get-schema", "modelarts"], base, env).stdout
    assert json.loads(schema)["version"] == VERSION
    (base / "schema.json").write_text(schema)
    return base, env


def _sdk(base: Path, language: str) -> Path:
    out = base / f"sdk-{language}"
    if not out.exists():
        _run([str(engine_bin_dir() / "modelarts-sdkgen"), "--language", language, str(base / "schema.json"),
              str(out)], base)
    return out


def _up_and_destroy(project: Path, env: dict[str, str], emu: Any) -> None:
    """`pulumi up` then `pulumi destroy` of the program in `project`; the job lives in the service in between."""
    st = Stack(workdir=project, name="test", env=env)
    st.run("stack", "init", "test", stack_flag=False)
    st.set_all_config(*provider_config(emu))
    st.up()
    out = st.outputs()
    assert out["phases"] == {"train": "Running"}, out
    assert out["jobId"] in {j["metadata"]["id"] for j in emu.jobs()}, out
    (job,) = [r for r in st.resources() if r["type"] == "modelarts:index:TrainingJob"]
    assert job["inputs"]["flavorId"] == CPU
    st.destroy()
    assert emu.jobs() == []


def test_typescript_program_runs_with_the_installed_plugin(installed: tuple[Path, dict[str, str]], emu: Any):
    base, env = installed
    assert (engine_bin_dir() / "pulumi-language-nodejs").exists(), "run ./dev setup: it builds the Node.js host"
    sdk = _sdk(base, "nodejs")
    package = json.loads((sdk / "package.json").read_text())
    package["version"] = VERSION  # gen-sdk leaves a placeholder for the release to fill in
    (sdk / "package.json").write_text(json.dumps(package, indent=2))
    npm = ["npm", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"]
    _run([*npm, "install"], sdk, env)
    _run(["npx", "--no-install", "tsc"], sdk, env)
    for name in ("package.json", "README.md"):  # what a release publishes: the compiled bin/ with its manifest
        shutil.copy(sdk / name, sdk / "bin" / name)
    packed = _run([*npm, "pack", "--pack-destination", str(sdk)], sdk / "bin", env).stdout.split()[-1]
    tarball = sdk / packed

    project = base / "ts-jobs"
    project.mkdir()
    pulumi_sdk = json.loads((sdk / "node_modules" / "@pulumi" / "pulumi" / "package.json").read_text())["version"]
    (project / "package.json").write_text(json.dumps({
        "name": "ts-jobs", "private": True, "main": "index.ts",
        "dependencies": {"@modelarts/pulumi": f"file:{tarball}", "@pulumi/pulumi": pulumi_sdk},
        "devDependencies": {"typescript": package["devDependencies"]["typescript"], "@types/node": "^20"}}))
    (project / "tsconfig.json").write_text(json.dumps({"compilerOptions": {
        "strict": True, "target": "ES2020", "module": "commonjs", "moduleResolution": "node", "skipLibCheck": True},
        "files": ["index.ts"]}))
    (project / "index.ts").write_text(TS_PROGRAM)
    (project / "Pulumi.yaml").write_text("name: ts-jobs\nruntime: nodejs\n")  # no plugin path: the installed one
    _run([*npm, "install"], project, env)
    _up_and_destroy(project, env, emu)


def test_go_program_runs_with_the_installed_plugin(installed: tuple[Path, dict[str, str]], emu: Any):
    base, env = installed
    assert (engine_bin_dir() / "pulumi-language-go").exists(), "run ./dev setup: it builds the Go host"
    module = base / "go-jobs"  # the generator's import path: example.com/pulumi-modelarts/sdk/go/modelarts
    (module / "sdk" / "go").mkdir(parents=True)
    shutil.copytree(_sdk(base, "go") / "modelarts", module / "sdk" / "go" / "modelarts")
    (module / "go.mod").write_text(f"module example.com/pulumi-modelarts\n\ngo 1.25\n\n"
                                   f"require github.com/pulumi/pulumi/sdk/v3 v{PULUMI_VERSION}\n")
    (module / "main.go").write_text(GO_PROGRAM)
    go_env = {**env, "GOFLAGS": "-mod=mod", "HOME": str(Path.home())}  # Go's module and build caches
    subprocess.run(["go", "mod", "tidy"], cwd=module, env=go_env, check=True, capture_output=True, timeout=900)
    _run(["go", "build", "-p", "1", "-trimpath", "-o", str(module / "go-jobs"), "."], module, go_env, timeout=1800)
    (module / "Pulumi.yaml").write_text("name: go-jobs\nruntime:\n  name: go\n  options:\n    binary: ./go-jobs\n")
    _up_and_destroy(module, env, emu)

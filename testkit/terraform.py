"""Terraform's official Huawei Cloud provider (built by scripts/terraform_provider.sh) against a local ModelArts,
every request it makes recorded on the way (issue 57).

    with running_emulator(tmp, **EMULATOR_FLAGS) as emu, recording_proxy(emu.url) as proxy:
        run = run_scenario("training_jobs", 2, tmp / "work", provider_config(), proxy, emu)
        run.ok, run.steps                 # init, apply, plan, the update applied, plan, destroy: rc and seconds
        proxy.exchanges                   # what the provider asked and was answered, step by step

scripts/terraform_record.py writes the fixtures (`fixture`); tests/terraform runs the same end to end.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from testkit.recording_proxy import Exchange, RecordingProxy, recording_proxy
from testkit.terraform_hcl import networks_config, pools_config, provider_block, training_jobs_config

__all__ = ["EMULATOR_FLAGS", "SCENARIOS", "Terraform", "fixture", "provider_config", "recording_proxy", "run_scenario"]

REPO = Path(__file__).resolve().parents[1]
PROVIDER_SCRIPT = REPO / "scripts" / "terraform_provider.sh"
# What the fixtures hold in place of the local ModelArts' project id (made up too, but one name for every recording).
PROJECT_PLACEHOLDER = "{project_id}"


def provider_config() -> Path | None:
    """The Terraform CLI config that installs the built provider from its cache (scripts/terraform_provider.sh);
    None when it is not built (never built from here: that takes about 15 minutes)."""
    if subprocess.run([str(PROVIDER_SCRIPT), "--check"], capture_output=True).returncode != 0:
        return None
    out = subprocess.run([str(PROVIDER_SCRIPT), "--print"], capture_output=True, text=True, check=True).stdout
    return Path(out.strip())


def provider_version() -> str:
    for line in (REPO / "scripts" / "versions.env").read_text().splitlines():
        if line.startswith("TERRAFORM_HUAWEICLOUD_VERSION="):
            return line.split("=", 1)[1].strip()
    raise LookupError("scripts/versions.env pins no TERRAFORM_HUAWEICLOUD_VERSION")


@dataclass
class Step:
    command: str
    seconds: float
    rc: int
    output: str


class Terraform:
    """terraform in `workdir`, offline: the provider from its cache only, no checkpoint calls, credentials in env."""

    def __init__(self, workdir: Path, cli_config: Path, access_key: str, secret_key: str) -> None:
        self.workdir = workdir
        workdir.mkdir(parents=True, exist_ok=True)
        self.env = {**os.environ, "TF_CLI_CONFIG_FILE": str(cli_config), "TF_IN_AUTOMATION": "1",
                    "CHECKPOINT_DISABLE": "1", "HW_ACCESS_KEY": access_key, "HW_SECRET_KEY": secret_key}
        for name in ("HW_PROJECT_ID", "HW_REGION_NAME", "HW_SECURITY_TOKEN", "TF_LOG", "TF_PLUGIN_CACHE_DIR"):
            self.env.pop(name, None)

    def write(self, text: str) -> None:
        (self.workdir / "main.tf").write_text(text)

    def run(self, *args: str, timeout: float = 1800) -> Step:
        start = time.monotonic()
        done = subprocess.run(["terraform", *args, "-no-color"], cwd=self.workdir, env=self.env,
                              capture_output=True, text=True, timeout=timeout)
        return Step(" ".join(args), round(time.monotonic() - start, 1), done.returncode, done.stdout + done.stderr)

    def init(self) -> Step:
        return self.run("init", "-input=false")

    def apply(self) -> Step:
        return self.run("apply", "-auto-approve", "-input=false")

    def plan(self) -> Step:
        """`plan -detailed-exitcode`: rc 0 no changes, 2 changes, 1 an error."""
        return self.run("plan", "-detailed-exitcode", "-input=false")

    def destroy(self) -> Step:
        return self.run("destroy", "-auto-approve", "-input=false")


# The local ModelArts of every recording and of its replay: phases long enough that no poll of the provider
# (10 s after a create, then every 20 s) lands near a change of phase, so the replay, which moves the emulator's
# clock to each recorded request's time, meets the same phases. A job runs for an hour: it is Running throughout.
EMULATOR_FLAGS: dict[str, Any] = {"phase_seconds": 3, "run_seconds": 3600, "delete_seconds": 3,
                                  "network_seconds": 3, "pool_seconds": 3}


@dataclass
class Scenario:
    """What terraform applies first, and the in-place update applied after it (jobs: description and tags;
    networks: peer connections; pools: description and node count)."""

    created: Callable[[int], str]  # (count) -> the resources' HCL
    updated: Callable[[int], str]


SCENARIOS: dict[str, Scenario] = {
    "training_jobs": Scenario(
        created=lambda n: training_jobs_config(n, "created by terraform", {"team": "vision", "stage": "dev"}),
        updated=lambda n: training_jobs_config(n, "updated by terraform", {"team": "speech", "owner": "ml-platform"})),
    # a network's only in-place change: its peer connections
    "networks": Scenario(created=lambda n: networks_config(n, 0), updated=lambda n: networks_config(n, 1)),
    "resource_pools": Scenario(created=lambda n: pools_config(n, "created by terraform", 1),
                               updated=lambda n: pools_config(n, "updated by terraform", 2)),
}


@dataclass
class ScenarioRun:
    steps: list[Step] = field(default_factory=list)
    ok: bool = True


def run_scenario(name: str, count: int, workdir: Path, cli_config: Path, proxy: RecordingProxy, emu: Any) -> ScenarioRun:
    """init, apply, plan (no changes), the update applied, plan (no changes), destroy: each step recorded under its
    name (proxy.step). Stops at the first command that fails or plan that finds changes (run.ok False)."""
    scenario, run = SCENARIOS[name], ScenarioRun()
    form = Terraform(workdir, cli_config, emu.access_key, emu.secret_key)
    head = provider_block(proxy.url, emu.project_id, provider_version())
    steps = [("init", scenario.created, Terraform.init), ("apply", scenario.created, Terraform.apply),
             ("plan", scenario.created, Terraform.plan), ("update", scenario.updated, Terraform.apply),
             ("plan-after-update", scenario.updated, Terraform.plan), ("destroy", scenario.updated, Terraform.destroy)]
    for label, config, command in steps:
        form.write(head + config(count))
        proxy.step = label
        step = command(form)
        run.steps.append(step)
        if step.rc != 0:  # a plan's 2: it found changes
            run.ok = False
            break
    return run


def fixture(name: str, run: ScenarioRun, exchanges: list[Exchange], emu: Any, terraform_version: str) -> dict[str, Any]:
    """The recording as tests/fixtures/terraform keeps it: the project id a placeholder, and never a credential
    (the proxy keeps no header; this refuses to write a body that would carry one)."""
    text = json.dumps([e.model_dump() for e in sorted(exchanges, key=lambda e: e.at_s)])
    for secret in (emu.access_key, emu.secret_key):
        if secret in text:
            raise ValueError(f"a credential is in the recorded bodies of {name}")
    return {
        "recorded_with": f"terraform {terraform_version}, registry.terraform.io/huaweicloud/huaweicloud "
                         f"{provider_version()} (scripts/terraform_provider.sh), scripts/terraform_record.py",
        "emulator_flags": EMULATOR_FLAGS,
        "steps": [{"command": s.command, "rc": s.rc} for s in run.steps],
        "exchanges": json.loads(text.replace(emu.project_id, PROJECT_PLACEHOLDER)),
    }

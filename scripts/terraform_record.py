"""Terraform's official Huawei Cloud provider end to end against a local ModelArts, recorded (issue 57).

    scripts/terraform_provider.sh                                   # once: builds the provider (about 15 min)
    .venv/bin/python scripts/terraform_record.py                    # every scenario, fixtures rewritten
    .venv/bin/python scripts/terraform_record.py jobs --count 20 --no-write   # figures only, 20 jobs

Each scenario runs terraform init, apply, plan (no changes expected), an in-place update, plan again, destroy, on
a fresh local ModelArts (testkit.terraform.EMULATOR_FLAGS) behind a recording proxy, and prints one line per
command with its time. The requests and answers go to tests/fixtures/terraform/<scenario>.json (no header is
kept: no key, signature or token; the project id is a placeholder), which tests/emulator/test_terraform_replay.py
replays. A command that fails, or a plan that finds changes, stops the scenario with terraform's output.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script: the repository's packages

from modelarts_emulator.testing import running_emulator  # noqa: E402
from testkit import terraform as tf  # noqa: E402

FIXTURES = tf.REPO / "tests" / "fixtures" / "terraform"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("scenarios", nargs="*", default=list(tf.SCENARIOS), choices=list(tf.SCENARIOS))
    parser.add_argument("--count", type=int, default=1, help="resources per scenario (jobs: training jobs)")
    parser.add_argument("--no-write", action="store_true", help="figures only: leave the fixtures as they are")
    args = parser.parse_args()
    cli_config = tf.provider_config()
    if cli_config is None:
        print("the provider is not built: run scripts/terraform_provider.sh first", file=sys.stderr)
        return 1
    version = subprocess.run(["terraform", "version", "-json"], capture_output=True, text=True, check=True).stdout
    for name in args.scenarios:
        with tempfile.TemporaryDirectory(prefix=f"tf-{name}-") as tmp, \
                running_emulator(Path(tmp) / "emulator", **tf.EMULATOR_FLAGS) as emu, \
                tf.recording_proxy(emu.url) as proxy:
            run = tf.run_scenario(name, args.count, Path(tmp) / "work", cli_config, proxy, emu)
            for step in run.steps:
                print(f"{name} x{args.count}: terraform {step.command}: rc {step.rc} in {step.seconds} s", flush=True)
            if not run.ok:
                print(run.steps[-1].output, file=sys.stderr)
                return 1
            if not args.no_write:
                fixture = tf.fixture(name, run, proxy.exchanges, emu, json.loads(version)["terraform_version"])
                FIXTURES.mkdir(parents=True, exist_ok=True)
                (FIXTURES / f"{name}.json").write_text(json.dumps(fixture, indent=1) + "\n")
                print(f"{name}: {len(proxy.exchanges)} requests -> {FIXTURES / (name + '.json')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

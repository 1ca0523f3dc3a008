"""The docs, each checked by running it. The Library-use example of docs/jobs.md runs under Pulumi's
mocks with each dynamic resource's inputs through its provider's real check (tests/bad_input/in_process.py);
the names the docs list import; the OBS emulator's flag table is its `--help`; `./dev up`'s closing hint
names the commands that come next."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.bad_input.conftest import OFFLINE, SECRET_KEYS
from tests.bad_input.in_process import run_program

REPO = Path(__file__).resolve().parents[2]
JOBS_PAGE = (REPO / "docs" / "jobs.md").read_text()  # the page with the library-use example
TRAINING_JOB = "pulumi-python:dynamic/modelarts:TrainingJob"
JOBS_AWAIT = "pulumi-python:dynamic/modelarts:JobsAwait"


def library_use_example() -> str:
    """The first ```python block after "Library use" in docs/jobs.md."""
    tail = JOBS_PAGE.split("Library use", 1)[1]
    found = re.search(r"```python\n(.*?)```", tail, re.S)
    assert found, "docs/jobs.md: no python block after 'Library use'"
    return found[1]


def _run(tmp_path: Path, source: str) -> tuple[str, list[str]]:
    (tmp_path / "__main__.py").write_text(source)
    (tmp_path / "Pulumi.yaml").write_text("name: library-use\nruntime: python\n")
    message, mocks = run_program(tmp_path / "__main__.py", OFFLINE, set(SECRET_KEYS), cwd=tmp_path,
                                 project="library-use")
    return message, mocks.types


def test_the_library_use_example_runs_and_each_job_passes_check(tmp_path: Path) -> None:
    message, types = _run(tmp_path, library_use_example())
    assert message == ""
    assert types.count(TRAINING_JOB) == 2 and types.count(JOBS_AWAIT) == 1


def test_parameters_at_the_top_level_are_refused(tmp_path: Path) -> None:
    """The docs' old form: what the fix was about, so the check above is not vacuous."""
    source = library_use_example().replace('"parameters": {"lr": lr}}', "}").replace(
        '"flavor_id"', '"parameters": {"lr": lr}, "flavor_id"')
    assert source != library_use_example()
    message, _ = _run(tmp_path, source)
    assert message.startswith("parameters: ") and "not a known field" in message


@pytest.mark.parametrize("name", ["TrainingJob", "JobsAwait", "await_jobs", "CodeUpload", "Bucket",
                                  "TrainingJobArgs", "CodeUploadProvider", "BucketProvider", "Network", "ResourcePool"])
def test_the_readme_names_import_from_the_package(name: str) -> None:
    import modelarts_provider

    assert name in modelarts_provider.__all__
    assert getattr(modelarts_provider, name).__name__ == name
    namespace: dict[str, object] = {}
    exec(f"from modelarts_provider import {name}", namespace)  # the form the docs show
    assert namespace[name] is getattr(modelarts_provider, name)


def _help_flags() -> dict[str, str]:
    out = subprocess.run([sys.executable, "-m", "obs_emulator", "--help"], cwd=REPO, text=True,
                         capture_output=True, check=True, env={**os.environ, "COLUMNS": "400"}).stdout
    flags: dict[str, str] = {}
    for flag, rest in re.findall(r"^  (--[a-z-]+)(.*(?:\n {10,}.*)*)", out, re.M):
        if flag != "--help":
            found = re.search(r"\(default: (.*?)\)\s*$", " ".join(rest.split()))
            flags[flag] = found[1] if found else ""
    return flags


def _readme_flags() -> dict[str, str]:
    text = (REPO / "obs_emulator" / "README.md").read_text()
    return {m[1]: m[2] for m in re.finditer(r"^\| `(--[a-z-]+)` \| ([^|]*?) \|", text, re.M)}


def test_the_obs_emulator_readme_lists_every_flag_with_its_default() -> None:
    helped, documented = _help_flags(), _readme_flags()
    assert list(documented) == list(helped)  # every flag, in --help's order
    for flag, default in helped.items():
        shown = documented[flag].strip("`")
        expected = {"False": "off", "None": "none", "0.0": "0"}.get(default, default)
        assert shown == expected, f"{flag}: README says {documented[flag]}, --help {default}"


def test_dev_up_closing_hint_names_logs_and_stack_output() -> None:
    dev = (REPO / "dev").read_text()
    hint = next(line for line in dev.splitlines() if 'echo "The emulator keeps running' in line)
    assert "./dev logs <job key>" in hint and "./dev pulumi stack output" in hint

"""Bad-input suite: invalid stack configs and TrainingJob args, each refused with exactly the case's
message (tests/bad_input/*_cases.py), by the code that makes it, in this process.

The repository's stack program and a one-resource args program run under Pulumi's mocks, with every
dynamic resource's inputs through its provider's real `check` (tests/bad_input/in_process.py), and no
connection allowed (zero API calls). tests/bad_input/test_engine_paths.py shows, through real `pulumi
preview`s, that each kind of message path prints exactly this line; tests/bad_input/test_case_table.py
checks the table itself (every field covered, no message quoting a pattern or listing a union's branches).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.bad_input.args_cases import ARGS_CASES
from tests.bad_input.conftest import (ARGS_PROJECT, OFFLINE, SECRET_KEYS, valid_args_config,
                                      valid_stack_config)
from tests.bad_input.in_process import REFUSED, run_program
from tests.bad_input.mutations import Case
from tests.bad_input.stack_cases import STACK_CASES
from testkit.faults import PROJECT


def stack_refusal(project_dir: Path, config: dict[str, Any]) -> str:
    message, _ = run_program(project_dir / "__main__.py", config, SECRET_KEYS & set(config), cwd=project_dir,
                             project=PROJECT)
    return message


def args_refusal(project_dir: Path, config: dict[str, Any]) -> str:
    message, _ = run_program(project_dir / "args.py", config, SECRET_KEYS & set(config), cwd=project_dir,
                             project=ARGS_PROJECT)
    return message


def test_the_valid_configs_are_accepted(project_dir: Path) -> None:
    """So that every refusal below is the case's own."""
    message, mocks = run_program(project_dir / "__main__.py", valid_stack_config(OFFLINE), SECRET_KEYS,
                                 cwd=project_dir, project=PROJECT)
    assert message == ""
    # the stack's owner seed first (one RandomPassword, not a resource per job): in the state before any POST
    assert mocks.types == ["random:index/randomPassword:RandomPassword", "pulumi-python:dynamic/modelarts:TrainingJob",
                           "pulumi-python:dynamic/modelarts:JobsAwait"]
    message, mocks = run_program(project_dir / "args.py", valid_args_config(OFFLINE), SECRET_KEYS,
                                 cwd=project_dir, project=ARGS_PROJECT)
    assert message == "" and mocks.types == ["random:index/randomPassword:RandomPassword",
                                             "pulumi-python:dynamic/modelarts:TrainingJob"]


@pytest.mark.parametrize("case", STACK_CASES, ids=[c.id for c in STACK_CASES])
def test_bad_stack_config(project_dir: Path, case: Case) -> None:
    cfg = valid_stack_config(OFFLINE)
    case.mutate(cfg)
    attempts = len(REFUSED)
    assert stack_refusal(project_dir, cfg) == case.message
    assert len(REFUSED) == attempts, "a connection was attempted: bad input is refused before any API call"


@pytest.mark.parametrize("case", ARGS_CASES, ids=[c.id for c in ARGS_CASES])
def test_bad_resource_args(project_dir: Path, case: Case) -> None:
    cfg = valid_args_config(OFFLINE)
    case.mutate(cfg["case:args"])
    attempts = len(REFUSED)
    assert args_refusal(project_dir, cfg) == case.message
    assert len(REFUSED) == attempts, "a connection was attempted: bad input is refused before any API call"

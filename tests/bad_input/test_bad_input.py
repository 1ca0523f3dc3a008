"""Bad-input suite: invalid stack configs and TrainingJob args, each run through a real `pulumi preview`
of one stack (reconfigured per case by rewriting its config file; the encrypted secret key stays).

Each case: non-zero exit; exactly the case's message (tests/bad_input/*_cases.py); no Python
traceback; zero API calls (emulator counters). tests/bad_input/test_case_table.py checks the table
itself: every field covered, no message quoting a pattern or listing a union's branches.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.bad_input.args_cases import ARGS_CASES, VALID_ARGS
from tests.bad_input.mutations import Case
from tests.bad_input.stack_cases import STACK_CASES
from tests.e2e.harness import REPO_ROOT, Stack, new_stack
from tests.faults.kit import (FAST_EMULATOR, PROJECT, TRACEBACK_RE, job, job_stack, output_of, provider_config,
                              read_config, replace_config, update_config)

# A check failure of a resource: "... resource 'direct': property node_count value {-1} has a problem: <reason>"
PROPERTY_RE = re.compile(r"resource '[^']*': property (\S+) value .*? has a problem: (.*)$")
ENGINE_LINES = ("an unhandled error occurred", "preview failed")


def refusal(output: str) -> str:
    """The refusal as the user reads it under `Diagnostics:`: each `error:` line's text (a resource's
    check failure as `<property>: <reason>`), joined by '; '."""
    diagnostics = output.split("Diagnostics:", 1)[1] if "Diagnostics:" in output else output
    texts: list[str] = []
    for line in diagnostics.splitlines():
        text = line.strip()
        if not text.startswith("error: ") or any(e in text for e in ENGINE_LINES):
            continue
        text = text.removeprefix("error: ")
        found = PROPERTY_RE.search(text)
        texts.append(f"{found[1]}: {found[2]}" if found else text)
    return "; ".join(dict.fromkeys(texts))


def _ids(cases: list[Case]) -> list[str]:
    return [c.id for c in cases]


@pytest.fixture(scope="module")
def emu(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from modelarts_emulator.testing import running_emulator

    with running_emulator(tmp_path_factory.mktemp("emulator"), **FAST_EMULATOR) as e:
        yield e


def _check_refused(st: Stack, emu: Any, case: Case) -> None:
    before = emu.counters()
    proc = st.preview(check=False)
    after = emu.counters()
    out = output_of(proc)
    assert proc.returncode != 0, f"preview accepted the bad input:\n{out}"
    assert after["total"] == before["total"], f"preview made API calls: {before} -> {after}"
    assert not TRACEBACK_RE.search(out), f"a Python traceback in the output:\n{out}"
    assert refusal(out) == case.message, f"not the expected message:\n{out}"


def _preview_clean(st: Stack, emu: Any) -> None:
    """The valid config previews cleanly and without API calls (so every failure below is the case's)."""
    before = emu.counters()["total"]
    st.preview()
    assert emu.counters()["total"] == before


# --- stack config --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def config_stack(tmp_path_factory: pytest.TempPathFactory, emu: Any, pulumi_engine: Path) -> tuple[Stack, dict]:
    st = job_stack(tmp_path_factory.mktemp("stack"), emu, jobs={"a": job(name="bad-input-a")})
    valid = read_config(st)
    assert set(valid) >= {"modelarts:secretKey", f"{PROJECT}:jobs", f"{PROJECT}:pools", f"{PROJECT}:obs"}
    _preview_clean(st, emu)
    return st, valid


@pytest.mark.parametrize("case", STACK_CASES, ids=_ids(STACK_CASES))
def test_bad_stack_config(config_stack: tuple[Stack, dict], emu: Any, case: Case) -> None:
    st, valid = config_stack
    cfg = copy.deepcopy(valid)
    case.mutate(cfg)
    replace_config(st, cfg)
    _check_refused(st, emu, case)


# --- TrainingJob args used directly (the provider's check) ----------------------------------------

ARGS_PROGRAM = '''
import pulumi
from modelarts_provider import TrainingJob

args = pulumi.Config("case").require_object("args")
job = TrainingJob("direct", args)
pulumi.export("id", job.job_id)
'''


@pytest.fixture(scope="module")
def args_stack(tmp_path_factory: pytest.TempPathFactory, emu: Any, pulumi_engine: Path) -> tuple[Stack, dict]:
    plain, secrets = provider_config(emu)
    st = new_stack(tmp_path_factory.mktemp("args"), ARGS_PROGRAM, config=plain, secrets=secrets)
    st.env["PYTHONPATH"] = str(REPO_ROOT)
    update_config(st, {"case:args": VALID_ARGS})
    _preview_clean(st, emu)
    return st, read_config(st)


@pytest.mark.parametrize("case", ARGS_CASES, ids=_ids(ARGS_CASES))
def test_bad_resource_args(args_stack: tuple[Stack, dict], emu: Any, case: Case) -> None:
    st, valid = args_stack
    cfg = copy.deepcopy(valid)
    case.mutate(cfg["case:args"])
    replace_config(st, cfg)
    _check_refused(st, emu, case)

"""What only the engine shows: one real `pulumi preview` per kind of message path, each refused with exactly
the line the in-process run gives (tests/bad_input/test_bad_input.py checks every case that way), with zero
API calls (emulator counters) and no Python traceback.

Paths: the stack program's own validation (a `pulumi.RunError`), a provider's `check` (a `CheckFailure`
printed as `property X value {...} has a problem: ...`), a provider's configuration (the library used
without the stack program, so the provider, not the program, finds the bad setting), and a secret config
value refused without its value being printed anywhere.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.bad_input.args_cases import ARGS_CASES
from tests.bad_input.conftest import (ARGS_PROGRAM, ARGS_PROJECT, OFFLINE, SECRET_KEYS, provider_settings,
                                      valid_args_config, valid_stack_config)
from tests.bad_input.in_process import run_program
from tests.bad_input.stack_cases import STACK_CASES
from testkit.harness import REPO_ROOT, Stack, new_stack
from testkit.faults import FAST_EMULATOR, PROJECT, TRACEBACK_RE, output_of, read_config, replace_config

# One xdist group: the module's cases run on one worker, so its two stacks (a module fixture: init, config and a
# clean preview each) are made once, not once per worker the cases would otherwise be spread over.
pytestmark = pytest.mark.xdist_group("bad-input-engine-paths")
# A check failure of a resource: "... resource 'direct': property node_count value {-1} has a problem: <reason>"
PROPERTY_RE = re.compile(r"resource '[^']*': property (\S+) value .*? has a problem: (.*)$")
# ... and one whose path is no top-level input, its path leading the reason (core/failures.for_engine):
# "... resource 'direct' has a problem: <path>: <reason>"
RESOURCE_RE = re.compile(r"resource '[^']*' has a problem: (.*)$")
ENGINE_LINES = ("an unhandled error occurred", "preview failed")
SECRET_TEXT = "mnist-but-kept-secret"


def refusal(output: str) -> str:
    """The refusal as the user reads it under `Diagnostics:`: each `error:` line's text (a resource's
    check failure as `<property>: <reason>`), joined by '; '. A multi-line error (one error per line)
    prints its further lines indented under its `error:` line, without the prefix: they are kept,
    joined by newlines, as `str()` of the program's RunError has them."""
    diagnostics = output.split("Diagnostics:", 1)[1] if "Diagnostics:" in output else output
    texts: list[str] = []
    continued = False
    for line in diagnostics.splitlines():
        text = line.strip()
        if continued and text and line.startswith("    ") and not text.startswith(("error: ", "warning: ")):
            texts[-1] += "\n" + text
            continue
        continued = False
        if not text.startswith("error: ") or any(e in text for e in ENGINE_LINES):
            continue
        text = text.removeprefix("error: ")
        found, whole = PROPERTY_RE.search(text), RESOURCE_RE.search(text)
        texts.append(f"{found[1]}: {found[2]}" if found else whole[1] if whole else text)
        continued = True
    return "; ".join(dict.fromkeys(texts))


def _case(cases: list[Any], case_id: str) -> Any:
    return next(c for c in cases if c.id == case_id)


@dataclass(frozen=True)
class MessagePath:
    """One kind of message path: which program, how the valid config is made bad, the exact line."""

    id: str
    program: str  # "stack" | "args"
    mutate: Any
    message: str
    secrets: frozenset[str] = frozenset()


def _set(**values: Any) -> Any:
    def mutate(cfg: dict[str, Any]) -> None:
        cfg.update(values)
    return mutate


NODES_FLOAT = _case(STACK_CASES, "nodes-float")
NODE_COUNT = _case(ARGS_CASES, "args-node-count-negative")

PATHS = [
    MessagePath("program-validation", "stack", NODES_FLOAT.mutate, NODES_FLOAT.message),
    MessagePath("provider-check", "args", lambda cfg: NODE_COUNT.mutate(cfg["case:args"]), NODE_COUNT.message),
    MessagePath("provider-configuration", "args", _set(**{"modelarts:cloud": "aws"}),
          "modelarts: provider configuration: modelarts:cloud must be huaweicloud or otc, not 'aws'"),
    MessagePath("secret-value", "stack", _set(**{f"{PROJECT}:jobs": SECRET_TEXT}),
          f"invalid stack config: {PROJECT}:jobs: must be a map, not a string", frozenset({f"{PROJECT}:jobs"})),
]


@pytest.fixture(scope="module")
def emu(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from modelarts_emulator.testing import running_emulator

    with running_emulator(tmp_path_factory.mktemp("emulator"), **FAST_EMULATOR) as e:
        yield e


def _stack(base: Path, emu: Any, program: str) -> Stack:
    """A stack of the program with its valid config, which previews cleanly and without API calls but the
    catalog reads."""
    settings = provider_settings(emu.url, emu.project_id, emu.access_key, emu.secret_key)
    if program == "stack":
        st, valid = new_stack(base, REPO_ROOT), valid_stack_config(settings)
    else:
        st, valid = new_stack(base, ARGS_PROGRAM, project=ARGS_PROJECT), valid_args_config(settings)
    st.env["PYTHONPATH"] = str(REPO_ROOT)
    for key in SECRET_KEYS:
        st.set_config(key, valid[key], secret=True)
    config = read_config(st)
    config.update({k: v for k, v in valid.items() if k not in SECRET_KEYS})
    replace_config(st, config)
    before = emu.counters()
    st.preview()
    after = emu.counters()
    # The new job's catalog check reads the flavors and engines (catalog_check.py); nothing else is called.
    assert after["total"] - before["total"] == (after["flavors"] - before["flavors"]) + (
        after["engines"] - before["engines"]), "the valid config's preview made API calls"
    return st


@pytest.fixture(scope="module")
def stacks(tmp_path_factory: pytest.TempPathFactory, emu: Any, pulumi_engine: Path) -> dict[str, Stack]:
    return {p: _stack(tmp_path_factory.mktemp(p), emu, p) for p in ("stack", "args")}


@pytest.mark.parametrize("path", PATHS, ids=[p.id for p in PATHS])
def test_each_message_path_prints_the_in_process_line(stacks: dict[str, Stack], emu: Any, path: MessagePath,
                                                      project_dir: Path) -> None:
    st = stacks[path.program]
    valid = read_config(st)
    cfg = copy.deepcopy(valid)
    path.mutate(cfg)
    secret = {key: cfg.pop(key) for key in path.secrets}
    replace_config(st, cfg)
    for key, value in secret.items():  # set through the CLI, encrypted, as users do it
        st.set_config(key, value, secret=True)
    try:
        before = emu.counters()
        proc = st.preview(check=False)
        after = emu.counters()
    finally:
        replace_config(st, valid)
    out = output_of(proc)
    assert proc.returncode != 0, f"preview accepted the bad input:\n{out}"
    assert after["total"] == before["total"], f"preview made API calls: {before} -> {after}"
    assert not TRACEBACK_RE.search(out), f"a Python traceback in the output:\n{out}"
    assert refusal(out) == path.message, f"not the expected line:\n{out}"
    assert SECRET_TEXT not in out
    if path.program == "stack":  # the program's line alone: no "program exited with non-zero exit code" after it
        assert not any(e in out for e in ENGINE_LINES[:1]), f"the engine's own line after ours:\n{out}"

    # The same line from the in-process run that checks every case of the table.
    offline = (valid_stack_config if path.program == "stack" else valid_args_config)(OFFLINE)
    path.mutate(offline)
    program = project_dir / ("__main__.py" if path.program == "stack" else "args.py")
    message, _ = run_program(program, offline, (SECRET_KEYS | path.secrets) & set(offline), cwd=project_dir,
                             project=PROJECT if path.program == "stack" else ARGS_PROJECT)
    assert message == path.message

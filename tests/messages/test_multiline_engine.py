"""The one real preview of issue 21 item 5: several errors, one per line, as `pulumi preview` prints them
(the further lines of a multi-line RunError come indented under its `error:` line), equal to the in-process
message; `refusal()` of tests/bad_input/test_engine_paths.py reads them back."""

from __future__ import annotations

from pathlib import Path

from tests.bad_input.conftest import OFFLINE, SECRET_KEYS
from tests.bad_input.in_process import run_program
from tests.bad_input.test_engine_paths import refusal
from testkit.faults import PROJECT, TRACEBACK_RE, job, job_stack, output_of
from testkit.harness import REPO_ROOT

JOBS = {"a": {**job(name="multi-a"), "waitfor": "completed"}, "b": {**job(name="multi-b"), "nodes": "two"}}
EXPECTED = ("invalid stack config: modelarts-jobs:jobs.a.waitfor: unknown key (did you mean waitFor?)\n"
            "invalid stack config: modelarts-jobs:jobs.b.nodes: must be a whole number, not a string 'two'")


def test_several_errors_print_one_per_line(tmp_path: Path, pulumi_engine: Path) -> None:
    plain = {k: v for k, v in OFFLINE.items() if k not in SECRET_KEYS}
    secrets = {k: v for k, v in OFFLINE.items() if k in SECRET_KEYS}
    st = job_stack(tmp_path, None, jobs=JOBS, plain=plain, secrets=secrets)
    proc = st.preview(check=False)
    out = output_of(proc)
    assert proc.returncode != 0 and not TRACEBACK_RE.search(out), out
    assert refusal(out) == EXPECTED, out
    for line in EXPECTED.splitlines():
        assert any(printed.strip().removeprefix("error: ") == line for printed in out.splitlines()), out

    config = {**OFFLINE, **{f"{PROJECT}:{k}": v for k, v in _sections(JOBS).items()}}
    message, _ = run_program(REPO_ROOT / "__main__.py", config, set(SECRET_KEYS), cwd=REPO_ROOT, project=PROJECT)
    assert message == EXPECTED


def _sections(jobs: dict) -> dict:
    from testkit.faults import OBS, POOLS

    return {"obs": OBS, "pools": POOLS, "jobs": jobs}

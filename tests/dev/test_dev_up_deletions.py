"""Issue 41: `./dev up` on a terminal asks before an update deletes anything (cli/deletions.py), and the preview
says which of the jobs waited for the update deletes (awaiting/removals.py), through the engine's diagnostics."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from modelarts_provider.awaiting.removals import removal_warning
from modelarts_provider.cli import deletions
from tests.e2e.test_training_jobs import FINISH, emu, job, make_stack, stack_config  # noqa: F401 - emu: a fixture

URN = "urn:pulumi:local::modelarts-jobs::{}::{}"
CHANGING = ("create", "delete", "terminate", "update")


def _preview(*steps: tuple[str, str, str]) -> str:
    return json.dumps({"steps": [{"op": op, "urn": URN.format(t, n)} for op, t, n in steps]})


def _fake_run(stdout: str, returncode: int = 0) -> tuple[list[list[str]], Any]:
    calls: list[list[str]] = []

    def run(cmd: list[str], **_kw: Any) -> subprocess.CompletedProcess[str]:
        calls.append(cmd)
        return subprocess.CompletedProcess(cmd, returncode, stdout, "")
    return calls, run


def test_the_deletions_are_listed_by_type_and_asked_about() -> None:
    preview = _preview(("delete", "pulumi-python:dynamic/modelarts:TrainingJob", "a"),
                       ("delete", "pulumi-python:dynamic/modelarts:TrainingJob", "b"),
                       ("delete", "pulumi-python:dynamic/modelarts:ResourcePool", "gpu"),
                       ("replace", "pulumi-python:dynamic/modelarts:TrainingJob", "c"),
                       ("same", "pulumi-python:dynamic/modelarts:JobsAwait", "jobs-await"))
    said: list[str] = []
    asked: list[str] = []
    calls, run = _fake_run(preview)
    code = deletions.confirm("local", ["--yes", "--target", "x", "--skip-preview"],
                             lambda q: asked.append(q) or "n\n", said.append, run)
    assert code == 1
    assert calls[0][1:] == ["preview", "--json", "--non-interactive", "--stack", "local", "--target", "x"]
    assert said[1:] == ["dev up: this update deletes 3 resources the program no longer declares:",
                        "  TrainingJob (2): a, b", "  ResourcePool (1): gpu",
                        "dev up: nothing done (to delete without asking: ./dev up --yes)"]
    assert asked == ["Delete them and update the stack? [y/N] "]
    assert deletions.confirm("local", [], lambda _q: "yes\n", said.append, run) == 0


def test_nothing_deleted_nothing_asked_and_a_failed_preview_stops() -> None:
    _calls, run = _fake_run(_preview(("create", "pulumi-python:dynamic/modelarts:TrainingJob", "a")))
    assert deletions.confirm("local", [], lambda _q: pytest.fail("asked"), lambda _l: None, run) == 0
    said: list[str] = []
    failed = json.dumps({"diagnostics": [{"severity": "error", "message": "invalid stack config: x\n"}]})
    _calls, run = _fake_run(failed, returncode=255)
    assert deletions.confirm("local", [], lambda _q: pytest.fail("asked"), said.append, run) == 255
    assert said[1:] == ["invalid stack config: x", "dev up: the preview failed; nothing was changed"]


def test_removal_warning_names_the_removed_jobs_with_their_phase() -> None:
    olds = {"statuses": {"a": {"job_id": "1", "phase": "Completed"}, "b": {"job_id": "2", "phase": "Running"},
                         "s": {"job_id": "3", "phase": "Completed", "search": {"trials": []}},
                         "moved": {"job_id": "4", "phase": "Completed"}}}
    assert removal_warning(olds, {"b": {"job_id": "2"}, "new-key": {"job_id": "4"}}) == (
        "warning: this update deletes 2 jobs the program no longer declares: a (Completed), s (Completed, a search)")
    assert removal_warning(olds, {k: {"job_id": v["job_id"]} for k, v in olds["statuses"].items()}) is None


@pytest.mark.engine
def test_a_job_removed_by_mistake_is_shown_and_kept_when_the_user_says_no(tmp_path: Path, emu: Any) -> None:
    jobs = {"keep": job(), "forgotten": job()}
    st = make_stack(tmp_path, emu, jobs)
    st.up()
    emu.advance(FINISH)
    st.refresh()  # the JobsAwait records both Completed
    ids = {j["metadata"]["id"] for j in emu.jobs()}
    st.write_config(stack_config({"keep": jobs["keep"]}))

    def run(cmd: list[str], **kw: Any) -> subprocess.CompletedProcess[str]:
        return subprocess.run(cmd, cwd=st.workdir, env=st.env, **kw)

    said: list[str] = []
    before = emu.counters()
    assert deletions.confirm(st.name, [], lambda _q: "n\n", said.append, run) == 1
    assert "  TrainingJob (1): forgotten" in said, said
    after = emu.counters()
    assert {k: after[k] - before[k] for k in CHANGING} == dict.fromkeys(CHANGING, 0)
    assert {j["metadata"]["id"] for j in emu.jobs()} == ids
    # the preview itself says it too, through the engine's diagnostics (both doors: the JobsAwait's diff)
    preview = st.preview()
    assert "warning: this update deletes 1 job the program no longer declares: forgotten (Completed)" in preview.stdout


def test_dev_up_skips_the_question_for_yes() -> None:
    """`./dev up --yes` / `-y` is not asked (the dev script's has_yes, run on its own)."""
    from testkit.harness import REPO_ROOT

    text = (REPO_ROOT / "dev").read_text()
    has_yes = text[text.index("has_yes() {"):text.index("\n}\n", text.index("has_yes() {")) + 3]
    assert "deletions --stack" in text and "[ -t 0 ] && ! has_yes" in text  # asked on a terminal only
    for args, said_yes in ((["--stack", "x", "-y"], True), (["--yes=true"], True), (["--yes"], True),
                           (["--target", "a"], False), ([], False)):
        run = subprocess.run(["bash", "-c", f"{has_yes}\nhas_yes \"$@\"", "bash", *args], timeout=30)
        assert (run.returncode == 0) is said_yes, args

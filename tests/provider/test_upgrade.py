"""A stack deployed by an earlier version upgrades without re-running a job or moving a file.

The fixture (fixtures/state_8d25c79.json) holds the TrainingJob records that main at 8d25c79 wrote for the
config in fixtures/stack_state.py (finished runs deleted on replacement, one output folder per key). Today
keeping finished runs and a folder per run are the default: the same config must still give no replacement
and no update on the next preview, and each job keeps its recorded name and paths; the next replacement
then gets a folder of its own.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .fixtures.stack_state import program_inputs, provider

RECORDS = json.loads((Path(__file__).parent / "fixtures" / "state_8d25c79.json").read_text())


@pytest.mark.parametrize("key", sorted(RECORDS))
def test_a_state_written_by_main_gives_no_change(key):
    olds = RECORDS[key]
    news = program_inputs()[key]
    assert "output_per_run" not in news and "keep_finished_runs" not in news  # today's defaults: unset
    p = provider()
    checked = p.check(olds, news)
    assert checked.failures == []
    assert checked.inputs["name"] == olds["name"]
    assert checked.inputs["algorithm"]["outputs"] == olds["algorithm"]["outputs"]  # no file moves
    assert checked.inputs.get("log_export_path") == olds.get("log_export_path")
    d = p.diff(olds["job_id"], olds, checked.inputs)
    # The one change: the owner mark gets the stack's key, in place (the update writes the job's proof once the
    # recorded token proved it ours: lifecycle.upgrade_proof); nothing is replaced.
    assert (d.changes, d.replaces) == (True, None)
    assert {k for k in checked.inputs if checked.inputs[k] != olds.get(k)} <= {"owner"}


def test_the_next_replacement_of_an_upgraded_job_gets_its_own_folder():
    olds = RECORDS["mnist"]
    news = program_inputs()["mnist"]
    news["algorithm"]["parameters"] = [{"name": "lr", "value": "0.02"}]
    checked = provider().check(olds, news).inputs
    run = checked["name"]
    assert run != olds["name"]
    assert checked["algorithm"]["outputs"] == [{"name": "train_url", "obs_url": f"obs://bkt/outputs/mnist/{run}/"}]
    assert checked["log_export_path"] == {"obs_url": f"obs://bkt/logs/mnist/{run}/"}


def test_a_job_named_before_keeps_its_folder_when_its_name_becomes_derived():
    """An explicit name (or an adopted job) dropped: the derived name never replaces the job by itself, so
    neither does the run folder named after it; the recorded paths stand."""
    olds = RECORDS["named"]
    news = program_inputs()["named"]
    news.pop("name")
    news["derived_name"] = True
    p = provider()
    checked = p.check(olds, news).inputs
    assert checked["algorithm"]["outputs"] == olds["algorithm"]["outputs"]
    d = p.diff(olds["job_id"], olds, checked)
    assert d.replaces is None

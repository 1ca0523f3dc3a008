"""The `runs` export (results/history.py build_runs) and `results KEY --history` (results/history.py, cli.py)."""

from __future__ import annotations

import argparse
import io
from typing import Any

import pytest

from modelarts_provider.cli.stack_reader import LogsError
from modelarts_provider.cli import results as cli
from modelarts_provider.results.history import history_lines
from modelarts_provider.results.history import build_runs

RUNS = {"mnist": [
    {"job_id": "j1", "job_name": "mnist-a1", "parameters": {"lr": "0.1"}, "phase": "Completed", "objective": 0.91,
     "output_path": "obs://bkt/out/", "create_time": "2026-01-01T00:00:00Z", "start_time": "2026-01-01T00:00:05Z",
     "duration_s": 61.0},
    {"job_id": "j2", "job_name": "mnist-b2", "parameters": {"lr": "0.2"}, "phase": "Running"},
]}


def test_the_export_names_every_run_newest_last():
    out = build_runs(RUNS)
    assert [r["jobId"] for r in out["mnist"]] == ["j1", "j2"]
    assert out["mnist"][0] == {"jobId": "j1", "name": "mnist-a1", "parameters": {"lr": "0.1"}, "phase": "Completed",
                               "objective": 0.91, "outputPath": "obs://bkt/out/", "createTime": "2026-01-01T00:00:00Z",
                               "startTime": "2026-01-01T00:00:05Z", "durationSeconds": 61.0}
    assert build_runs(None) == {}


def test_history_lines_show_each_run():
    lines = history_lines("mnist", build_runs(RUNS)["mnist"])
    assert lines[0] == "mnist: 2 runs, newest last"
    assert lines[1].split() == ["#", "name", "phase", "objective", "duration", "started", "parameters", "output"]
    assert lines[2].split()[:4] == ["1", "mnist-a1", "Completed", "0.91"] and "lr=0.1" in lines[2]
    assert "obs://bkt/out/" in lines[2]
    assert lines[3].split()[:4] == ["2", "mnist-b2", "Running", "-"]


class FakePulumi:
    stack = "dev"

    def __init__(self, outputs: dict[str, Any]) -> None:
        self.outputs = outputs

    def json(self, *_args: str) -> dict[str, Any]:
        return self.outputs


def test_history_command_reads_the_export(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(cli, "PulumiCli", lambda *_a: FakePulumi({"runs": build_runs(RUNS)}))
    out = io.StringIO()
    assert cli.run_results(argparse.Namespace(cwd=".", stack="dev", sweep="mnist", history=True, chart=None), out) == 0
    assert "mnist-a1" in out.getvalue() and "mnist-b2" in out.getvalue()
    with pytest.raises(LogsError, match=r"no runs of 'other' in the outputs of stack dev \(keys with runs: mnist"):
        cli.run_results(argparse.Namespace(cwd=".", stack="dev", sweep="other", history=True, chart=None), io.StringIO())


class FailedUpPulumi(FakePulumi):
    """A stack whose last `up` failed after its wait recorded a newer run: the state is newer than the exports."""

    def __init__(self, outputs: dict[str, Any], state_runs: dict[str, Any], init_errors: list[str]) -> None:
        super().__init__(outputs)
        self.state = {"deployment": {"resources": [
            {"urn": "urn:pulumi:dev::p::pulumi-python:dynamic/modelarts:JobsAwait::jobs-await",
             "type": "pulumi-python:dynamic/modelarts:JobsAwait", "outputs": {"runs": state_runs},
             "initErrors": init_errors}]}}

    def json(self, *args: str) -> dict[str, Any]:
        return self.state if args[:2] == ("stack", "export") else self.outputs


@pytest.mark.parametrize("failed, shown", [(["the wait failed: mnist did not reach its target"], "mnist-c3"),
                                           ([], "mnist-b2")])
def test_after_a_failed_up_the_runs_it_recorded_are_read_from_the_state(monkeypatch: pytest.MonkeyPatch,
                                                                        failed: list[str], shown: str):
    newer = {"mnist": [*RUNS["mnist"], {"job_id": "j3", "job_name": "mnist-c3", "phase": "Failed"}]}
    monkeypatch.setattr(cli, "PulumiCli", lambda *_a: FailedUpPulumi({"runs": build_runs(RUNS)}, newer, failed))
    out = io.StringIO()
    assert cli.run_results(argparse.Namespace(cwd=".", stack="dev", sweep="mnist", history=True, chart=None), out) == 0
    assert out.getvalue().splitlines()[0] == f"mnist: {3 if failed else 2} runs, newest last"
    assert shown in out.getvalue()  # the failed up's newer run, or the exports when no up failed since

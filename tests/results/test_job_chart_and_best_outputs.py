"""One job's curves, its runs' curves overlaid, and the best point's outputs (issue 56, item 3), from the
`stack output` / `stack export` documents (testkit.fake_pulumi), without the engine; options that would do
nothing are refused in one line."""

from __future__ import annotations

import argparse
import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from modelarts_provider.cli import outputs as outputs_cli
from modelarts_provider.cli import results as cli
from modelarts_provider.cli.stack_reader import LogsError
from modelarts_provider.results.chart import draw
from modelarts_provider.results.curves import curve
from testkit.fake_pulumi import FakePulumi

URN = "urn:pulumi:dev::proj::modelarts:index:{}::{}"
ACC = {"name": "acc", "regex": "acc=([0-9.]+)", "goal": "max"}
LOSS = {"name": "loss", "regex": "loss=([0-9.]+)", "goal": "min"}


def _curve(values: list[float], name: str = "acc") -> dict[str, Any]:
    text = "".join(f"{name}={v}\n" for v in values)
    return curve(text, f"{name}=([0-9.]+)", "max" if name == "acc" else "min").model_dump(mode="json")


def _export(runs: list[dict[str, Any]] | None = None, metrics: dict[str, Any] | None = None) -> dict[str, Any]:
    """A plugin stack (camelCase): job `mine` (objective acc, metric loss), waited for, with its run history."""
    status = {"jobId": "id-2", "waitFor": "completed", "phase": "Completed", "reached": True, "objective": 0.8,
              "metrics": metrics if metrics is not None else {"acc": _curve([0.5, 0.7, 0.8]),
                                                              "loss": _curve([2.0, 1.0, 0.5], "loss")}}
    return {"deployment": {"resources": [
        {"urn": URN.format("TrainingJob", "mine"), "type": "modelarts:index:TrainingJob",
         "outputs": {"jobId": "id-2", "jobName": "mine-b", "phase": "Completed", "outputPath": "obs://bkt/mine/"}},
        {"urn": URN.format("JobsAwait", "w"), "type": "modelarts:index:JobsAwait",
         "outputs": {"jobs": {"mine": {"jobId": "id-2", "waitFor": "completed", "objective": ACC, "metrics": [LOSS]}},
                     "statuses": {"mine": status}, "phases": {}, "runs": {"mine": runs or []}}}]}}


def _args(key: str, chart: Path | None, history: bool = False) -> argparse.Namespace:
    return argparse.Namespace(cwd=".", stack="dev", sweep=key, history=history, chart=str(chart) if chart else None)


def _use(monkeypatch: pytest.MonkeyPatch, module: Any, outputs: Any, export: Any) -> None:
    monkeypatch.setattr(module, "PulumiCli", lambda *_a: FakePulumi(outputs, export))


def test_results_of_a_job_key_print_its_run_and_chart_its_curves(monkeypatch, tmp_path: Path) -> None:
    _use(monkeypatch, cli, {}, _export())
    out = io.StringIO()
    assert cli.run_results(_args("mine", tmp_path / "m.png"), out) == 0
    lines = out.getvalue().splitlines()
    assert lines[0] == "mine: 1 run; best mine (acc 0.8, max)"
    assert "best output: obs://bkt/mine/" in lines and lines[-1] == f"chart: {tmp_path / 'm.png'}"
    assert (tmp_path / "m.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    results = cli.state_job(cli.StackExport.model_validate(_export()), "mine")
    assert results is not None
    fig = draw("mine", results)
    titles = sorted(ax.get_title() for ax in fig.axes if ax.get_title())
    assert titles == ["acc (max)", "loss (min)"]  # one panel per curve
    assert [line.get_ydata().tolist() for line in fig.axes[0].lines] == [[0.5, 0.7, 0.8]]


def test_a_job_chart_with_no_curve_is_refused(monkeypatch, tmp_path: Path) -> None:
    _use(monkeypatch, cli, {}, _export(metrics={}))
    with pytest.raises(LogsError, match=r"^mine has no curve to draw .*--chart does nothing$"):
        cli.run_results(_args("mine", tmp_path / "m.png"), io.StringIO())
    assert not (tmp_path / "m.png").exists()
    with pytest.raises(LogsError, match=r"no sweep or search 'nope' .*\(nor a job key with an objective or metrics\)"):
        cli.run_results(_args("nope", None), io.StringIO())


# Run records are free-form in the schema: the plugin keeps them in the providers' naming (history.py).
RUNS = [{"job_id": "id-1", "job_name": "mine-a", "phase": "Completed", "objective": 0.6,
         "metrics": {"acc": _curve([0.4, 0.6])}},
        {"job_id": "id-2", "job_name": "mine-b", "phase": "Completed", "objective": 0.8,
         "metrics": {"acc": _curve([0.5, 0.7, 0.8]), "loss": _curve([2.0, 1.0], "loss")}},
        {"job_id": "id-0", "job_name": "mine-old", "phase": "Completed", "objective": 0.1}]  # recorded before curves


def test_history_chart_overlays_every_recorded_run(monkeypatch, tmp_path: Path) -> None:
    _use(monkeypatch, cli, {}, _export(RUNS))
    out = io.StringIO()
    assert cli.run_results(_args("mine", tmp_path / "h.png", history=True), out) == 0
    assert out.getvalue().splitlines()[-1] == f"chart: {tmp_path / 'h.png'}"
    assert (tmp_path / "h.png").read_bytes()[:4] == b"\x89PNG"
    runs = cli.state_run_curves(cli.StackExport.model_validate(_export(RUNS)), "mine")
    assert runs is not None and [p.key for p in runs.points] == ["run 1 (mine-a)", "run 2 (mine-b)",
                                                                "run 3 (mine-old)"]
    fig = draw("mine", runs)
    acc = next(ax for ax in fig.axes if ax.get_title() == "acc (max)")
    assert sorted(line.get_ydata().tolist() for line in acc.lines) == [[0.4, 0.6], [0.5, 0.7, 0.8]]
    legend = [t.get_text() for ax in fig.axes if ax.get_legend() for t in ax.get_legend().get_texts()] + \
        [t.get_text() for lg in fig.legends for t in lg.get_texts()]
    assert legend == ["run 1 (mine-a)", "run 2 (mine-b)", "run 3 (mine-old)"]


def test_a_history_chart_with_no_recorded_curve_is_refused(monkeypatch, tmp_path: Path) -> None:
    _use(monkeypatch, cli, {}, _export(RUNS[2:]))
    with pytest.raises(LogsError, match=r"^no run of 'mine' recorded a curve to draw .*--chart does nothing$"):
        cli.run_results(_args("mine", tmp_path / "h.png", history=True), io.StringIO())


# --- outputs KEY --best -------------------------------------------------------------------------------------

@dataclass
class _Obj:
    key: str
    size: int


class FakeObs:
    def __init__(self, files: dict[str, bytes]) -> None:
        self.files = files

    def iter_objects(self, bucket: str, prefix: str) -> list[_Obj]:
        return [_Obj(k[len(bucket) + 1:], len(v)) for k, v in self.files.items()
                if k.startswith(f"{bucket}/{prefix}")]

    def get_file(self, bucket: str, key: str, target: Path) -> None:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(self.files[f"{bucket}/{key}"])

    def close(self) -> None:
        pass


SWEEP = {"objective": {"name": "acc", "goal": "max"}, "failures": 0, "points": [
    {"key": "g-1", "parameters": {"lr": 0.1}, "phase": "Completed", "objective": 0.7, "outputPath": "obs://b/g/1/"},
    {"key": "g-2", "parameters": {"lr": 0.01}, "phase": "Completed", "objective": 0.9, "outputPath": "obs://b/g/2/"},
    {"key": "g-3", "parameters": {"lr": 0.5}, "phase": "Completed", "objective": None,
     "metrics": {"acc": {"points": [[1, 0.99]], "last": 0.99, "diverged": "nan at line 2"}},
     "outputPath": "obs://b/g/3/"}],
    # an export written before divergence was detected: its best is the diverged point; --best ranks again
    "best": {"key": "g-3", "phase": "Completed", "objective": 0.99, "outputPath": "obs://b/g/3/"}}


def _outputs(key: str, get: Path | None = None, run: int | None = None, best: bool = True) -> argparse.Namespace:
    return argparse.Namespace(cwd=".", stack="dev", key=key, run=run, get=str(get) if get else None, best=best)


def test_outputs_best_downloads_the_best_points_files(monkeypatch, tmp_path: Path) -> None:
    _use(monkeypatch, outputs_cli, {"sweeps": {"grid": SWEEP}}, {})
    obs = FakeObs({"b/g/2/model.pt": b"best", "b/g/2/logs/a.txt": b"xy", "b/g/1/model.pt": b"other",
                   "b/g/3/model.pt": b"diverged"})
    monkeypatch.setattr(outputs_cli, "obs_client", lambda *_a: obs)
    out = io.StringIO()
    assert outputs_cli.run_outputs(_outputs("grid", tmp_path / "d"), out) == 0
    assert out.getvalue().splitlines()[0] == "grid best point g-2: 2 files in obs://b/g/2/"
    assert (tmp_path / "d" / "model.pt").read_bytes() == b"best"
    assert (tmp_path / "d" / "logs" / "a.txt").read_bytes() == b"xy"


def test_outputs_best_of_a_search_lists_its_best_trial(monkeypatch) -> None:
    search = {"objective": {"name": "loss", "goal": "min"}, "trials": [
        {"trialId": "t1", "phase": "Completed", "reward": 0.5, "parameters": {"lr": "0.1"}, "outputPath": "obs://b/s/t1/"},
        {"trialId": "t2", "phase": "Completed", "reward": 0.2, "parameters": {"lr": "0.1"},
         "outputPath": "obs://b/s/t2/"}]}
    _use(monkeypatch, outputs_cli, {"searches": {"tune": search}}, {})
    monkeypatch.setattr(outputs_cli, "obs_client", lambda *_a: FakeObs({"b/s/t2/w.bin": b"123"}))
    out = io.StringIO()
    assert outputs_cli.run_outputs(_outputs("tune"), out) == 0
    assert out.getvalue().splitlines() == ["tune best trial t2: 1 file in obs://b/s/t2/", "           3  w.bin"]


@pytest.mark.parametrize(("args", "error"), [
    (_outputs("grid", run=1), r"^--best and --run pick different things"),
    (_outputs("obs://b/g/2/"), r"^--best picks a sweep's or search's best point; obs://b/g/2/ is an OBS folder"),
    (_outputs("obs://b/g/2/", run=2, best=False), r"^--run picks a recorded run of a job key"),
    (_outputs("grid", best=False), r"no output path of 'grid' .*: grid is a sweep, `outputs grid --best` reaches"),
    (_outputs("none"), r"^sweep none has no best point: none completed with a value of acc"),
])
def test_outputs_refuse_what_would_do_nothing(monkeypatch, args: argparse.Namespace, error: str) -> None:
    failed = {**SWEEP, "points": [{**SWEEP["points"][0], "phase": "Failed"}]}
    _use(monkeypatch, outputs_cli, {"sweeps": {"grid": SWEEP, "none": failed}}, {})
    monkeypatch.setattr(outputs_cli, "obs_client", lambda *_a: pytest.fail("no OBS call for a refused option"))
    with pytest.raises(LogsError, match=error):
        outputs_cli.run_outputs(args, io.StringIO())

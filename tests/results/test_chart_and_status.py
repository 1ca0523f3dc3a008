"""The chart is a valid PNG; status lists the stack's jobs with one list call; the stack's results exports."""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any, Iterator

from modelarts_provider.client.models import TrainingJob
from modelarts_provider.results.chart import write_chart
from modelarts_provider.cli.status import live_views, status_lines
from modelarts_provider.results.table import Point, SweepObjective, collect
from modelarts_provider.stack.config import parse
from modelarts_provider.stack.program import plan
from modelarts_provider.stack.results import build, build_objectives

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == PNG_MAGIC and data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def test_chart_is_a_decodable_png_with_one_panel_per_parameter(tmp_path: Path) -> None:
    points = [Point(key=f"s-{lr}-{bs}", parameters={"lr": lr, "batch_size": bs}, phase="Completed",
                    objective=0.9 - abs(lr - 0.01) - abs(bs - 64) / 1000) for lr in (0.1, 0.01, 0.001) for bs in (32, 64)]
    points.append(Point(key="s-x", parameters={"lr": 1.0, "batch_size": 32}, phase="Failed"))
    path = write_chart("s", collect(SweepObjective(name="acc"), points), tmp_path / "out" / "s.png")
    data = path.read_bytes()
    width, height = png_size(data)
    assert width > 2 * 400 and height > 300  # 2 panels of 4.4 x 3.4 inches at 100 dpi, a legend beside
    from matplotlib import image  # noqa: PLC0415 - decodes the whole file, not just its header

    assert image.imread(str(path)).shape[:2] == (height, width)


def test_chart_of_categorical_values(tmp_path: Path) -> None:
    points = [Point(key=f"s-{o}", parameters={"optimizer": o}, phase="Completed", objective=i)
              for i, o in enumerate(["adam", "sgd"])]
    data = write_chart("s", collect(SweepObjective(name="loss", goal="min"), points), tmp_path / "c.png").read_bytes()
    assert png_size(data)[0] > 400


class Listing:
    def __init__(self, jobs: list[TrainingJob]) -> None:
        self.jobs = jobs
        self.pages = 0

    def iter_job_summaries(self, *, workspace_id: str | None = None) -> Iterator[TrainingJob]:
        page_size = 50  # the list API's largest page, as the client reads it
        for start in range(0, len(self.jobs), page_size):
            self.pages += 1
            yield from self.jobs[start:start + page_size]


def live(i: int, phase: str) -> TrainingJob:
    return TrainingJob.model_validate({"metadata": {"id": f"id-{i}", "name": f"n{i}"},
                                       "status": {"phase": phase, "duration": 61000}})


def test_status_needs_one_list_call_for_the_stacks_jobs() -> None:
    client = Listing([live(i, "Running" if i % 2 else "Completed") for i in range(120)])
    ours = [(f"k{i}", f"id-{i}", f"n{i}", None) for i in range(10)] + [("gone", "id-x", "nx", None)]
    views = live_views(client, ours)
    assert client.pages == 2  # ours are on the first page; "gone" is looked for one page further, no more
    lines = status_lines(ours, views, {"id-1": {"team": "vision", "stage": "dev"}})
    assert lines[0].split() == ["key", "name", "phase", "duration", "tags"]
    assert any(line.split() == ["k1", "n1", "Running", "1m01s", "stage=dev,team=vision"] for line in lines)
    assert any(line.split() == ["k3", "n3", "Running", "1m01s", "-"] for line in lines)  # no tags
    assert any(line.split()[:3] == ["gone", "nx", "not"] for line in lines)
    assert lines[-2] == "11 jobs: 5 Completed, 5 Running, 1 not listed"

    one = Listing([live(i, "Running") for i in range(120)])
    live_views(one, [(f"k{i}", f"id-{i}", None, None) for i in range(10)])
    assert one.pages == 1


RAW = {"obs": {"main": {"bucket": "bkt"}}, "pools": {"gpu": {"flavor": "f"}},
       "jobs": {"one": {"pool": "gpu", "algorithmId": "x", "waitFor": "completed",
                        "objective": {"name": "acc", "regex": "acc=([0-9.]+)"}}},
       "sweeps": {"s": {"pool": "gpu", "algorithmId": "x", "waitFor": "completed", "maxFailures": 1,
                        "grid": {"lr": [0.1, 0.01]}, "retries": 2,
                        "objective": {"name": "acc", "regex": "acc=([0-9.]+)", "goal": "max"}}}}


def test_build_exports_points_best_and_failures() -> None:
    cfg = parse(RAW)
    plans = plan(cfg)
    keys = [p.key for p in plans if p.sweep == "s"]
    assert all(p.args.annotations["fault-tolerance/job-retry-num"] == "2" for p in plans if p.sweep == "s")
    statuses: dict[str, Any] = {keys[0]: {"phase": "Completed", "objective": 0.8, "duration_s": 10.0},
                                keys[1]: {"phase": "Failed", "failure": "Failed; exit code 3: boom", "tolerated": True},
                                "one": {"phase": "Completed", "objective_note": "no match for 'acc=([0-9.]+)' in the log"}}
    out = build(cfg, plans, statuses, {k: f"id-{k}" for k in keys}, {k: f"obs://bkt/outputs/s/{k}/" for k in keys})
    s = out["s"]
    assert s["failures"] == 1 and s["objective"] == {"name": "acc", "goal": "max"}
    assert s["best"]["key"] == keys[0] and s["best"]["jobId"] == f"id-{keys[0]}"
    assert s["best"]["outputPath"] == f"obs://bkt/outputs/s/{keys[0]}/" and s["best"]["parameters"] == {"lr": 0.1}
    assert [p["phase"] for p in s["points"]] == ["Completed", "Failed"]
    assert s["points"][1]["note"] == "Failed; exit code 3: boom"
    assert build_objectives(plans, statuses) == {"one": {"name": "acc", "goal": "max", "value": None,
                                                         "note": "no match for 'acc=([0-9.]+)' in the log",
                                                         "diverged": None}}

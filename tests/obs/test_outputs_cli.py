"""`python -m modelarts_provider outputs`: a run's output files listed and downloaded from OBS (the local one
over real HTTP, through the project's OBS client), the run picked from the stack's run history."""

from __future__ import annotations

import argparse
import io
from pathlib import Path
from typing import Any

import pytest

from modelarts_provider.cli import outputs as outputs_cli
from modelarts_provider.cli.outputs import local_target, split_obs_url
from modelarts_provider.cli.stack_reader import LogsError
from testkit.fake_pulumi import FakePulumi

BUCKET = "out-bucket"
RUNS = [{"jobId": f"id-{i}", "name": f"train-r{i}", "outputPath": f"obs://{BUCKET}/outputs/train/train-r{i}/"}
        for i in (1, 2, 3)]


class StackWithConfig(FakePulumi):
    def __init__(self, outputs: Any, config: dict[str, Any]) -> None:
        super().__init__(outputs, {"deployment": {}}, stack="s")
        self.config = config

    def json(self, *args: str) -> Any:
        return self.config if args[0] == "config" else super().json(*args)


@pytest.fixture
def stack(obs: Any, s3: Any, monkeypatch: pytest.MonkeyPatch) -> StackWithConfig:
    s3.create_bucket(Bucket=BUCKET, CreateBucketConfiguration={"LocationConstraint": obs.region})
    for run in RUNS:  # each run wrote its own files into its own folder
        prefix = run["outputPath"].removeprefix(f"obs://{BUCKET}/")
        s3.put_object(Bucket=BUCKET, Key=prefix + "model.npz", Body=run["name"].encode())
        s3.put_object(Bucket=BUCKET, Key=prefix + "metrics/last.json", Body=b"{}")
    config = {f"modelarts:{k}": {"value": v, "secret": k == "secretKey"} for k, v in {
        "region": obs.region, "obsEndpoint": obs.url, "accessKey": obs.access_key, "secretKey": obs.secret_key}.items()}
    p = StackWithConfig({"runs": {"train": RUNS}, "jobs": {"train": {"outputPath": RUNS[-1]["outputPath"]}}}, config)
    monkeypatch.setattr(outputs_cli, "PulumiCli", lambda cwd, stack: p)
    return p


def _run(key: str, **over: Any) -> list[str]:
    out = io.StringIO()
    args = argparse.Namespace(**{"key": key, "run": None, "get": None, "stack": "s", "cwd": ".", **over})
    assert outputs_cli.run_outputs(args, out) == 0
    return out.getvalue().splitlines()


def test_every_run_lists_and_downloads_its_own_files(stack: Any, tmp_path: Path) -> None:
    assert _run("train") == [f"train run 3 (train-r3): 2 files in obs://{BUCKET}/outputs/train/train-r3/",
                             "           2  metrics/last.json", "           8  model.npz"]
    for n in (1, 2, 3):
        got = tmp_path / f"run{n}"
        lines = _run("train", run=n, get=str(got))
        assert lines[0].startswith(f"train run {n} (train-r{n}): 2 files")
        assert (got / "model.npz").read_bytes() == f"train-r{n}".encode()  # that run's model, not the newest
        assert (got / "metrics" / "last.json").read_bytes() == b"{}"
    assert _run(f"obs://{BUCKET}/outputs/train/train-r1/")[0].endswith(f"2 files in obs://{BUCKET}/outputs/train/train-r1/")


def test_a_run_out_of_range_is_one_line(stack: Any) -> None:
    with pytest.raises(LogsError, match=r"train has 3 recorded runs: --run takes 1 to 3"):
        _run("train", run=4)


def test_paths_and_targets() -> None:
    assert split_obs_url("/bkt/a/b") == ("bkt", "a/b/") and split_obs_url("obs://bkt") == ("bkt", "")
    with pytest.raises(LogsError, match="not an OBS path"):
        split_obs_url("s3x:/nope")
    with pytest.raises(LogsError, match="would leave"):
        local_target(Path("/tmp/x"), "../etc/passwd")
    assert local_target(Path("/tmp/x"), "a/b.txt") == Path("/tmp/x/a/b.txt")

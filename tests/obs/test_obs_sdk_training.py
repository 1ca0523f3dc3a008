"""A training script that reads its input and writes its model with esdk-obs-python (training/obs_sdk/train.py),
run by the local ModelArts as a job, against the local OBS (issue 57: "a script using esdk-obs-python reads its
input and writes its model in the local OBS"). The credentials and the endpoint reach it as a job's
``environments``; its client is the SDK's defaults (an IP endpoint: path style, AWS V2 signatures).

What it wrote is read back with boto3 and checked against the data the test put: one centroid per class, the mean
of that class's rows; the accuracy it reports in its log is the one in its metrics.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from modelarts_emulator.testing import RunningEmulator, running_emulator
from tests.emulator.helpers import Api

BUCKET = "sdk-training"
SCRIPT = Path(__file__).resolve().parents[2] / "training" / "obs_sdk" / "train.py"
ENGINE = {"engine_name": "PyTorch", "engine_version": "pytorch_1.8.0-cuda_10.2-py_3.7-ubuntu_18.04-x86_64"}


@pytest.fixture
def emu(obs: Any, tmp_path: Path) -> Iterator[RunningEmulator]:
    with running_emulator(tmp_path / "emu", phase_seconds=0.1, run_seconds=60, obs_endpoint=obs.url,
                          execute=True, max_run_seconds=60, max_processes=2) as server:
        yield server


def _data(seed: int, rows: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 3, size=rows)
    features = np.array([[0.0, 0.0], [5.0, 5.0], [0.0, 8.0]])[labels] + rng.normal(0, 1.5, size=(rows, 2))
    return np.column_stack([features, labels])


def _csv(rows: np.ndarray) -> bytes:
    out = io.StringIO()
    np.savetxt(out, rows, delimiter=",", fmt="%.6f")
    return out.getvalue().encode()


def _job(obs: Any) -> dict[str, Any]:
    return {"kind": "job", "metadata": {"name": "obs-sdk-train"},
            "algorithm": {"code_dir": f"obs://{BUCKET}/code/obs_sdk/",
                          "boot_file": f"obs://{BUCKET}/code/obs_sdk/train.py", "engine": ENGINE,
                          "parameters": [{"name": "data_obs", "value": f"obs://{BUCKET}/data/"},
                                         {"name": "model_obs", "value": f"obs://{BUCKET}/model/"}],
                          "environments": {"AccessKeyID": obs.access_key, "SecretAccessKey": obs.secret_key,
                                           "OBS_ENDPOINT": obs.url}},
            "spec": {"resource": {"flavor_id": "modelarts.vm.cpu.8u", "node_count": 1}}}


def test_a_job_reads_its_input_and_writes_its_model_with_the_obs_sdk(obs: Any, s3: Any, emu: RunningEmulator) -> None:
    parts = [_data(1, 120), _data(2, 80)]
    s3.create_bucket(Bucket=BUCKET)
    s3.put_object(Bucket=BUCKET, Key="code/obs_sdk/train.py", Body=SCRIPT.read_bytes())
    for i, part in enumerate(parts):
        s3.put_object(Bucket=BUCKET, Key=f"data/part-{i}.csv", Body=_csv(part))
    s3.put_object(Bucket=BUCKET, Key="data/README.txt", Body=b"not data")  # listed, not read

    api = Api(emu)
    created = api.create(_job(obs))
    assert created.status_code in (200, 201), created.text
    job_id = created.json()["metadata"]["id"]
    job = api.wait_phase(job_id, {"Completed", "Failed"}, timeout=90)
    log = api.logs(job_id).json()["content"]
    assert job["status"]["phase"] == "Completed", log
    assert "read 200 rows from 2 object(s)" in log

    data = np.vstack([np.loadtxt(io.BytesIO(_csv(p)), delimiter=",") for p in parts])
    model = np.load(io.BytesIO(s3.get_object(Bucket=BUCKET, Key="model/model.npz")["Body"].read()))
    assert model["classes"].tolist() == [0, 1, 2]
    for c in range(3):
        assert model["centroids"][c] == pytest.approx(data[data[:, 2] == c][:, :2].mean(axis=0))
    metrics = json.loads(s3.get_object(Bucket=BUCKET, Key="model/metrics.json")["Body"].read())
    assert (metrics["rows"], metrics["objects"]) == (200, 2)
    logged = float(re.findall(r"accuracy=([0-9.]+)", log)[-1])
    assert metrics["accuracy"] == pytest.approx(logged, abs=1e-6) and 0.7 < logged <= 1.0


def test_a_job_with_a_wrong_secret_key_fails_with_the_sdks_error_and_writes_nothing(obs: Any, s3: Any,
                                                                                   emu: RunningEmulator) -> None:
    s3.create_bucket(Bucket=BUCKET)
    s3.put_object(Bucket=BUCKET, Key="code/obs_sdk/train.py", Body=SCRIPT.read_bytes())
    s3.put_object(Bucket=BUCKET, Key="data/part-0.csv", Body=_csv(_data(1, 20)))
    body = _job(obs)
    body["algorithm"]["environments"]["SecretAccessKey"] = "not-the-secret-key"
    api = Api(emu)
    job_id = api.create(body).json()["metadata"]["id"]
    job = api.wait_phase(job_id, {"Completed", "Failed"}, timeout=90)
    log = api.logs(job_id).json()["content"]
    assert job["status"]["phase"] == "Failed", log
    assert "HTTP 403 SignatureDoesNotMatch" in log and "not-the-secret-key" not in log
    assert [o["Key"] for o in s3.list_objects(Bucket=BUCKET, Prefix="model/").get("Contents", [])] == []

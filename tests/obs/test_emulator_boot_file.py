"""The ModelArts emulator told where the local OBS is fails a job whose boot file is not there, as the
service does (issue 10 item 5); a job whose code is there runs."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from modelarts_provider.client import AkSkCredentials, ClientSettings, ModelArtsClient
from modelarts_provider.client.models import CreateTrainingJobRequest


def _request(name: str, boot: str) -> CreateTrainingJobRequest:
    return CreateTrainingJobRequest.model_validate({
        "kind": "job", "metadata": {"name": name},
        "algorithm": {"code_dir": "/code-bucket/code/mnist/", "boot_file": boot,
                      "engine": {"engine_name": "PyTorch",
                                 "engine_version": "pytorch_1.8.0-cuda_10.2-py_3.7-ubuntu_18.04-x86_64"}},
        "spec": {"resource": {"flavor_id": "modelarts.p3.large.public", "node_count": 1}}})


def _until_settled(client: ModelArtsClient, job_id: str) -> Any:
    deadline = time.monotonic() + 30
    while True:
        job = client.get_job(job_id)
        if job.phase in ("Running", "Completed", "Failed"):
            return job
        assert time.monotonic() < deadline, job.phase
        time.sleep(0.1)


def test_a_missing_boot_file_fails_the_job_naming_it(tmp_path: Path, obs: Any, s3: Any) -> None:
    from modelarts_emulator.testing import running_emulator

    s3.create_bucket(Bucket="code-bucket", CreateBucketConfiguration={"LocationConstraint": s3.meta.region_name})
    s3.put_object(Bucket="code-bucket", Key="code/mnist/train.py", Body=b"print('hi')\n")
    with running_emulator(tmp_path / "emu", phase_seconds=0.1, run_seconds=5, obs_endpoint=obs.url) as emu, \
            ModelArtsClient(ClientSettings(region="cn-north-4", project_id=emu.project_id, endpoint=emu.url,
                                           credentials=AkSkCredentials(access_key=emu.access_key,
                                                                       secret_key=emu.secret_key))) as client:
        there = client.create_job(_request("code-there", "/code-bucket/code/mnist/train.py"))
        missing = client.create_job(_request("code-missing", "/code-bucket/code/mnist/missing.py"))
        assert _until_settled(client, there.id).phase == "Running"
        failed = _until_settled(client, missing.id)
        assert failed.phase == "Failed"
        [status] = failed.task_statuses
        assert status.exit_code == 2
        assert "/code-bucket/code/mnist/missing.py does not exist in OBS" in status.message

"""Helpers for the emulator tests: an API client signing with huaweicloudsdkcore's Signer (the
reference SDK-HMAC-SHA256 implementation), request bodies, dates."""

from __future__ import annotations

import contextlib
import copy
import json
import time
from collections.abc import Iterator, Mapping
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable

import requests
from huaweicloudsdkcore.auth.credentials import BasicCredentials
from huaweicloudsdkcore.sdk_request import SdkRequest
from huaweicloudsdkcore.signer.signer import Signer

from modelarts_emulator.testing import RunningEmulator
from modelarts_provider.client import AkSkCredentials, ClientSettings, ModelArtsClient

FAST = {"phase_seconds": 0.3, "run_seconds": 1.0}
# Phases no test outlives on its own: a test moves them on with the clock control (Api.advance), so
# what it sees never depends on how fast the machine is.
HELD = {"phase_seconds": 30, "run_seconds": 60,
        # deletes are asynchronous (a deleted job is answered a while): short, so that a destroy through the
        # product, which waits for the job to be gone, is not held too; tests of that wait set their own
        "delete_seconds": 0.2}


class Api:
    """Minimal ModelArts API client over real HTTP, signed with the official SDK signer."""

    def __init__(self, emu: RunningEmulator) -> None:
        self.emu = emu
        self.http = requests.Session()

    def signed(self, method: str, path: str, body: Any = None, *, query=None,
               headers: dict[str, str] | None = None, ak: str | None = None,
               sk: str | None = None, sdk_date: datetime | None = None,
               raw_body: bytes | None = None) -> SdkRequest:
        host = self.emu.url.split("://", 1)[1]
        header_params = {"Content-Type": "application/json"}
        header_params.update(headers or {})
        if sdk_date is not None:
            header_params["X-Sdk-Date"] = sdk_date.strftime("%Y%m%dT%H%M%SZ")
        data = raw_body if raw_body is not None else (
            json.dumps(body).encode() if body is not None else b"")
        req = SdkRequest(method=method, schema="http", host=host, resource_path=path,
                         query_params=list(query or []), header_params=header_params, body=data)
        creds = BasicCredentials(ak or self.emu.access_key, sk or self.emu.secret_key)
        return Signer(creds).sign(req)

    def send(self, req: SdkRequest, body_override: bytes | None = None) -> requests.Response:
        body = body_override if body_override is not None else req.body
        return self.http.request(req.method, self.emu.url + req.uri, headers=req.header_params,
                                 data=body or None, timeout=30)

    def call(self, method: str, path: str, body: Any = None, **kw) -> requests.Response:
        return self.send(self.signed(method, path, body, **kw))

    # --- operations ---------------------------------------------------------------------------------
    @property
    def base(self) -> str:
        return f"/v2/{self.emu.project_id}"

    def create(self, body: dict) -> requests.Response:
        return self.call("POST", f"{self.base}/training-jobs", body)

    def get(self, job_id: str) -> requests.Response:
        return self.call("GET", f"{self.base}/training-jobs/{job_id}")

    def terminate(self, job_id: str, action: Any = "terminate") -> requests.Response:
        return self.call("POST", f"{self.base}/training-jobs/{job_id}/actions",
                         {"action_type": action})

    def delete(self, job_id: str) -> requests.Response:
        return self.call("DELETE", f"{self.base}/training-jobs/{job_id}")

    def update(self, job_id: str, body: dict) -> requests.Response:
        return self.call("PUT", f"{self.base}/training-jobs/{job_id}", body)

    def search(self, body: dict) -> requests.Response:
        return self.call("POST", f"{self.base}/training-job-searches", body)

    def logs(self, job_id: str, task: str = "worker-0") -> requests.Response:
        return self.call("GET", f"{self.base}/training-jobs/{job_id}/tasks/{task}/logs/preview")

    def phase(self, job_id: str) -> str:
        return self.get(job_id).json()["status"]["phase"]

    def advance(self, seconds: float) -> None:
        """Move the emulator's clock forward (every job with it)."""
        self.emu.advance(seconds)

    def wait_phase(self, job_id: str, accept: Callable[[str], bool] | set[str],
                   timeout: float = 10.0) -> dict:
        check = accept if callable(accept) else (lambda p: p in accept)
        deadline = time.monotonic() + timeout
        while True:
            job = self.get(job_id).json()
            if check(job["status"]["phase"]):
                return job
            if time.monotonic() > deadline:
                raise AssertionError(f"job stayed {job['status']['phase']}")
            time.sleep(0.05)


def minimal_job(name: str = "job-1", **annotations: str) -> dict:
    """A small valid create body: code_dir + boot_file, preset engine, public CPU flavor."""
    body = {
        "kind": "job",
        "metadata": {"name": name, "description": "emulator test"},
        "algorithm": {
            "code_dir": "obs://emulator-bucket/code/",
            "boot_file": "obs://emulator-bucket/code/train.py",
            "engine": {"engine_id": "pytorch_1.8.0-cuda_10.2-py_3.7-ubuntu_18.04-x86_64"},
            "inputs": [{"name": "data_url", "remote": {"obs": {"obs_url": "/emulator-bucket/data/"}}}],
            "outputs": [{"name": "train_url",
                         "remote": {"obs": {"obs_url": "obs://emulator-bucket/out/"}}}],
        },
        "spec": {"resource": {"flavor_id": "modelarts.vm.cpu.8u", "node_count": 1}},
    }
    if annotations:
        body["metadata"]["annotations"] = {k.replace("__", "/").replace("_", "-"): v
                                           for k, v in annotations.items()}
    return copy.deepcopy(body)


def stale(minutes: float) -> datetime:
    return datetime.now(timezone.utc) - timedelta(minutes=minutes)


def wait_phase(client: Any, job_id: str, phases: set[str], timeout: float = 20) -> Any:
    """The job once its phase is one of `phases` (a ModelArtsClient's TrainingJob), polled every 50 ms."""
    deadline = time.monotonic() + timeout
    while True:
        job = client.get_job(job_id)
        assert job is not None
        if job.phase in phases:
            return job
        assert time.monotonic() < deadline, f"job {job_id} still {job.phase}"
        time.sleep(0.05)


@contextlib.contextmanager
def obs_holding(base: Path, bucket: str, objects: Mapping[str, str | bytes]) -> Iterator[Any]:
    """A local OBS whose `bucket` holds `objects` (key -> body): the code and data a test's jobs read."""
    from obs_emulator.testing import running_obs  # the local clouds' extra: only where a test runs jobs for real

    with running_obs(base) as obs:
        s3 = obs.client()
        s3.create_bucket(Bucket=bucket, CreateBucketConfiguration={"LocationConstraint": s3.meta.region_name})
        for key, body in objects.items():
            s3.put_object(Bucket=bucket, Key=key, Body=body.encode() if isinstance(body, str) else body)
        yield obs


def product_client(emu: RunningEmulator) -> ModelArtsClient:
    """The product's ModelArts client on `emu`, signed with its AK/SK (a context manager: close it)."""
    return ModelArtsClient(ClientSettings(region="cn-north-4", project_id=emu.project_id, endpoint=emu.url,
                                          credentials=AkSkCredentials(access_key=emu.access_key,
                                                                      secret_key=emu.secret_key)))

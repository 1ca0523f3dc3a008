"""Record the signed HTTP requests a real client sends to ModelArts, as JSON fixtures for the gateway tests.

    .venv/bin/python scripts/capture_sdk_requests/capture.py python   > tests/fixtures/gateway/huaweicloudsdk_python.json
    .venv/bin/python scripts/capture_sdk_requests/capture.py golangsdk > tests/fixtures/gateway/golangsdk.json

A capturing socket listens on 127.0.0.1 (any free port), reads each request byte for byte (request line,
headers in the order and case they were sent, body) and answers it with a small canned ModelArts answer, so
the client goes on to its next call. Nothing is verified here: tests/emulator/test_gateway_fixtures.py replays
what was recorded against the local ModelArts' authentication.

* ``python``: the official Python SDK (huaweicloudsdkcore + huaweicloudsdkmodelarts, the versions pinned in
  the ``test`` extra of pyproject.toml) calls CreateTrainingJob, ShowTrainingJobDetails, ListTrainingJobs,
  ShowTrainingJobFlavors (a query string), DeleteTrainingJob with ``BasicCredentials(ak, sk, project_id)``,
  then ShowTrainingJobDetails with temporary credentials (a security token).
* ``golangsdk``: scripts/capture_golangsdk (github.com/chnsz/golangsdk, the SDK terraform-provider-huaweicloud
  signs with) makes the provider's own requests; it is run with ``go run`` and told the socket's address.

The credentials are made up (CREDENTIALS below); they exist only in these fixtures and the tests.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run as a script: the repository's testkit
from testkit.drip_proxy import read_request  # noqa: E402

REPO = Path(__file__).resolve().parents[2]

# Made-up credentials, the same for every client: the tests start the local ModelArts with them.
CREDENTIALS = {
    "access_key": "FIXTUREAK0CAPTURE001",
    "secret_key": "fixture-capture-secret-key-0000000000001",
    "project_id": "0f1e2d3c4b5a69788796a5b4c3d2e1f0",
    "security_token": "fixture-capture-security-token-0001",
    "domain_id": "d0d1d2d3d4d5d6d7d8d9dadbdcdddedf",
}
JOB_ID = "4a1f3bde-0b0c-4c43-9c6a-2a2e5a0b5f11"


def _answer(method: str, target: str) -> tuple[int, bytes]:
    """A canned answer the client accepts, so that it goes on to its next call."""
    if method == "DELETE":
        return 202, b""
    if "training-job-searches" in target:
        return 200, json.dumps({"total": 0, "count": 0, "limit": 50, "offset": 0, "items": []}).encode()
    if "training-job-flavors" in target:
        return 200, json.dumps({"total_count": 0, "flavors": []}).encode()
    job = {"kind": "job", "metadata": {"id": JOB_ID, "name": "captured-job"},
           "status": {"phase": "Creating", "secondary_phase": "Creating"}}
    return (201 if method == "POST" else 200), json.dumps(job).encode()


def parse(raw: bytes) -> dict[str, Any]:
    """One recorded request: method, raw target, path, query, headers as sent ([name, value] in order), body."""
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    method, target, _version = lines[0].split(" ", 2)
    headers = [[n, v.strip()] for n, _, v in (line.partition(":") for line in lines[1:])]
    path, _, query = target.partition("?")
    return {"method": method, "target": target, "path": path, "query": query, "headers": headers,
            "body": body.decode("utf-8")}


class CaptureServer:
    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.requests: list[dict[str, Any]] = []
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    @property
    def endpoint(self) -> str:
        return "http://127.0.0.1:%d" % self.sock.getsockname()[1]

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                raw = read_request(conn)
                if raw is None:
                    continue
                request = parse(raw)
                self.requests.append(request)
                status, body = _answer(request["method"], request["target"])
                reason = {200: "OK", 201: "Created", 202: "Accepted"}[status]
                conn.sendall(f"HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\n"
                             f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode() + body)

    def close(self) -> None:
        self.sock.close()


def _python_sdk(endpoint: str) -> dict[str, Any]:
    from importlib.metadata import version

    from huaweicloudsdkcore.auth.credentials import BasicCredentials
    from huaweicloudsdkcore.exceptions.exceptions import SdkException
    from huaweicloudsdkmodelarts.v1 import ModelArtsClient, model as m

    def client(token: str | None = None) -> Any:
        creds = BasicCredentials(CREDENTIALS["access_key"], CREDENTIALS["secret_key"], CREDENTIALS["project_id"])
        if token:
            creds = creds.with_security_token(token)
        return ModelArtsClient.new_builder().with_credentials(creds).with_endpoint(endpoint).build()

    body = m.Job(
        kind="job",
        metadata=m.JobMetadata(name="captured-job", description="recorded by capture.py",
                               annotations={"modelarts-pulumi/owner": "dev::job"}),
        algorithm=m.JobAlgorithm(
            code_dir="/capture-bucket/code/", boot_file="/capture-bucket/code/train.py",
            engine=m.JobEngine(engine_id="pytorch_1.8.0-cuda_10.2-py_3.7-ubuntu_18.04-x86_64"),
            parameters=[m.Parameters(name="lr", value="0.1")],
            outputs=[m.Output(name="train_url", remote=m.Remote(obs=m.RemoteObs(obs_url="/capture-bucket/out/")))],
            environments={"EPOCHS": "3"}),
        spec=m.Spec(resource=m.SpecResource(flavor_id="modelarts.vm.cpu.8u", node_count=1)))
    calls = [
        ("CreateTrainingJob", lambda: client().create_training_job(m.CreateTrainingJobRequest(body=body))),
        ("ShowTrainingJobDetails",
         lambda: client().show_training_job_details(m.ShowTrainingJobDetailsRequest(training_job_id=JOB_ID))),
        ("ListTrainingJobs", lambda: client().list_training_jobs(m.ListTrainingJobsRequest(
            body=m.JobSearches(offset=0, limit=50, filters=[m.Filter(key="name", operator="like",
                                                                     value=["captured"])])))),
        ("ShowTrainingJobFlavors",
         lambda: client().show_training_job_flavors(m.ShowTrainingJobFlavorsRequest(flavor_type="CPU"))),
        ("DeleteTrainingJob",
         lambda: client().delete_training_job(m.DeleteTrainingJobRequest(training_job_id=JOB_ID))),
        ("ShowTrainingJobDetails (temporary credentials)",
         lambda: client(CREDENTIALS["security_token"]).show_training_job_details(
             m.ShowTrainingJobDetailsRequest(training_job_id=JOB_ID))),
    ]
    names = []
    for name, call in calls:
        try:
            call()
        except SdkException:
            pass  # the canned answer may not satisfy the response model: the request is what counts
        names.append(name)
    return {"client": f"huaweicloudsdkcore {version('huaweicloudsdkcore')}, "
                      f"huaweicloudsdkmodelarts {version('huaweicloudsdkmodelarts')} (PyPI)",
            "operations": names}


def _golangsdk(endpoint: str) -> dict[str, Any]:
    program = REPO / "scripts" / "capture_golangsdk"
    env = {**os.environ, "CAPTURE_ENDPOINT": endpoint + "/",
           **{"CAPTURE_" + k.upper(): v for k, v in CREDENTIALS.items()}}
    out = subprocess.run(["go", "run", "."], cwd=program, env=env, check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def main() -> None:
    which = sys.argv[1] if len(sys.argv) > 1 else ""
    runners = {"python": _python_sdk, "golangsdk": _golangsdk}
    if which not in runners:
        sys.exit("usage: capture.py python|golangsdk > fixture.json")
    server = CaptureServer()
    try:
        info = runners[which](server.endpoint)
    finally:
        server.close()
    names = info.pop("operations")
    requests = [{"operation": n, **r} for n, r in zip(names, server.requests)]
    if len(requests) != len(names) or len(server.requests) != len(names):
        sys.exit(f"expected {len(names)} requests, recorded {len(server.requests)}")
    print(json.dumps({**info, "recorded_by": "scripts/capture_sdk_requests/capture.py " + which,
                      "credentials": CREDENTIALS, "requests": requests}, indent=2))


if __name__ == "__main__":
    main()

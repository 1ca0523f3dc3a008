"""Sustained GET requests per second of the local ModelArts emulator (loopback only).

    .venv/bin/python benchmarks/emulator_rps.py [--threads 4] [--seconds 5] [--auth aksk|token]

Starts an emulator subprocess on a free loopback port with a temporary database, creates one job,
then hammers ``GET /v2/{project}/training-jobs/{id}`` from several threads over keep-alive
connections for a bounded time. Each thread signs its request once (SDK-HMAC-SHA256, valid for 15
minutes) and replays it, so the client spends as little CPU as possible and the number measures the
emulator, which still verifies every signature and reads every job from SQLite.
"""

from __future__ import annotations

import argparse
import http.client
import json
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import requests  # noqa: E402

from modelarts_emulator.testing import running_emulator  # noqa: E402
from modelarts_provider.client import signer  # noqa: E402


def signed_headers(emu, method: str, path: str, body: bytes = b"") -> dict[str, str]:
    host = emu.url.split("://", 1)[1]
    headers = {"Host": host, "Content-Type": "application/json",
               "X-Sdk-Date": signer.format_sdk_date()}
    names = signer.default_signed_headers(headers)
    sig = signer.signature_for(emu.secret_key, method, path, "", headers, names, body)
    headers["Authorization"] = signer.authorization_header(emu.access_key, names, sig)
    return headers


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--threads", type=int, default=4)
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--auth", choices=["aksk", "token"], default="aksk")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp, running_emulator(tmp, run_seconds=3600) as emu:
        body = json.dumps({
            "kind": "job", "metadata": {"name": "bench"},
            "algorithm": {"code_dir": "obs://bench/code/", "boot_file": "obs://bench/code/t.py",
                          "engine": {"engine_id": "pytorch-cp36-1.4.0-v2"}},
            "spec": {"resource": {"flavor_id": "modelarts.vm.cpu.8u", "node_count": 1}},
        }).encode()
        create_path = f"/v2/{emu.project_id}/training-jobs"
        r = requests.post(emu.url + create_path, data=body,
                          headers=signed_headers(emu, "POST", create_path, body))
        r.raise_for_status()
        path = f"{create_path}/{r.json()['metadata']['id']}"
        if args.auth == "token":
            t = requests.post(emu.url + "/v3/auth/tokens", json={"auth": {"identity": {
                "methods": ["password"], "password": {"user": {
                    "name": emu.iam_user, "password": emu.iam_password,
                    "domain": {"name": emu.iam_domain}}}},
                "scope": {"project": {"name": "cn-north-4"}}}})
            headers = {"X-Auth-Token": t.headers["X-Subject-Token"]}
        else:
            headers = signed_headers(emu, "GET", path)

        host, port = emu.url.split("://", 1)[1].split(":")
        counts = [0] * args.threads
        errors = [0] * args.threads
        start_evt = threading.Event()
        deadline = 0.0

        def worker(i: int) -> None:
            conn = http.client.HTTPConnection(host, int(port), timeout=10)
            start_evt.wait()
            while time.monotonic() < deadline:
                conn.request("GET", path, headers=headers)
                resp = conn.getresponse()
                resp.read()
                if resp.status == 200:
                    counts[i] += 1
                else:
                    errors[i] += 1
            conn.close()

        threads = [threading.Thread(target=worker, args=(i,)) for i in range(args.threads)]
        for t in threads:
            t.start()
        t0 = time.monotonic()
        deadline = t0 + args.seconds
        start_evt.set()
        for t in threads:
            t.join()
        elapsed = time.monotonic() - t0
        total = sum(counts)
        print(f"emulator GET /training-jobs/{{id}}: {total / elapsed:.0f} req/s sustained "
              f"({total} OK, {sum(errors)} errors, {args.threads} threads, {elapsed:.1f} s, "
              f"auth {args.auth})")
        return 0 if total and not sum(errors) else 1


if __name__ == "__main__":
    sys.exit(main())

"""Requests per second of the ModelArts client vs bare ``requests`` against the local emulator,
in the same run, and TCP connections opened per 100 calls.

    .venv/bin/python benchmarks/client_rps.py [--calls 500] [--threads 4]

Variants (all GET the same job, all signed with SDK-HMAC-SHA256 — the emulator requires it):
  client            ModelArtsClient.get_job (pooled session, retries, pydantic parsing)
  client xN threads the same client shared by N threads (the provider's concurrency)
  requests.Session  a bare requests.Session + SdkHmacAuth, response.json()
  requests.get      bare requests.get per call (new connection each time)
TCP connections are counted by wrapping urllib3's HTTPConnection.connect (every connection opened
in this process during a variant).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
from pathlib import Path

import requests
import urllib3.connection

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from modelarts_emulator.testing import running_emulator  # noqa: E402
from modelarts_provider.client import (  # noqa: E402
    AkSkCredentials,
    ClientSettings,
    CreateTrainingJobRequest,
    ModelArtsClient,
)
from modelarts_provider.client.signer import SdkHmacAuth  # noqa: E402

_connects = 0
_lock = threading.Lock()
_orig_connect = urllib3.connection.HTTPConnection.connect


def _counting_connect(self, *a, **kw):
    global _connects
    with _lock:
        _connects += 1
    return _orig_connect(self, *a, **kw)


urllib3.connection.HTTPConnection.connect = _counting_connect


def measure(label: str, calls: int, fn, threads: int = 1) -> tuple[str, float, float]:
    global _connects
    with _lock:
        _connects = 0
    per_thread = calls // threads

    def run() -> None:
        for _ in range(per_thread):
            fn()

    t0 = time.perf_counter()
    if threads == 1:
        run()
    else:
        ts = [threading.Thread(target=run) for _ in range(threads)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
    elapsed = time.perf_counter() - t0
    done = per_thread * threads
    return label, done / elapsed, _connects * 100.0 / done


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=500)
    ap.add_argument("--threads", type=int, default=4)
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp, running_emulator(Path(tmp), run_seconds=3600) as emu:
        settings = ClientSettings(
            region="cn-north-4", project_id=emu.project_id, endpoint=emu.url,
            credentials=AkSkCredentials(access_key=emu.access_key, secret_key=emu.secret_key),
        )
        client = ModelArtsClient(settings)
        job = client.create_job(CreateTrainingJobRequest.model_validate({
            "kind": "job",
            "metadata": {"name": "bench-job"},
            "algorithm": {"id": "3f5d6706-7b67-408d-8ba0-ec08048c45ed"},
            "spec": {"resource": {"flavor_id": "modelarts.p3.large.public.free", "node_count": 1}},
        }))
        url = f"{emu.url}/v2/{emu.project_id}/training-jobs/{job.id}"
        auth = SdkHmacAuth(emu.access_key, emu.secret_key)
        bare = requests.Session()
        bare.auth = auth

        def client_get() -> None:
            assert client.get_job(job.id) is not None

        def session_get() -> None:
            r = bare.get(url, timeout=(5, 30))
            r.raise_for_status()
            r.json()

        def plain_get() -> None:
            r = requests.get(url, auth=auth, timeout=(5, 30))
            r.raise_for_status()
            r.json()

        for fn in (client_get, session_get, plain_get):  # warm up
            for _ in range(10):
                fn()

        rows = [
            measure("client (1 thread)", args.calls, client_get),
            measure(f"client ({args.threads} threads)", args.calls, client_get, args.threads),
            measure("bare requests.Session (1 thread)", args.calls, session_get),
            measure(f"bare requests.Session ({args.threads} threads)", args.calls, session_get, args.threads),
            measure("bare requests.get (1 thread)", min(args.calls, 200), plain_get),
        ]
        client.close()
        bare.close()

    print(f"{'variant':<40} {'req/s':>10} {'TCP conns / 100 calls':>22}")
    for label, rps, conns in rows:
        print(f"{label:<40} {rps:>10.1f} {conns:>22.1f}")
    ratio = rows[0][1] / rows[2][1]
    print(f"client / bare requests.Session throughput (1 thread): {ratio:.2f}")


if __name__ == "__main__":
    main()

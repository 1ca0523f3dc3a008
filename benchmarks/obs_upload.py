"""Code-upload throughput against the local OBS: a generated 200-file directory, uploaded
sequentially (1 thread) and in parallel (8 and 16 threads), each run to a fresh prefix.

    .venv/bin/python -m benchmarks.obs_upload [--files 200] [--repeat 3] [--latency-ms 20]

Prints one line per setting: files/s and MiB/s (best of --repeat), plus the hashing time. The
upload path is the provider's own (code_upload.transfer.upload over modelarts_provider.obs).
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path

from modelarts_provider.code_upload import transfer
from modelarts_provider.code_upload.manifest import MiB, digest, scan
from modelarts_provider.obs import ObsClient, resolve_obs_settings
from obs_emulator.testing import running_obs


def make_tree(root: Path, files: int, seed: int = 0) -> None:
    """Code-like sizes: mostly 1-16 KiB, a few up to 256 KiB, in a few folders."""
    rng = random.Random(seed)
    for i in range(files):
        size = rng.randint(1024, 16 * 1024) if i % 20 else rng.randint(64 * 1024, 256 * 1024)
        path = root / f"pkg{i % 8}" / f"module_{i:03d}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(rng.randbytes(size))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--files", type=int, default=200)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--threads", type=int, nargs="+", default=[1, 8, 16])
    p.add_argument("--latency-ms", type=float, default=0.0, help="the local OBS's added latency per request")
    a = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp, running_obs(Path(tmp) / "obs", latency_ms=a.latency_ms) as obs:
        root = Path(tmp) / "code"
        make_tree(root, a.files)
        started = time.perf_counter()
        manifest = scan(root, "code")
        files = digest(root, manifest)
        hashed = time.perf_counter() - started
        mib = manifest.total_bytes / MiB
        print(f"{len(manifest.files)} files, {mib:.1f} MiB; scan + hash {hashed * 1000:.0f} ms; "
              f"local OBS latency {a.latency_ms:g} ms per request")
        settings = resolve_obs_settings(lambda k: {"region": "cn-north-4", "accessKey": obs.access_key,
                                                   "secretKey": obs.secret_key, "obsEndpoint": obs.url}.get(k), {})
        client = ObsClient(settings)
        client.create_bucket("bench")
        run = 0
        for threads in a.threads:
            best = float("inf")
            for _ in range(a.repeat):
                run += 1
                t0 = time.perf_counter()
                report = transfer.upload(client, root, manifest, files, "bench", f"run{run}/", threads)
                best = min(best, time.perf_counter() - t0)
                assert report.uploaded == len(manifest.files)
            print(f"{threads:>2} thread{'s' if threads > 1 else ' '}: {len(manifest.files) / best:7.1f} files/s "
                  f"{mib / best:6.1f} MiB/s ({best:.2f} s, best of {a.repeat})")
        obs.reset()
        t0 = time.perf_counter()
        report = transfer.upload(client, root, manifest, files, "bench", "run1/", 8)
        print(f"re-run, all present: {report.skipped} skipped in {(time.perf_counter() - t0) * 1000:.0f} ms, "
              f"{obs.counters()['total']} request(s)")


if __name__ == "__main__":
    main()

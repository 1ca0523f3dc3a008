"""Wall-clock sampling profiler for the dynamic-provider process (benchmarks only).

Put this folder on PYTHONPATH and set MODELARTS_BENCH_PROFILE=<dir>: in a process whose command line
runs `pulumi.dynamic`, a daemon thread samples every thread's stack every 5 ms and writes, once a
second, <dir>/provider-<pid>.json: samples per function (self: the frame on top; total: anywhere on
the stack), counted over threads that are inside a provider operation (create/read/...), plus the
number of such threads seen at each sample (the concurrency the thread pool allows).
"""

from __future__ import annotations

import os


def _start() -> None:
    out_dir = os.environ.get("MODELARTS_BENCH_PROFILE")
    if not out_dir:
        return
    try:
        with open("/proc/self/cmdline", "rb") as f:
            if b"pulumi.dynamic" not in f.read():
                return
    except OSError:
        return
    import collections
    import json
    import sys
    import threading
    import time

    interval = 0.005
    me = threading.get_ident()
    self_counts: collections.Counter = collections.Counter()
    total_counts: collections.Counter = collections.Counter()
    active_hist: collections.Counter = collections.Counter()
    samples = 0
    path = os.path.join(out_dir, f"provider-{os.getpid()}.json")
    OPS = {"Create", "Read", "Update", "Delete", "Check", "Diff"}  # pulumi.dynamic.__main__ servicer methods

    def key(code) -> str:
        fn = code.co_filename
        for marker in ("site-packages/", "/work/main/"):
            if marker in fn:
                fn = fn.split(marker, 1)[1]
        return f"{fn}:{code.co_name}"

    def loop() -> None:
        nonlocal samples
        last_dump = time.monotonic()
        while True:
            time.sleep(interval)
            active = 0
            for tid, frame in sys._current_frames().items():
                if tid == me:
                    continue
                stack = []
                f = frame
                in_op = False
                while f is not None:
                    stack.append(f.f_code)
                    if f.f_code.co_name in OPS and "pulumi/dynamic/__main__" in f.f_code.co_filename:
                        in_op = True
                    f = f.f_back
                if not in_op:
                    continue
                active += 1
                self_counts[key(stack[0])] += 1
                for code in set(stack):
                    total_counts[key(code)] += 1
            active_hist[active] += 1
            samples += 1
            if time.monotonic() - last_dump > 1.0:
                last_dump = time.monotonic()
                data = {"interval_s": interval, "samples": samples, "active_threads": dict(active_hist),
                        "self": self_counts.most_common(40), "total": total_counts.most_common(60)}
                tmp = path + ".tmp"
                with open(tmp, "w") as fh:
                    json.dump(data, fh)
                os.replace(tmp, path)

    threading.Thread(target=loop, name="bench-sampler", daemon=True).start()


_start()

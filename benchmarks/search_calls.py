"""API calls of waiting for a service-side search of 32 trials (the JobsAwait's provider, real HTTP).

    python -m benchmarks.search_calls [--trials 32] [--parallel 4]

Creates one search job on a fresh local ModelArts, runs the JobsAwait's wait for it (the provider's own
code: the watcher's polls, a trials request per poll of the running search for its progress line, and one
at the end) and prints the calls by operation: each trials request covers the whole search, whatever the
number of trials.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from typing import Any

from modelarts_provider.awaiting.provider import JobsAwaitProvider
from modelarts_provider.client import AkSkCredentials, ClientSettings, ModelArtsClient
from modelarts_provider.stack.config import parse
from modelarts_provider.stack.program import plan
from modelarts_provider.training_job.provider import TrainingJobProvider
from modelarts_provider.core.provider_config import resolve_settings

POLL_S = 0.2
RUN_S = 4.0


def _provider(cls: Any, client: ModelArtsClient) -> Any:
    p = cls()
    s = client.settings
    p._settings = resolve_settings({"region": s.region, "projectId": s.project_id, "endpoint": s.endpoint,
                                    "accessKey": "AK", "secretKey": "SK"}.get, {})
    p._api = lambda: client
    return p


def measure(trials: int, parallel: int) -> dict[str, Any]:
    from modelarts_emulator.testing import running_emulator

    search = {"objective": {"name": "accuracy", "regex": "accuracy=([0-9.]+)"},
              "space": {"lr": {"loguniform": [0.0001, 0.1]}, "momentum": {"uniform": [0.5, 0.99]}},
              "algorithm": {"name": "tpe_search"}, "trials": trials, "parallel": parallel}
    raw = {"pools": {"cpu": {"flavor": "modelarts.vm.cpu.2u"}},
           "jobs": {"tune": {"pool": "cpu", "codeDir": "obs://bucket-a/code/", "bootFile": "train.py",
                             "engine": {"name": "PyTorch",
                                        "version": "pytorch_1.8.0-cuda_10.2-py_3.7-ubuntu_18.04-x86_64"},
                             "waitFor": "completed", "name": "bench-search", "search": search, "logs": False,
                             "outputs": {}}}}
    args = plan(parse(raw))[0].args.model_dump(mode="json", exclude_none=True)
    args["owner"] = {"stack": "organization/bench/dev", "resource": "tune", "token": "0123456789abcdef"}
    with tempfile.TemporaryDirectory() as tmp, \
            running_emulator(Path(tmp), phase_seconds=0.1, run_seconds=RUN_S) as emu, \
            ModelArtsClient(ClientSettings(region="cn-north-4", project_id=emu.project_id, endpoint=emu.url,
                                           credentials=AkSkCredentials(access_key=emu.access_key,
                                                                       secret_key=emu.secret_key))) as client:
        jobs = _provider(TrainingJobProvider, client)
        created = jobs.create(jobs.check({}, args).inputs)
        emu.reset_counters() if hasattr(emu, "reset_counters") else None
        before = emu.counters()
        waiter = _provider(JobsAwaitProvider, client)
        out = waiter.create({"jobs": {"tune": {"job_id": created.outs["job_id"], "wait_for": "completed",
                                               "poll_seconds": POLL_S, "timeout_seconds": 120,
                                               "search": search["objective"]}}})
        after = emu.counters()
    delta = {k: after.get(k, 0) - before.get(k, 0) for k in after if after.get(k, 0) != before.get(k, 0)}
    read = out.outs["statuses"]["tune"]["search"]["trials"]
    polls = delta.get("get", 0) + delta.get("search", 0)
    trial_reads = delta.get("autosearch_trials", 0)
    return {"trials": len(read), "polls": polls, "trials_requests": trial_reads, "calls": delta,
            "calls_per_poll": round((polls + trial_reads) / max(polls, 1), 2)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--trials", type=int, default=32)
    ap.add_argument("--parallel", type=int, default=4)
    a = ap.parse_args()
    r = measure(a.trials, a.parallel)
    print(f"search of {r['trials']} trials: {r['polls']} polls of the job, {r['trials_requests']} trials requests "
          f"(each for all {r['trials']} trials: {r['trials_requests'] / max(r['polls'], 1):.2f} per poll, 0 per "
          f"trial); {r['calls_per_poll']} API calls per poll in all (by operation: {r['calls']})")


if __name__ == "__main__":
    main()

"""Record every kind of wait on the local clouds into tests/fixtures/waits/*.json (testkit/wait_recorder.py).

    .venv/bin/python scripts/record_waits.py [NAME ...] [--out DIR]    # all workflows, or the ones named

Each workflow starts a local ModelArts on a free port (phases held long: only the recorder moves its clock),
sets up what the wait waits for through the provider's own client (a job, a network, a pool, a delete), then
calls the wait the way its provider does, on the emulator's clock, and writes what it saw. tests/waits replays
each file through the wait's own code; run this again after a change to a wait or to the local clouds, and
review the diff of the fixtures like any other change.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from modelarts_emulator.testing import running_emulator  # noqa: E402
from modelarts_provider.client import AkSkCredentials, ClientSettings, CreateTrainingJobRequest, ModelArtsClient  # noqa: E402
from modelarts_provider.client.models import TrainingJob  # noqa: E402
from modelarts_provider.core.fields import declarations, patch_body  # noqa: E402
from modelarts_provider.network.args import NetworkArgs  # noqa: E402
from modelarts_provider.resource_pool.args import ResourcePoolArgs  # noqa: E402
from testkit.wait_recorder import WAITS, EmulatedClock, Recording, record  # noqa: E402

PHASE_S, RUN_S = 30.0, 120.0  # Creating, Pending, Terminating 30 s each; Running 120 s (of the emulated clock)
NETWORK_S, POOL_S = 20.0, 60.0  # a network Active after 20 s; a pool's nodes over 60 s
FLAVOR = "modelarts.vm.gpu.tnt004"
EMULATOR = dict(phase_seconds=PHASE_S, run_seconds=RUN_S, network_seconds=NETWORK_S, pool_seconds=POOL_S,
                scope_seconds=10, delete_seconds=20)


def job_body(name: str, **annotations: str) -> CreateTrainingJobRequest:
    body: dict[str, Any] = {
        "kind": "job",
        "metadata": {"name": name, "description": "a recorded wait", "annotations": annotations},
        "algorithm": {"code_dir": "obs://recordings/code/", "boot_file": "obs://recordings/code/train.py",
                      "engine": {"engine_id": "pytorch_1.8.0-cuda_10.2-py_3.7-ubuntu_18.04-x86_64"},
                      "outputs": [{"name": "train_url", "remote": {"obs": {"obs_url": "obs://recordings/out/"}}}]},
        "spec": {"resource": {"flavor_id": "modelarts.vm.cpu.8u", "node_count": 1}},
    }
    return CreateTrainingJobRequest.model_validate(body)


SEARCH = {"reward_attrs": [{"name": "accuracy", "mode": "max", "regex": r"accuracy=([0-9.]+)"}],
          "search_params": [{"name": "lr", "param_type": "continuous", "lower_bound": "0.001", "upper_bound": "0.1"}],
          "algo_configs": [{"name": "tpe_search", "params": [{"key": "num_samples", "value": "4", "type": "Integer"},
                                                             {"key": "max_concurrent", "value": "2"}]}]}


class Cloud:
    """One workflow's local ModelArts, its client and its clock."""

    def __init__(self, emu: Any) -> None:
        self.emu = emu
        self.client = ModelArtsClient(ClientSettings(
            region="cn-north-4", project_id=emu.project_id, endpoint=emu.url,
            credentials=AkSkCredentials(access_key=emu.access_key, secret_key=emu.secret_key)))
        self.clock = EmulatedClock(emu)

    def job(self, name: str, **annotations: str) -> TrainingJob:
        return self.client.create_job(job_body(name, **annotations))

    def search_job(self, name: str) -> TrainingJob:
        body = job_body(name).model_dump(mode="json", by_alias=True, exclude_none=True)
        body["algorithm"]["policies"] = {"auto_search": SEARCH}
        return self.client.create_job(CreateTrainingJobRequest.model_validate(body))

    def network(self, name: str = "net-rec") -> str:
        net = self.client.create_network(NetworkArgs(name=name, cidr="172.16.0.0/12").to_wire({}))
        return net.name

    def pool(self, network: str, nodes: int, name: str = "pool-rec") -> str:
        pool = self.client.create_pool(ResourcePoolArgs.model_validate(
            {"name": name, "resources": [{"flavor": FLAVOR, "count": nodes}], "network": network}).to_wire({}))
        return pool.name

    def advance(self, seconds: float) -> None:
        """Setup only: the time a step before the recorded wait takes."""
        self.emu.advance(seconds)


def watched(job: TrainingJob, target: str, timeout_s: float, poll_s: float) -> dict[str, Any]:
    return {"key": job.name, "job_id": job.id, "name": job.name, "target": target, "timeout_s": timeout_s,
            "poll_s": poll_s}


def _jobs(description: str, target: str, timeout_s: float, poll_s: float, **annotations: str) -> Callable[[Cloud], Recording]:
    def run(c: Cloud) -> Recording:
        job = c.job("rec-job", **annotations)
        return record(description, "jobs", {"strategy": "get", "jobs": [watched(job, target, timeout_s, poll_s)]},
                      c.clock, c.client)
    return run


def _search(c: Cloud) -> Recording:
    job = c.search_job("rec-search")
    return record("a job running the service's hyperparameter search, awaited until completed", "jobs",
                  {"strategy": "list", "jobs": [watched(job, "completed", 900, 30)]}, c.clock, c.client)


def _network_create(c: Cloud) -> Recording:
    name = c.network()
    return record("a network created, awaited until Active", "network active",
                  {"name": name, "label": "main", "timeout_s": 600, "poll_s": 5}, c.clock, c.client)


def _network_delete(c: Cloud) -> Recording:
    name = c.network()
    c.advance(NETWORK_S + 1)
    c.client.delete_network(name)
    return record("a network deleted, awaited until the service no longer has it", "network gone",
                  {"name": name, "timeout_s": 600, "poll_s": 2,
                   "too_late": f"network {name}: still there after the delete's deadline; the next destroy waits "
                               "for it again"}, c.clock, c.client)


def _pool_ready(c: Cloud, nodes: int) -> str:
    network = c.network()
    c.advance(NETWORK_S + 1)
    return c.pool(network, nodes)


def _pool_create(c: Cloud) -> Recording:
    name = _pool_ready(c, 2)
    return record("a pool of 2 nodes created, awaited until every node is available and its job type Enabled",
                  "pool usable", {"name": name, "label": "gpu", "want": {FLAVOR: 2}, "timeout_s": 1800, "poll_s": 10,
                                  "scopes": ["Train"]}, c.clock, c.client)


def _pool_scale(c: Cloud) -> Recording:
    name = _pool_ready(c, 1)
    c.advance(POOL_S + 20)
    scaled = ResourcePoolArgs(name="gpu-pool", resources=[{"flavor": FLAVOR, "count": 3}], network="n")  # type: ignore[list-item]
    c.client.patch_pool(name, patch_body(scaled, [f for f in declarations(ResourcePoolArgs)
                                                  if f.name in ("resources", "scope")]))  # the update's merge patch
    return record("a running pool scaled from 1 to 3 nodes, awaited until the new nodes are available",
                  "pool usable", {"name": name, "label": "gpu", "want": {FLAVOR: 3}, "timeout_s": 1800, "poll_s": 10,
                                  "scopes": ["Train"]}, c.clock, c.client)


def _pool_create_fails(c: Cloud) -> Recording:
    c.emu.pool_fault("create_fail", "gpu-bad", "no stock of the flavor in the zone")
    network = c.network()
    c.advance(NETWORK_S + 1)
    name = c.pool(network, 2, name="gpu-bad")
    return record("a pool whose nodes fail to create: the wait ends at once with the order's reason",
                  "pool usable", {"name": name, "label": "gpu-bad", "want": {FLAVOR: 2}, "timeout_s": 1800,
                                  "poll_s": 10, "scopes": ["Train"]}, c.clock, c.client)


def _pool_delete(c: Cloud) -> Recording:
    name = _pool_ready(c, 1)
    c.advance(POOL_S + 20)
    c.client.delete_pool(name)
    return record("a pool deleted, awaited until the service no longer has it", "pool gone",
                  {"name": name, "timeout_s": 1800, "poll_s": 5,
                   "too_late": f"pool {name}: still deleting after 1800 s; the next destroy waits for it again"},
                  c.clock, c.client)


def _job_stop(c: Cloud) -> Recording:
    job = c.job("rec-stop")
    c.advance(2 * PHASE_S + 5)  # Running
    job = c.client.get_job(job.id or "")
    assert job is not None and job.phase == "Running", job
    return record("a running job stopped: terminated, awaited until Terminated", "job stop",
                  {"job": job.model_dump(mode="json", by_alias=True, exclude_none=True), "timeout_s": 900,
                   "poll_s": 5}, c.clock, c.client)


def _job_deleted(c: Cloud) -> Recording:
    job = c.job("rec-delete")
    c.advance(2 * PHASE_S + RUN_S + 5)  # Completed
    c.client.delete_job(job.id or "")
    return record("a deleted job awaited until GET answers ModelArts.2775 (deletes are asynchronous)",
                  "job deleted", {"job": job.model_dump(mode="json", by_alias=True, exclude_none=True),
                                  "timeout_s": 900, "poll_s": 5}, c.clock, c.client)


def _pool_job_stop(c: Cloud) -> Recording:
    job = c.job("rec-left-behind")
    c.advance(2 * PHASE_S + 5)
    job = c.client.get_job(job.id or "")
    assert job is not None
    return record("a job of this stack left on a pool being deleted: terminated, awaited until it ended",
                  "pool job stop", {"job": job.model_dump(mode="json", by_alias=True, exclude_none=True),
                                    "refusal": f"pool gpu (pool-x): not deleted, {job.name} ({job.id}) of this "
                                               "stack runs on it", "poll_s": 5}, c.clock, c.client)


def _log_follow(c: Cloud) -> Recording:
    job = c.job("rec-follow")
    job = c.client.get_job(job.id or "")
    assert job is not None
    return record("a job's log followed (logs --follow) from Creating until it completed", "log follow",
                  {"job": job.model_dump(mode="json", by_alias=True, exclude_none=True), "label": "rec-follow",
                   "tasks": ["worker-0"], "poll_s": 30}, c.clock, c.client)


def _listing(failures: int, description: str) -> Callable[[Cloud], Recording]:
    def run(c: Cloud) -> Recording:
        c.job("rec-listed")
        c.emu.set_faults([{"operation": "search", "kind": "status", "status": 503, "times": failures}])
        once = ModelArtsClient(c.client.settings.model_copy(update={"max_retries": 0}))  # one call per attempt
        return record(description, "job listing", {"limit": 501}, c.clock, once)
    return run


WORKFLOWS: dict[str, Callable[[Cloud], Recording]] = {
    "job_running": _jobs("a job awaited until Running", "running", 600, 10),
    "job_completed": _jobs("a job awaited until Completed", "completed", 900, 30),
    "job_failed": _jobs("a job that fails (exit code 3) awaited until Completed: the wait says why", "completed",
                        900, 30, **{"emulator/outcome": "fail", "emulator/exit-code": "3",
                                    "emulator/message": "CUDA out of memory"}),
    "job_too_late": _jobs("a job that hangs, past its deadline: terminated and reported", "completed", 300, 60,
                          **{"emulator/outcome": "hang"}),
    "search_completed": _search,
    "network_create": _network_create,
    "network_delete": _network_delete,
    "pool_create": _pool_create,
    "pool_create_fails": _pool_create_fails,
    "pool_scale": _pool_scale,
    "pool_delete": _pool_delete,
    "job_stop": _job_stop,
    "job_delete_gone": _job_deleted,
    "pool_job_stop": _pool_job_stop,
    "log_follow": _log_follow,
    "job_listing_retried": _listing(2, "the name index's listing: two attempts answered 503, the third lists "
                                       "(2 s, then 4 s later)"),
    "job_listing_fails": _listing(3, "the name index's listing: every attempt answered 503: the last error is "
                                     "the creates' answer"),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", choices=[[], *WORKFLOWS], help="workflows to record (default: all)")
    parser.add_argument("--out", type=Path, default=WAITS, help=f"where to write them (default: {WAITS})")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for name in args.names or list(WORKFLOWS):
        with tempfile.TemporaryDirectory() as tmp, running_emulator(tmp, **EMULATOR) as emu:
            recording = WORKFLOWS[name](Cloud(emu))
        path = args.out / f"{name}.json"
        path.write_text(json.dumps(recording.model_dump(mode="json"), indent=1) + "\n")
        print(f"{path}: {recording.kind}, {recording.polls} polls, {recording.outcome}"
              + (f": {recording.message}" if recording.message else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

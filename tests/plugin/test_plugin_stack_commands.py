"""`status`, `logs` and `results` on a stack made through the provider plugin (a YAML or TypeScript program):
its jobs are `modelarts:index:TrainingJob` resources and its sweep results are in its JobsAwait's state (it
exports no `sweeps`), both recorded in the schema's camelCase. Without the engine: the commands read `pulumi stack output` / `stack export` documents."""

from __future__ import annotations

from typing import Any

from modelarts_provider.cli.results import sweep_results
from modelarts_provider.cli.stack_reader import JobRef, find_job
from modelarts_provider.cli.status import stack_jobs
from testkit.fake_pulumi import FakePulumi

URN = "urn:pulumi:dev::proj::modelarts:index:{}::{}"


def _job(key: str, job_id: str, phase: str) -> dict[str, Any]:
    return {"urn": URN.format("TrainingJob", key), "type": "modelarts:index:TrainingJob",
            "outputs": {"jobId": job_id, "jobName": f"{key}-abcdef", "phase": phase,
                        "outputPath": f"obs://bkt/out/{key}/"}}


def _await(jobs: dict[str, Any], statuses: dict[str, Any]) -> dict[str, Any]:
    return {"urn": URN.format("JobsAwait", "waited"), "type": "modelarts:index:JobsAwait",
            "outputs": {"jobs": jobs, "statuses": statuses, "phases": {}}}


EXPORT = {"deployment": {"resources": [
    {"urn": "urn:pulumi:dev::proj::pulumi:providers:modelarts::default", "type": "pulumi:providers:modelarts",
     "outputs": {}},
    _job("p1", "id-1", "Completed"), _job("p2", "id-2", "Completed"),
    _await({k: {"jobId": i, "waitFor": "completed", "group": "lr", "parameters": {"lr": v},
                "objective": {"name": "acc", "regex": "acc=([0-9.]+)", "goal": "max"}}
            for k, i, v in (("p1", "id-1", "0.1"), ("p2", "id-2", "0.01"))},
           {"p1": {"jobId": "id-1", "waitFor": "completed", "phase": "Completed", "reached": True, "objective": 0.7},
            "p2": {"jobId": "id-2", "waitFor": "completed", "phase": "Completed", "reached": True,
                   "objective": 0.9, "durationS": 12.0}}),
]}}


def test_status_and_logs_find_the_jobs_of_a_plugin_stack() -> None:
    pulumi: Any = FakePulumi({}, EXPORT)
    assert stack_jobs(pulumi) == [("p1", "id-1", "p1-abcdef", None), ("p2", "id-2", "p2-abcdef", None)]
    assert find_job(pulumi, "p2") == JobRef("id-2", "p2 (p2-abcdef)", "p2") == find_job(pulumi, "p2-abcdef")


def test_results_of_a_plugin_stack_come_from_its_jobs_await() -> None:
    results = sweep_results(FakePulumi({}, EXPORT), "lr")  # type: ignore[arg-type]
    assert results.best is not None and results.best.key == "p2" and results.best.objective == 0.9
    assert results.best.output_path == "obs://bkt/out/p2/" and results.best.parameters == {"lr": "0.01"}
    assert [p.key for p in results.points] == ["p2", "p1"] and results.best.duration_seconds == 12.0

"""bucket/run_folders.py: the folders a bucket's force_destroy keeps are those of jobs writing into it (an output
channel, the log export path) that are not this stack's; a job of this stack, or writing elsewhere, keeps none."""

from __future__ import annotations

from modelarts_provider.bucket.run_folders import foreign_folders, kept_by
from modelarts_provider.client.models import TrainingJob


def _job(name: str, output: str | None, log: str | None = None) -> TrainingJob:
    return TrainingJob.model_validate({
        "metadata": {"id": f"id-{name}", "name": name},
        "algorithm": {"outputs": [{"name": "model", "remote": {"obs": {"obs_url": output}}}] if output else []},
        "spec": {"log_export_path": {"obs_url": log}} if log else {}})


def test_only_the_folders_of_jobs_not_ours_writing_into_the_bucket_are_kept() -> None:
    jobs = [_job("theirs", "obs://models/outputs/theirs/run-1/", log="/models/logs/theirs/"),
            _job("ours", "obs://models/outputs/ours/run-1/"),
            _job("elsewhere", "obs://other/outputs/x/"),
            _job("whole-bucket", "obs://models/")]  # a job writing at the bucket's root names no folder of its own
    asked: list[str] = []

    def ours(job: TrainingJob) -> bool:
        asked.append(job.name or "")
        return job.name == "ours"

    folders = foreign_folders(jobs, "models", ours)
    assert folders == {"outputs/theirs/run-1/": "theirs (id-theirs)", "logs/theirs/": "theirs (id-theirs)"}
    assert asked == ["theirs", "ours"]  # only the jobs writing into the bucket are asked (a call each)
    assert kept_by("outputs/theirs/run-1/model.pt", folders) == "theirs (id-theirs)"
    assert kept_by("outputs/theirs/run-10/model.pt", folders) is None  # a folder, not a name prefix
    assert kept_by("outputs/ours/run-1/model.pt", folders) is None

"""Issue 54, buckets: a copied stack (export, URNs renamed, import: its state says `created` too) never empties or
deletes the original's bucket with its models, even with force_destroy; the original still does. The bucket's
proof (its tags: core/ownership.py) names the original stack. Both doors: the stack program's Bucket and a YAML
program's `modelarts:index:Bucket`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from testkit.faults import copied_stack, output_of
from testkit.harness import Stack
from testkit.plugin_program import yaml_stack
from tests.obs.test_resources import make_stack

pytestmark = pytest.mark.engine
MODEL_KEY = "outputs/a/a-run1/model.pt"


def _python(tmp_path: Path, obs: Any) -> tuple[Stack, str]:
    (tmp_path / "code").mkdir()
    (tmp_path / "code" / "train.py").write_text("print('train')\n")
    return make_stack(tmp_path, obs, tmp_path / "code", bucket="models-bucket", forceDestroy="true"), "models-bucket"


def _yaml(tmp_path: Path, obs: Any) -> tuple[Stack, str]:
    resources = {"models": {"type": "modelarts:index:Bucket",
                            "properties": {"bucket": "yaml-models", "forceDestroy": True}}}
    st = yaml_stack(tmp_path, obs, resources, {"url": "${models.url}"},
                    config={"modelarts:region": "cn-north-4", "modelarts:accessKey": obs.access_key,
                            "modelarts:obsEndpoint": obs.url}, secrets={"modelarts:secretKey": obs.secret_key})
    return st, "yaml-models"


DOORS: dict[str, Callable[[Path, Any], tuple[Stack, str]]] = {"python": _python, "yaml": _yaml}


def _keys(obs: Any, bucket: str) -> list[str]:
    return [o["Key"] for o in obs.client().list_objects(Bucket=bucket).get("Contents", [])]


@pytest.mark.parametrize("door", sorted(DOORS))
def test_a_copied_stack_never_empties_or_deletes_the_originals_bucket(tmp_path: Path, door: str,
                                                                     pulumi_engine: Path) -> None:
    from obs_emulator.testing import running_obs

    with running_obs(tmp_path / "obs") as obs:
        st, bucket = DOORS[door](tmp_path, obs)
        st.up()
        tags = {t["Key"]: t["Value"] for t in obs.client().get_bucket_tagging(Bucket=bucket)["TagSet"]}
        assert "modelarts-pulumi.mark" in tags, tags  # the proof, written when the stack created it
        obs.client().put_object(Bucket=bucket, Key=MODEL_KEY, Body=b"weights")  # a run's model
        copy = copied_stack(st, tmp_path)
        for r in copy.resources():  # the copy's view of the code upload goes first, as a user would remove it
            if r["type"].endswith("CodeUpload"):
                copy.run("state", "delete", r["urn"], "--yes")
        text = output_of(copy.destroy(check=False))
        assert f"bucket {bucket}: kept with its objects: its owner mark does not prove it this stack's" in text, text
        assert MODEL_KEY in _keys(obs, bucket), text  # the model is there still, and the bucket
        st.destroy()  # the original's own mark verifies: emptied and deleted
        assert bucket not in [b["Name"] for b in obs.client().list_buckets().get("Buckets", [])]


COLLEAGUE_KEY = "outputs/colleague/run-1/model.pt"


def _colleagues_job_writing_into(emu: Any, bucket: str) -> str:
    """A job made elsewhere (no owner mark of ours) whose output channel is a folder of our bucket."""
    from modelarts_provider.client import AkSkCredentials, ClientSettings, ModelArtsClient
    from modelarts_provider.client.models import CreateTrainingJobRequest
    from tests.e2e.test_plugin_yaml import ALGORITHM_ID, CPU

    client = ModelArtsClient(ClientSettings(region="cn-north-4", project_id=emu.project_id, endpoint=emu.url,
                                            credentials=AkSkCredentials(access_key=emu.access_key,
                                                                        secret_key=emu.secret_key)))
    job = client.create_job(CreateTrainingJobRequest.model_validate({
        "kind": "job", "metadata": {"name": "colleague-run", "description": "another stack's run"},
        "algorithm": {"id": ALGORITHM_ID, "parameters": [{"name": "epochs", "value": "2"}],
                      "outputs": [{"name": "model", "remote": {"obs": {"obs_url": f"obs://{bucket}/outputs/colleague/run-1/"}}}]},
        "spec": {"resource": {"flavor_id": CPU, "node_count": 1}}}))
    assert job.id
    return job.id


@pytest.mark.parametrize("door", sorted(DOORS))
def test_force_destroy_never_deletes_the_run_folders_of_jobs_that_are_not_this_stacks(
        tmp_path: Path, door: str, pulumi_engine: Path) -> None:
    from modelarts_emulator.testing import running_emulator
    from obs_emulator.testing import running_obs
    from testkit.faults import update_config

    with running_obs(tmp_path / "obs") as obs, running_emulator(tmp_path / "emulator", phase_seconds=0.2,
                                                                run_seconds=600) as emu:
        st, bucket = DOORS[door](tmp_path, obs)
        update_config(st, {"modelarts:endpoint": emu.url, "modelarts:projectId": emu.project_id})
        st.up()
        _colleagues_job_writing_into(emu, bucket)
        obs.client().put_object(Bucket=bucket, Key=COLLEAGUE_KEY, Body=b"their weights")  # their run's model
        obs.client().put_object(Bucket=bucket, Key=MODEL_KEY, Body=b"weights")  # ours, under no job of another
        text = output_of(st.destroy(check=False))
        assert f"bucket {bucket}: not deleted: it holds the outputs of runs that are not this stack's (colleague-run" \
               in text, text
        assert _keys(obs, bucket) == [COLLEAGUE_KEY], text  # theirs kept (and the bucket); ours emptied

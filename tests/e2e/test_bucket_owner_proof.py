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

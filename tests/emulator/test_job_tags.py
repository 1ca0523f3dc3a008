"""Issue 42: the training-job tag operations, driven by the official SDK's client (huaweicloudsdkmodelarts,
pinned in the `test` extra) against the local ModelArts, its requests and responses in the SDK's own models;
and the switch that answers without `metadata.annotations` (as Terraform's docs say the service does)."""

from __future__ import annotations

import pytest
from huaweicloudsdkcore.exceptions.exceptions import ClientRequestException
from huaweicloudsdkmodelarts.v1 import model as m

from tests.emulator.helpers import minimal_job


def _job(api, name: str) -> str:
    response = api.create(minimal_job(name, team="x"))
    assert response.status_code == 201, response.text
    return response.json()["metadata"]["id"]


def _tags(sdk, job_id: str) -> dict[str, str]:
    shown = sdk.show_train_job_tags(m.ShowTrainJobTagsRequest(training_job_id=job_id))
    return {t.key: t.value for t in shown.tags}


def _create(sdk, job_id: str, **tags: str):
    body = m.CreateTmsTagsRequest(tags=[m.TmsTag(key=k.replace("_", "-"), value=v) for k, v in tags.items()])
    return sdk.create_train_job_tags(m.CreateTrainJobTagsRequest(training_job_id=job_id, body=body))


def test_tags_of_a_job_through_the_sdk(emu, api, sdk):
    a, b = _job(api, "tagged-a"), _job(api, "tagged-b")
    assert _tags(sdk, a) == {}
    created = _create(sdk, a, team="vision", cost_center="ml 42")
    # CreateTrainJobTags' documented 204 (no body: Terraform's provider refuses anything else); read back
    assert created.status_code == 204 and created.tags is None
    assert _tags(sdk, a) == {"team": "vision", "cost-center": "ml 42"}
    _create(sdk, a, team="speech")  # a key it has takes the new value
    _create(sdk, b, team="vision")
    assert _tags(sdk, a) == {"team": "speech", "cost-center": "ml 42"}

    sdk.delete_train_job_tags(m.DeleteTrainJobTagsRequest(
        training_job_id=a, body=m.DeleteTmsTagsRequest(tags=[m.TmsTag(key="cost-center")])))
    assert _tags(sdk, a) == {"team": "speech"}

    # The project's keys with their values, and the jobs filtered by tag (values OR, keys AND)
    listed = sdk.list_training_job_tags(m.ListTrainingJobTagsRequest())
    assert {t.key: sorted(t.values) for t in listed.tags} == {"team": ["speech", "vision"]}
    by_tag = sdk.list_training_jobs_by_tags(m.ListTrainingJobsByTagsRequest(body=m.ResourceInstancesFilterReq(
        tags=[m.MutiValueTag(key="team", values=["vision"])])))
    assert by_tag.total_count == 1 and [r.resource_id for r in by_tag.resources] == [b]
    assert by_tag.resources[0].resource_name == "tagged-b"
    anyvalue = sdk.list_training_jobs_by_tags(m.ListTrainingJobsByTagsRequest(body=m.ResourceInstancesFilterReq(
        tags=[m.MutiValueTag(key="team", values=[])])))
    assert sorted(r.resource_id for r in anyvalue.resources) == sorted([a, b])
    counted = sdk.count_training_jobs_by_tags(m.CountTrainingJobsByTagsRequest(body=m.ResourceInstancesFilterReq(
        tags=[m.MutiValueTag(key="team", values=["speech", "vision"])])))
    assert counted.total_count == 2


def test_bad_tags_are_refused_and_an_unknown_job_is_not_found(emu, api, sdk):
    a = _job(api, "tagged-c")
    for key, value in (("a/b", "x"), ("_sys_key", "x"), (" padded", "x"), ("k", "a#b"), ("k" * 129, "x")):
        with pytest.raises(ClientRequestException) as refused:
            sdk.create_train_job_tags(m.CreateTrainJobTagsRequest(
                training_job_id=a, body=m.CreateTmsTagsRequest(tags=[m.TmsTag(key=key, value=value)])))
        assert refused.value.status_code == 400 and refused.value.error_code == "ModelArts.2788", (key, value)
    assert _tags(sdk, a) == {}
    with pytest.raises(ClientRequestException) as missing:
        _tags(sdk, "no-such-job")
    assert missing.value.error_code == "ModelArts.2775"  # documented as a 400 (errors.job_not_found)


def test_the_drop_annotations_switch_answers_without_them_and_keeps_them(emu, api):
    emu.settings(drop_annotations=True)
    try:
        created = api.create(minimal_job("dropped", team="x")).json()
        job_id = created["metadata"]["id"]
        assert "annotations" not in created["metadata"]
        assert "annotations" not in api.get(job_id).json()["metadata"]
        listed = api.search({"limit": 10}).json()["items"]
        assert listed and all("annotations" not in j["metadata"] for j in listed)
        # stored and acted on all the same: the test control shows them
        (stored,) = [j for j in emu.jobs() if j["metadata"]["id"] == job_id]
        assert stored["metadata"]["annotations"]["team"] == "x"
    finally:
        emu.settings(drop_annotations=False)
    assert api.get(job_id).json()["metadata"]["annotations"]["team"] == "x"


def test_the_job_list_filtered_by_tags_through_the_sdk(emu, api, sdk):
    a, b, c = _job(api, "list-a"), _job(api, "list-b"), _job(api, "list-c")
    _create(sdk, a, team="vision", stage="dev")
    _create(sdk, b, team="speech")

    def listed(*tags: m.ListTagFilter) -> set[str]:
        found = sdk.list_training_jobs(m.ListTrainingJobsRequest(body=m.JobSearches(limit=50, tags=list(tags))))
        return {j.metadata.id for j in found.items}

    assert listed(m.ListTagFilter(key="team", values=["vision", "speech"])) == {a, b}  # values OR
    assert listed(m.ListTagFilter(key="team", values=["vision"]), m.ListTagFilter(key="stage", values=[])) == {a}
    assert listed(m.ListTagFilter(key="team", values=[""])) == {a, b}  # only "": the key alone
    assert listed() == {a, b, c}
    emu.advance(32 * 24 * 3600)  # with tags, only jobs of the last 31 days
    assert listed(m.ListTagFilter(key="team", values=[])) == set() and listed() == {a, b, c}

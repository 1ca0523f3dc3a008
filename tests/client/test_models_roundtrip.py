"""Round trip of the documented examples and the documented quirks."""

from __future__ import annotations

import json

import pytest

from modelarts_provider.client.models import (
    CreateTrainingJobRequest,
    ErrorBody,
    JobAlgorithm,
    TrainingJob,
    normalize_obs_path,
    obs_path_to_bucket_form,
    same_obs_path,
)

from .doc_examples import (
    create_examples_rst,
    create_examples_txt,
    create_response_example,
    details_example,
    details_example_lines,
    error_example,
    terminate_response_example,
)


def _both_editions():
    return [("txt", i, ex) for i, ex in enumerate(create_examples_txt())] + [
        ("rst", i, ex) for i, ex in enumerate(create_examples_rst())
    ]


def test_both_editions_have_two_create_examples():
    assert len(create_examples_txt()) == 2 and len(create_examples_rst()) == 2


@pytest.mark.parametrize("edition,index,example", _both_editions())
def test_create_examples_round_trip(edition, index, example):
    req = CreateTrainingJobRequest.model_validate(example)
    # exact, explicit nulls included ("policies": {"auto_search": null})
    assert req.to_wire(keep_nulls=True) == example
    # what the client sends: the same minus explicit nulls
    sent = req.to_wire()
    assert "auto_search" not in sent["algorithm"]["policies"]
    assert {k: v for k, v in example["algorithm"].items() if k != "policies"} == {
        k: v for k, v in sent["algorithm"].items() if k != "policies"
    }
    # parsing what we send yields the same model
    assert CreateTrainingJobRequest.model_validate(sent).to_wire() == sent
    assert json.loads(json.dumps(sent)) == sent


@pytest.mark.parametrize("example", [create_response_example(), terminate_response_example(), details_example()],
                         ids=["create-201", "terminate-202", "details-200"])
def test_response_examples_round_trip(example):
    job = TrainingJob.model_validate(example)
    assert job.to_wire(keep_nulls=True) == example
    assert job.id == example["metadata"]["id"] and job.phase == example["status"]["phase"]


def _pairs(node, out):
    if isinstance(node, dict):
        for k, v in node.items():
            if not isinstance(v, dict):
                out.append((k, json.dumps(v)))
            _pairs(v, out)
    elif isinstance(node, list):
        for v in node:
            _pairs(v, out)
    return out


def test_details_example_matches_the_document():
    """The document's example lost its closing brackets; every key/value line of it is ours, and
    every key/value of ours is in it."""
    doc_pairs = []
    for line in details_example_lines():
        line = line.rstrip(",")
        if line.endswith("{") or line.endswith("["):
            key = json.loads(line.split(":", 1)[0])
            doc_pairs.append((key, None))
            continue
        ((k, v),) = json.loads("{" + line + "}").items()
        doc_pairs.append((k, json.dumps(v)))
    ours = _pairs(details_example(), [])
    scalar_doc = sorted(p for p in doc_pairs if p[1] is not None)
    scalar_ours = sorted(p for p in ours if not p[1].startswith("[{"))
    assert scalar_doc == scalar_ours
    assert len(doc_pairs) >= 40


def test_details_example_parses_to_typed_fields():
    job = TrainingJob.model_validate(details_example())
    assert job.phase == "Abnormal" and job.secondary_phase == "CreateFailed"
    assert job.status.node_count_metrics[0] == [1636447746000, 0]
    assert job.spec.resource.flavor_detail.flavor_info.gpu.memory == "8GB"
    assert job.algorithm.inputs[0].remote.obs.obs_url == "/test/data/py_minist/"


def test_error_example():
    err = ErrorBody.model_validate(error_example())
    assert err.error_code == "ModelArts.2755"


def test_unknown_fields_are_kept_everywhere():
    data = json.loads(json.dumps(details_example()))
    data["brand_new"] = {"x": 1}
    data["status"]["future_field"] = [1, 2]
    data["spec"]["resource"]["flavor_detail"]["flavor_info"]["tpu"] = {"n": 8}
    job = TrainingJob.model_validate(data)
    assert job.to_wire(keep_nulls=True) == data
    assert job.unknown_fields == {"brand_new": {"x": 1}}


@pytest.mark.parametrize(
    "value,expected",
    [
        ({"A": "1", "B": "x"}, {"A": "1", "B": "x"}),
        ([{"A": "1"}, {"B": "x"}], {"A": "1", "B": "x"}),
        ([{"A": "1", "B": "y"}, {"B": "x"}], {"A": "1", "B": "x"}),
        ([{"key": "A", "value": "1"}], {"A": "1"}),
        ({"N": 3, "F": True}, {"N": "3", "F": "true"}),
        ([], {}),
        ({}, {}),
    ],
)
def test_environments_accepts_map_or_list_and_sends_a_map(value, expected):
    alg = JobAlgorithm.model_validate({"environments": value})
    assert alg.environments == expected
    assert alg.to_wire()["environments"] == expected


def test_environments_response_as_list_round_trips_as_map():
    data = json.loads(json.dumps(create_response_example()))
    data["algorithm"]["environments"] = [{"NCCL_DEBUG": "INFO"}, {"X": "1"}]
    job = TrainingJob.model_validate(data)
    assert job.to_wire()["algorithm"]["environments"] == {"NCCL_DEBUG": "INFO", "X": "1"}


def test_environments_rejects_nonsense():
    with pytest.raises(ValueError):
        JobAlgorithm.model_validate({"environments": "A=1"})


@pytest.mark.parametrize(
    "a,b",
    [
        ("obs://bucket/path/", "/bucket/path/"),
        ("obs://bucket/path/file.py", "/bucket/path/file.py"),
        ("OBS://bucket//path/", "/bucket/path/"),
        ("obs://test/economic_test/py_minist/", "/test/economic_test/py_minist/"),
    ],
)
def test_obs_path_spellings_are_the_same(a, b):
    assert same_obs_path(a, b)
    assert normalize_obs_path(b) == normalize_obs_path(a)
    assert obs_path_to_bucket_form(a) == obs_path_to_bucket_form(b)


def test_obs_path_directory_and_file_differ():
    assert not same_obs_path("obs://b/p/", "obs://b/p")
    assert normalize_obs_path("/usr/app/") == "obs://usr/app/"  # a bare path is a bucket form
    assert normalize_obs_path("file:///x") == "file:///x"
    assert normalize_obs_path(None) is None


def test_create_request_requires_name_and_always_sends_kind():
    with pytest.raises(ValueError):
        CreateTrainingJobRequest.model_validate({"metadata": {}})
    req = CreateTrainingJobRequest.model_validate({"metadata": {"name": "n"}})
    assert req.to_wire() == {"kind": "job", "metadata": {"name": "n"}}

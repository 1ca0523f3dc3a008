"""Pool node counts (issue 57, item 3): the service's ``status.resources.<bucket>`` is read whatever its shape.

The evidence disagrees (docs/assumptions.md, "Pool node counts"): the API reference's examples and Terraform's
provider, which runs against the real service, read each bucket as an array of ``{flavor, count}``; the official
SDK's generated model types each as one ``PoolResourceFlavorCount``. The local ModelArts sends arrays; the product's
reader (client/pool_models.py) takes an array, one object, a null or missing bucket, and numbers sent as strings
(the SDK's types and the examples disagree on number vs string elsewhere, e.g. a flavor's ``gpu.size``), all alike.
"""

from __future__ import annotations

from typing import Any

import pytest

from modelarts_provider.client.pool_models import Pool

SPEC = {"resources": [{"flavor": "gpu-a", "count": 3, "maxCount": 3}]}


def _pool(resources: Any) -> Pool:
    return Pool.model_validate({"metadata": {"name": "pool-1"}, "spec": SPEC,
                                "status": {"phase": "Running", "resources": resources}})


@pytest.mark.parametrize("shape", [
    {"available": [{"flavor": "gpu-a", "count": 2}], "creating": [{"flavor": "gpu-a", "count": 1}]},  # examples
    {"available": {"flavor": "gpu-a", "count": 2}, "creating": {"flavor": "gpu-a", "count": 1}},      # the SDK
    {"available": [{"flavor": "gpu-a", "count": "2"}], "creating": {"flavor": "gpu-a", "count": "1"}},  # strings
    {"available": [{"flavor": "gpu-a", "count": 1}, {"flavor": "gpu-a", "count": 1}],
     "creating": [{"flavor": "gpu-a", "count": 1}], "abnormal": None, "deleting": []},  # split entries, nulls
])
def test_every_shape_gives_the_same_counts(shape: dict[str, Any]) -> None:
    status = _pool(shape).status
    assert status.counts("available") == {"gpu-a": 2} and status.counts("creating") == {"gpu-a": 1}
    assert status.counts("abnormal") == {} and not status.failed()
    assert _pool(shape).summary() == "Running: 2/3 nodes available, 1 creating"


def test_a_pool_count_sent_as_a_string_in_the_spec_is_read_as_a_number() -> None:
    pool = Pool.model_validate({"metadata": {"name": "p"}, "spec": {"resources": {"flavor": "f", "count": "4"}},
                                "status": {"phase": "Running", "resources": {"available": {"flavor": "f", "count": 4}}}})
    assert pool.spec.resources[0].count == 4 and pool.summary().startswith("Running: 4/4 nodes available")


def test_the_local_modelarts_sends_arrays_and_the_product_reads_them() -> None:
    """What the emulator answers is Terraform's shape (an array per bucket), and the product reads its counts."""
    from modelarts_emulator.pools.state import render_pool

    doc = {"create_ms": 0, "labels": {}, "annotations": {}, "ready_ms": 0,
           "spec": {"resources": [{"flavor": "gpu-a", "count": 2, "maxCount": 2}], "scope": []},
           "nodes": [{"flavor": "gpu-a", "ready_ms": 0}, {"flavor": "gpu-a", "ready_ms": 10**12}]}
    answer = render_pool("pool-1", doc, 1000)
    assert all(isinstance(v, list) for v in answer["status"]["resources"].values()), answer["status"]
    counts = Pool.model_validate(answer).status
    assert sum(counts.counts("available").values()) + sum(counts.counts("creating").values()) == 2


def test_the_official_sdk_model_types_each_bucket_as_one_object() -> None:
    """Pinned so that a new SDK that fixes (or changes) its model is noticed, and the docs follow."""
    sdk = pytest.importorskip("huaweicloudsdkmodelarts.v1.model.pool_status_resources")
    assert sdk.PoolStatusResources.openapi_types["available"] == "PoolResourceFlavorCount"

"""Wire models of dedicated resource pools and networks (SDK ``CreatePoolRequestBody``, ``PoolSpecCreation``,
``PoolStatus``, ``NetworkCreationRequest``, ``Network``...). Responses keep unknown fields (the service adds
many); the per-flavor node counts of ``status.resources`` are read from an array or a single object (the
SDK types each bucket as one ``PoolResourceFlavorCount``, the API's examples show arrays).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..core.ownership import LABEL_MARKS

NAME_LABEL = "os.modelarts/name"
WORKSPACE_LABEL = "os.modelarts/workspace.id"
BUCKETS = ("creating", "available", "abnormal", "deleting")


class _Wire(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)


class Metadata(_Wire):
    name: str
    creation_timestamp: str | None = Field(default=None, alias="creationTimestamp")
    labels: dict[str, str] = Field(default_factory=dict)
    annotations: dict[str, str] = Field(default_factory=dict)

    @field_validator("labels", "annotations", mode="before")
    @classmethod
    def _strings(cls, v: Any) -> Any:
        return {str(k): str(x) for k, x in v.items()} if isinstance(v, dict) else {} if v is None else v

    @property
    def user_name(self) -> str:
        return self.labels.get(NAME_LABEL, "")


class FlavorCount(_Wire):
    flavor: str
    count: int = 0


class PoolResourceSpec(_Wire):
    flavor: str
    count: int
    max_count: int | None = Field(default=None, alias="maxCount")


class PoolStatus(_Wire):
    phase: str = ""
    message: str | None = None
    resources: dict[str, list[FlavorCount]] = Field(default_factory=dict)

    @field_validator("resources", mode="before")
    @classmethod
    def _lists(cls, v: Any) -> Any:
        if not isinstance(v, dict):
            return {}
        return {k: ([x] if isinstance(x, dict) else x or []) for k, x in v.items() if k in BUCKETS}

    def counts(self, bucket: str) -> dict[str, int]:
        out: dict[str, int] = {}
        for fc in self.resources.get(bucket, []):
            out[fc.flavor] = out.get(fc.flavor, 0) + fc.count
        return out


class PoolSpec(_Wire):
    type: str | None = None
    scope: list[str] = Field(default_factory=list)
    resources: list[PoolResourceSpec] = Field(default_factory=list)
    network: dict[str, Any] | None = None

    @field_validator("resources", mode="before")
    @classmethod
    def _one_or_many(cls, v: Any) -> Any:
        return [v] if isinstance(v, dict) else v  # the tolerance rule: an array accepts one object


class Pool(_Wire):
    metadata: Metadata
    spec: PoolSpec = Field(default_factory=PoolSpec)
    status: PoolStatus = Field(default_factory=PoolStatus)

    @property
    def name(self) -> str:
        return self.metadata.name

    def summary(self) -> str:
        """`Running: 1/2 nodes available, 1 creating` (every flavor together)."""
        total = sum(r.count for r in self.spec.resources)
        parts = [f"{sum(self.status.counts('available').values())}/{total} nodes available"]
        for bucket in ("creating", "abnormal", "deleting"):
            n = sum(self.status.counts(bucket).values())
            if n:
                parts.append(f"{n} {bucket}")
        return f"{self.status.phase or 'unknown'}: " + ", ".join(parts)


class PoolList(_Wire):
    items: list[Pool] = Field(default_factory=list)


class NetworkStatus(_Wire):
    phase: str = ""


class Network(_Wire):
    metadata: Metadata
    spec: dict[str, Any] = Field(default_factory=dict)
    status: NetworkStatus = Field(default_factory=NetworkStatus)

    @property
    def name(self) -> str:
        return self.metadata.name


class NetworkList(_Wire):
    items: list[Network] = Field(default_factory=list)


def _label_marks(annotations: dict[str, str]) -> dict[str, str]:
    """The owner mark's tokens, also as labels: the service returns labels (its user-name label), while it may
    answer without annotations (core/ownership.py)."""
    return {k: v for k, v in annotations.items() if k in LABEL_MARKS}


def create_pool_body(user_name: str, resources: list[tuple[str, int]], network: str, *, scope: list[str],
                     workspace_id: str | None, annotations: dict[str, str]) -> dict[str, Any]:
    """A CreatePoolRequestBody: a physical (Dedicate) pool, maxCount equal to count as documented."""
    labels = {NAME_LABEL: user_name, **_label_marks(annotations)}
    if workspace_id:
        labels[WORKSPACE_LABEL] = workspace_id
    return {"apiVersion": "v2", "kind": "Pool",
            "metadata": {"labels": labels, "annotations": annotations},
            "spec": {"type": "Dedicate", "scope": scope,
                     "resources": [{"flavor": f, "count": n, "maxCount": n} for f, n in resources],
                     "network": {"name": network}}}


def patch_pool_body(resources: list[tuple[str, int]]) -> dict[str, Any]:
    """A PoolUpdateRequest changing node counts only."""
    return {"spec": {"resources": [{"flavor": f, "count": n} for f, n in resources]}}


def create_network_body(user_name: str, cidr: str, *, workspace_id: str | None,
                        annotations: dict[str, str]) -> dict[str, Any]:
    labels = {NAME_LABEL: user_name, **_label_marks(annotations)}
    if workspace_id:
        labels[WORKSPACE_LABEL] = workspace_id
    # The SDK's NetworkMetadataCreation has labels only; our owner mark goes in annotations all the same (as
    # on pools and jobs; assumed kept, see README). Without a mark, the body is exactly the SDK's.
    metadata: dict[str, Any] = {"labels": labels}
    if annotations:
        metadata["annotations"] = annotations
    return {"apiVersion": "v1", "kind": "Network", "metadata": metadata, "spec": {"cidr": cidr}}

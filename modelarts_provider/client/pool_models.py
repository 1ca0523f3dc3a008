"""Wire models of dedicated resource pools and networks (SDK ``CreatePoolRequestBody``, ``PoolSpecCreation``,
``PoolStatus``, ``NetworkCreationRequest``, ``Network``, ``ShowOrderResponse``...). Responses keep unknown
fields (the service adds many); the per-flavor node counts of ``status.resources`` are read from an array or a
single object (the SDK types each bucket as one ``PoolResourceFlavorCount``, the API's examples show arrays).

What Terraform's resource pool reads besides the SDK's fields (docs/assumptions.md): the failure phases
CreationFailed / ScalingFailed and the ``creationFailed`` bucket, the ``os.modelarts/order.name`` label of a
create's or a PATCH's answer, and a network's ``status.subnets[].networkId``.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from .owner_token import LABEL_MARKS

NAME_LABEL = "os.modelarts/name"
WORKSPACE_LABEL = "os.modelarts/workspace.id"
ORDER_LABEL = "os.modelarts/order.name"
BUCKETS = ("creating", "available", "abnormal", "creationFailed", "deleting")
# Phases in which a pool will not become usable by waiting (Terraform's wait stopped on the same ones).
FAILED_PHASES = ("Abnormal", "Error", "CreationFailed", "ScalingFailed")
MERGE_PATCH = "application/merge-patch+json"  # what Terraform's resource pool PATCHes with
DESCRIPTION_ANNOTATION = "os.modelarts/description"  # a pool's description (SDK PoolMetadataUpdateAnnotations)


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

    @property
    def order_name(self) -> str | None:
        """The order of the latest create or node-count change (a pool's answer to POST and PATCH)."""
        return self.labels.get(ORDER_LABEL) or None


class FlavorCount(_Wire):
    flavor: str
    count: int = 0


class PoolResourceSpec(_Wire):
    flavor: str
    count: int
    max_count: int | None = Field(default=None, alias="maxCount")


class ScopeState(_Wire):
    """SDK PoolStatusScope: a job type and its state (Enabling, Enabled, Disabling, Disabled)."""
    scope_type: str = Field(default="", alias="scopeType")
    state: str = ""


class PoolStatus(_Wire):
    phase: str = ""
    message: str | None = None
    resources: dict[str, list[FlavorCount]] = Field(default_factory=dict)
    scope: list[ScopeState] = Field(default_factory=list)

    @field_validator("scope", mode="before")
    @classmethod
    def _scope_list(cls, v: Any) -> Any:
        return [v] if isinstance(v, dict) else v or []

    def scopes_enabled(self, wanted: list[str]) -> bool:
        """Every declared job type that the service lists is Enabled (jobs of a type run only then). A pool
        answer that lists none of them says nothing to wait for (docs/assumptions.md)."""
        states = {s.scope_type: s.state for s in self.scope}
        return all(states[w] == "Enabled" for w in wanted if w in states)

    def failed(self) -> bool:
        """The pool will not reach its nodes by waiting: a failure phase, or nodes abnormal or failed to create."""
        return self.phase in FAILED_PHASES or bool(self.counts("abnormal")) or bool(self.counts("creationFailed"))

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
        for bucket, words in (("creating", "creating"), ("abnormal", "abnormal"),
                              ("creationFailed", "failed to create"), ("deleting", "deleting")):
            n = sum(self.status.counts(bucket).values())
            if n:
                parts.append(f"{n} {words}")
        return f"{self.status.phase or 'unknown'}: " + ", ".join(parts)


class PoolList(_Wire):
    items: list[Pool] = Field(default_factory=list)


class Subnet(_Wire):
    network_id: str = Field(default="", alias="networkId")


class NetworkStatus(_Wire):
    phase: str = ""
    subnets: list[Subnet] = Field(default_factory=list)

    @field_validator("subnets", mode="before")
    @classmethod
    def _subnet_list(cls, v: Any) -> Any:
        return [v] if isinstance(v, dict) else v or []


class Network(_Wire):
    metadata: Metadata
    spec: dict[str, Any] = Field(default_factory=dict)
    status: NetworkStatus = Field(default_factory=NetworkStatus)

    @property
    def name(self) -> str:
        return self.metadata.name

    @property
    def subnet_id(self) -> str | None:
        """The network's subnet (``status.subnets[0].networkId``, what Terraform records as its subnet_id)."""
        return next((s.network_id for s in self.status.subnets if s.network_id), None)


class NetworkList(_Wire):
    items: list[Network] = Field(default_factory=list)


class OrderItem(_Wire):
    """SDK OrderDetailItem: one resource an order changes (the pool, or a node)."""
    resource_name: str = Field(default="", alias="resourceName")
    action: str = ""
    status: str = ""  # processing, succeed, failed
    message: str | None = None


class Order(_Wire):
    """SDK ShowOrderResponse (``GET /v1/{project_id}/orders/{order_name}``)."""
    count: int = 0
    items: list[OrderItem] = Field(default_factory=list)

    def failure(self) -> str | None:
        """Why the order failed, in one line (None: nothing of it failed)."""
        failed = [i for i in self.items if i.status == "failed"]
        if not failed:
            return None
        reasons = list(dict.fromkeys(i.message or "no reason given" for i in failed))
        return f"{len(failed)} of {len(self.items)} resources of the order failed: " + "; ".join(reasons)


def label_marks(annotations: dict[str, str]) -> dict[str, str]:
    """The owner mark's tokens, also as labels: the service returns labels (its user-name label), while it may
    answer without annotations (core/ownership.py)."""
    return {k: v for k, v in annotations.items() if k in LABEL_MARKS}

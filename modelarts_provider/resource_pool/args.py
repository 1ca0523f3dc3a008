"""ResourcePoolArgs: the CreatePool fields we manage (user name, flavor node counts, network, scope) and
provider options."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..client.pool_models import DESCRIPTION_ANNOTATION, NAME_LABEL, WORKSPACE_LABEL, label_marks
from ..core.fields import Change, Declared, to_wire as declared_wire
from ..core.ownership import OwnerMark

from ..core.messages import POOL_DESCRIPTION_RE, POOL_NAME_RE  # the documented rules

MAX_NODES = 500  # per flavor; a physical pool's maxCount is its count (documented), so no elastic range
OUTPUT_KEYS = ("pool_name", "phase", "message", "available", "creating", "abnormal", "location")


class PoolNodes(BaseModel):
    """One flavor's nodes: `{flavor, count}`."""

    model_config = ConfigDict(extra="forbid")
    flavor: Annotated[str, Field(min_length=1, max_length=128, description="a resource flavor (list_resource_flavors)")]
    count: Annotated[int, Field(ge=1, le=MAX_NODES, description="nodes of this flavor, 1-500")]  # 2.0 is 2; 2.5 refused


def _nodes_on_wire(nodes: list[PoolNodes]) -> list[dict[str, Any]]:
    """A physical (Dedicate) pool's resources: maxCount equal to count, as documented."""
    return [{"flavor": n.flavor, "count": n.count, "maxCount": n.count} for n in nodes]


def _nodes_patched(nodes: list[PoolNodes]) -> list[dict[str, Any]]:
    """The PATCH's resources (PoolSpecUpdate): every flavor of the pool with its count (one it lacks is added)."""
    return [{"flavor": n.flavor, "count": n.count} for n in sorted(nodes, key=lambda n: n.flavor)]


def _nodes_live(declared: Any, live: Any) -> Any:
    """The declared nodes with the counts the live pool has (scaled in the console: the next up restores ours); a
    flavor only the live pool has is not declared, one it lacks keeps its count."""
    have = {r.get("flavor"): r.get("count") for r in live or [] if isinstance(r, dict)}
    return [{**r, "count": have.get(r.get("flavor"), r.get("count"))} for r in declared or [] if isinstance(r, dict)]


class ResourcePoolArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    # Each field declared once (core/fields.py): what a change does (diff.py derives its lists from it), and the key
    # of a stack config's `pools.<key>.create` that sets it as it is (stack/declared_keys.py).
    name: Annotated[str, Field(pattern=POOL_NAME_RE, description="the user's name (os.modelarts/name)"),
                    Declared(api=f"metadata.labels[{NAME_LABEL}]")]
    # in place, except a flavor taken away (PatchPool only adds flavors): that replaces (diff.py)
    resources: Annotated[list[PoolNodes], Field(min_length=1, max_length=16, description=(
        "nodes per flavor; a count change or a flavor added is a PATCH in place, a flavor taken away replaces "
        "the pool")), Declared(change=Change.IN_PLACE, api="spec.resources", wire=_nodes_on_wire, patch=_nodes_patched,
                   drift=_nodes_live)]
    network: Annotated[str, Field(min_length=1, description="the network's service name (Network.network_name)"),
                       Declared(api="spec.network.name")]
    scope: Annotated[list[Literal["Train", "Infer", "Notebook"]], Field(
        min_length=1, description="job types the pool serves (changed in place; ready once each is Enabled)"),
        Declared(change=Change.IN_PLACE, api="spec.scope", read=lambda v: sorted(set(v)) if v else v)] = ["Train"]
    workspace_id: Annotated[str | None, Declared(api=f"metadata.labels[{WORKSPACE_LABEL}]")] = Field(
        None, description="the workspace of the pool (default: the service's)")
    description: Annotated[Annotated[str, Field(pattern=POOL_DESCRIPTION_RE)] | None,
                           Declared(change=Change.IN_PLACE, api=f"metadata.annotations[{DESCRIPTION_ANNOTATION}]",
                                    config="description")] = Field(None, description=(
        "the pool's description (annotation os.modelarts/description; changed in place)"))
    timeout_seconds: Annotated[float, Field(gt=0, le=6 * 3600, description=(
        "how long create and scaling wait for every node to be available (customTimeouts take precedence)")),
        Declared(change=Change.PROVIDER, config="timeoutSeconds")] = 3600
    poll_interval_seconds: Annotated[float, Field(gt=0, le=300, description="seconds between polls"),
                                     Declared(change=Change.PROVIDER, config="pollIntervalSeconds")] = 5.0
    force_delete: Annotated[bool, Declared(change=Change.PROVIDER, config="forceDelete")] = Field(False, description=(
        "delete the pool even while jobs of another owner run on it (they fail); without it such a delete stops "
        "naming them"))
    owner: Annotated[OwnerMark | None, Declared(change=Change.IGNORED)] = Field(
        None, description="this resource's owner mark (set by the resource)")

    @field_validator("resources")
    @classmethod
    def _one_per_flavor(cls, v: list[PoolNodes]) -> list[PoolNodes]:
        flavors = [r.flavor for r in v]
        dup = sorted({f for f in flavors if flavors.count(f) > 1})
        if dup:
            raise ValueError(f"flavor {dup[0]} is listed twice: give each flavor one entry with its count")
        return v

    @field_validator("scope")
    @classmethod
    def _scope_set(cls, v: list[str]) -> list[str]:
        return sorted(set(v))

    def counts(self) -> dict[str, int]:
        return {r.flavor: r.count for r in self.resources}

    def to_wire(self, marks: dict[str, str]) -> dict[str, Any]:
        """The CreatePoolRequestBody: a physical (Dedicate) pool, every declared field along its API path
        (core/fields.py), and the owner mark `marks` in its annotations (its tokens also as labels: the service
        returns labels where it may answer without annotations, core/ownership.py)."""
        return declared_wire(self, {"apiVersion": "v2", "kind": "Pool",
                                    "metadata": {"labels": label_marks(marks), "annotations": dict(marks)},
                                    "spec": {"type": "Dedicate"}})


class ResourcePoolOutputs(BaseModel):
    """What the provider returns beside the inputs (the plugin's schema; a field whose type admits no None is always
    set: provider._outputs)."""

    pool_name: str = Field(description="the service's name of the pool (metadata.name), also its id")
    phase: str | None = Field(None, description="Creating, Running, Abnormal, Deleting")
    message: str = Field("", description="the service's status message (\"\" when it has none)")
    available: int = Field(0, description="nodes available")
    creating: int = Field(0, description="nodes being created")
    abnormal: int = Field(0, description="abnormal nodes")
    location: dict[str, str] = Field(description="where the pool lives (cloud, region, project, endpoint)")

"""Bucket's inputs and outputs (pydantic)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from ..core.ownership import OwnerMark

__all__ = ["BucketArgs", "BucketOutputs", "OUTPUT_KEYS"]


class BucketArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    bucket: str = Field(description="Bucket name (3-63 characters; global across OBS).")
    create: bool = Field(True, description=(
        "true (default): create it (destroyed only if this stack created it); false: only check that it "
        "exists, never delete it."))
    force_destroy: bool = Field(False, description=(
        "Destroy deletes the bucket's objects first (create: true only)."))
    owner: OwnerMark | None = Field(None, description=(
        "This resource's owner mark (the Bucket resource sets it): its proof is written on the bucket this stack "
        "creates (bucket tags) and verified before the bucket or its objects are ever deleted."))


class BucketOutputs(BaseModel):
    model_config = ConfigDict(frozen=True)

    url: str = Field(description="obs://<bucket>/")
    created: bool = Field(description=(
        "This resource created the bucket (false: it existed and was taken over empty, or create: false)."))


OUTPUT_KEYS = frozenset(BucketOutputs.model_fields)
